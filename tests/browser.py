"""Headless Chromium for the page's tests (bench/floor/page_drive.py):
screenshots and waiting."""

import os
import time

from bench.floor.page_drive import PageProcess, chrome, missing  # noqa: F401  (the tests' names)

# Where the screenshots go: build/floor_screens/, or FLOOR_SHOTS (`make floor-shots`
# takes docs/floor.md's pictures with these tests into docs/img/floor/).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTS = os.path.join(ROOT, os.environ.get("FLOOR_SHOTS") or os.path.join("build", "floor_screens"))


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name + ".png")
    driver.save_screenshot(path)
    return path


def wait_for(predicate, timeout=10.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None
