"""`python -m sim bench`'s GC pause figures: gc.collect() timed under the
MicroPython unix port with the heap's used part at several sizes, in a 4 MB
heap like a PSRAM board's (sim/portable/mp_gc_pause.py). The board's budget
(docs/board.md, Memory) keeps the used part small because the pause grows
with it."""

import json

from sim import runtime
from sim.analysis import doc_figures

SCRIPT = "sim/portable/mp_gc_pause.py"
USED_KB = (64, 128, 256, 512, 1024, 2048)
HEAP = "4M"


def measure(used_kb=USED_KB):
    """{used KB: {"used_bytes", "pause_us" (fastest of 15), "median_us"}}, or {"error": ...}."""
    try:
        done = runtime.run(SCRIPT, [str(kb) for kb in used_kb], HEAP, capture_output=True, text=True)
    except (runtime.RuntimeMissing, OSError) as e:
        return {"error": str(e)}
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return {"error": "mp_gc_pause.py failed: " + (done.stderr.strip().splitlines() or ["no output"])[-1]}
    raw = json.loads(lines[-1])
    return {int(kb): {"used_bytes": v[0], "pause_us": v[1], "median_us": v[2]} for kb, v in raw.items()}


def rows(figures):
    """(used heap, pause) rows, fastest and median of 15; `figures` as measured or read back from JSON."""
    out = []
    for kb in sorted(figures, key=int):
        f = figures[kb]
        out.append(("%s KB" % format(int(kb), ","), "%d µs (median of 15: %d µs)" % (f["pause_us"], f["median_us"])))
    return out


TITLE = "GC pause, unix port, %s heap (gc.collect(), fastest and median of 15):" % HEAP


def render(figures, write):
    if "error" in figures:
        write("GC pause: skipped: %s\n" % figures["error"])
        return
    write(TITLE + "\n")
    for used, pause in rows(figures):
        write("  %9s used: %s\n" % (used, pause))


def section(stamp, figures):
    """docs/board.md's generated table (`make bench`)."""
    return "%s\n\n%s" % (stamp, doc_figures.markdown(rows(figures), ("used heap", "`gc.collect()`")))
