"""The journal writes the same bytes and restores the same table under CPython and the MicroPython VM."""

import os
import subprocess
import sys

from sim import ROOT, SIM_DIR, runtime

TESTS = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(TESTS, "journal_parity.py")


def test_cpython_and_micropython_write_the_same_journal():
    vm = subprocess.run(
        runtime.micropython_command(SCRIPT, (), "8M"),
        capture_output=True,
        text=True,
        env=runtime.micropython_env([TESTS, os.path.join(SIM_DIR, "portable")]),
        timeout=120,
    )
    assert vm.returncode == 0, vm.stderr
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "sim", "shims"), os.path.join(ROOT, "firmware", "lib")]),
    )
    cpython = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert cpython.returncode == 0, cpython.stderr
    assert vm.stdout == cpython.stdout
    lines = vm.stdout.splitlines()
    assert lines[-1] == "same True"
    assert sum(line.startswith("g") for line in lines) == 3 and "head" in vm.stdout
