"""Run one of the tests' VM programs (tests/vm/) under the named runtime: the
MicroPython VM, or CPython with the imports bootstrap() gives. The same
program and arguments on both, so the two runtimes' outputs can be compared."""

import os
import subprocess
import sys

from conftest import ROOT

from sim import paths, runtime


def run(runtime_name, program, args, heapsize=runtime.HEAPSIZE, **kwargs):
    """subprocess.run of `program` (a path from the repository root) with
    `args`; kwargs go to subprocess.run (input, timeout, cwd …). Output is text."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    if runtime_name == "micropython":
        return runtime.run(program, args, heapsize, **kwargs)
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, program), *args], env=paths.cpython_environment(), **kwargs
    )
