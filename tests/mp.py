"""Helpers to run code under the MicroPython unix port from tests."""

import os
import subprocess

from sim import FIRMWARE_LIB, runtime

TESTS = os.path.dirname(os.path.abspath(__file__))


def run_script(path, stdin_text, heapsize=runtime.HEAPSIZE, args=()):
    """Run a MicroPython script with firmware/lib and tests/ on its path."""
    env = runtime.micropython_env()
    env["MICROPYPATH"] = os.pathsep.join([FIRMWARE_LIB, TESTS, ".frozen"])
    return subprocess.run(
        [runtime.micropython_binary(), "-X", "heapsize=" + heapsize, path, *args],
        input=stdin_text.encode(),
        capture_output=True,
        env=env,
        timeout=120,
    )
