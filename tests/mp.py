"""Helpers to run code under the MicroPython unix port from tests."""

import os
import subprocess

from sim import runtime

TESTS = os.path.dirname(os.path.abspath(__file__))


def run_script(path, stdin_text, heapsize=runtime.HEAPSIZE, args=()):
    """Run a MicroPython script with firmware/lib and tests/ on its path."""
    return subprocess.run(
        runtime.micropython_command(path, args, heapsize),
        input=stdin_text.encode(),
        capture_output=True,
        env=runtime.micropython_env([TESTS]),
        timeout=120,
    )
