"""The serial link core's throughput and memory on CPython and the MicroPython
VM, and the fuzz's frames/s: `python -m sim.analysis.link_bench [REQUESTS]`
(`make bench-link`, part of `make bench`). Prints a table and writes
build/link_bench.json; with `--write-doc`, docs/link.md's generated table too. Figures are recorded, never asserted.

The workloads are sim/portable/mp_link_bench.py's, the same on both runtimes;
the fuzz is tests/vm/link_fuzz.py with a fixed seed.
"""

import json
import os
import subprocess
import sys
import time

from sim import runtime
from sim.analysis import doc_figures
from sim.paths import FIRMWARE_LIB, ROOT, SHIMS

FUZZ = "tests/vm/link_fuzz.py"
FUZZ_FRAMES = 5000
OUT = os.path.join(ROOT, "build", "link_bench.json")


def _fuzz_rate(which):
    """Fuzz frames per second (generation and checks included), wall clock of the whole program."""
    text = "11 %d\n" % FUZZ_FRAMES
    start = time.perf_counter()
    if which == "micropython":
        out = runtime.run(FUZZ, input=text, heapsize="1M", capture_output=True, text=True, timeout=600)
    else:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, FIRMWARE_LIB, SHIMS]))
        out = subprocess.run(
            [sys.executable, os.path.join(ROOT, FUZZ)], input=text, env=env, capture_output=True, text=True, timeout=600
        )
    elapsed = time.perf_counter() - start
    assert out.returncode == 0 and json.loads(out.stdout)["violations"] == 0, out.stderr
    return round(FUZZ_FRAMES / elapsed)


def _vm(args, heapsize):
    out = runtime.run(
        "sim/portable/mp_link_bench.py", args, heapsize=heapsize, capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        raise RuntimeError("link bench under the VM failed: " + (out.stderr + out.stdout).strip())
    return json.loads(out.stdout)


def measure(requests=2000):
    from sim.portable import mp_link_bench

    cpython = mp_link_bench.run(requests)
    micropython = _vm([str(requests)], "4M")  # the input streams need room
    micropython.update(_vm([str(requests), "memory"], runtime.HEAPSIZE))  # memory in the ESP32-like heap
    cpython["fuzz_frames_per_s"] = _fuzz_rate("cpython")
    micropython["fuzz_frames_per_s"] = _fuzz_rate("micropython")
    return {"requests": requests, "cpython": cpython, "micropython": micropython}


HEADER = ("link core", "CPython", "MicroPython")


def rows(result):
    keys = sorted(set(result["cpython"]) | set(result["micropython"]))
    return [(key, result["cpython"].get(key, "-"), result["micropython"].get(key, "-")) for key in keys]


def section(result):
    """docs/link.md's generated table (`make bench-link`)."""
    title = "%d requests of each kind per runtime." % result["requests"]
    return "%s\n\n%s\n\n%s" % (result["stamp"], title, doc_figures.markdown(rows(result), HEADER))


def main(argv):
    write_doc = "--write-doc" in argv
    argv = [a for a in argv if a != "--write-doc"]
    result = measure(int(argv[0]) if argv else 2000)
    result["stamp"] = doc_figures.stamp("make bench-link")
    print("%-28s %14s %14s" % HEADER)
    for row in rows(result):
        print("%-28s %14s %14s" % row)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=2)
    print("written to " + os.path.relpath(OUT, ROOT))
    if write_doc:
        doc_figures.write_section("docs/link.md", "make bench-link", section(result))
        print("wrote docs/link.md (make bench-link)")


if __name__ == "__main__":
    main(sys.argv[1:])
