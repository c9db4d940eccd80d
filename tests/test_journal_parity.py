"""The journal writes the same bytes and restores the same table under CPython and the MicroPython VM."""

import os
import subprocess
import sys

from sim import runtime
from sim.paths import FIRMWARE_LIB, ROOT, SHIMS

SCRIPT = "tests/vm/journal_parity.py"


def test_cpython_and_micropython_write_the_same_journal():
    vm = runtime.run(SCRIPT, heapsize="8M", capture_output=True, text=True, timeout=120)
    assert vm.returncode == 0, vm.stderr
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, FIRMWARE_LIB, SHIMS]))
    cpython = subprocess.run(
        [sys.executable, os.path.join(ROOT, SCRIPT)], capture_output=True, text=True, env=env, timeout=120
    )
    assert cpython.returncode == 0, cpython.stderr
    assert vm.stdout == cpython.stdout
    lines = vm.stdout.splitlines()
    assert lines[-1] == "same True"
    assert sum(line.startswith("g") for line in lines) == 3 and "head" in vm.stdout
