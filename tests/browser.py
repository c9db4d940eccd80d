"""Headless Chromium for the page's tests: Debian's chromium and chromedriver
(`make browser` installs them), driven by selenium, nothing downloaded."""

import os
import shutil
import subprocess
import sys
import time

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "floor_screens")


def missing():
    """Why the browser cannot run here, or None."""
    for path in (CHROMIUM, DRIVER):
        if not os.access(path, os.X_OK):
            return "%s is missing: make browser installs chromium and chromium-driver" % path
    return None


def chrome(width=1280, height=1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)


def shot_path(name):
    os.makedirs(SHOTS, exist_ok=True)
    return os.path.join(SHOTS, name + ".png")


def shot(driver, name):
    path = shot_path(name)
    driver.save_screenshot(path)
    return path


class PageProcess:
    """`python -m host_tools floor page` for a floor directory, until stop()."""

    def __init__(self, directory, port, *options):
        from host_tools.floor import broker

        self.url = "http://127.0.0.1:%d" % port
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "floor", "page", "--dir", directory, "--http-port", str(port)]
            + list(options),
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.first_line = self.proc.stdout.readline()
        if not broker.wait_listening(port, 10.0, self.proc):
            self.stop()
            raise RuntimeError("the page did not start: " + self.proc.stderr.read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.stderr.read() if self.proc.stderr else ""


def wait_for(predicate, timeout=10.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None
