"""`python -m sim bench` (`make bench`): engine speed and memory, printed and written to build/bench.json.

- CPython: the engine (all six wagers offered) and crapssim (Fire, All, Tall and
  Small bets kept up) on the same dice stream, taking turns slice by slice so
  machine noise hits both, in CPU time; each pass over the stream gives one
  pair and its ratio, and the table shows medians.
- MicroPython unix port (sim/portable/mp_bench.py): rolls/s on the same stream, bytes
  allocated per roll (non-resolving rolls and overall, gc.mem_alloc deltas with
  the GC disabled), the heap a Table holds and the process's peak heap.
- The board (sim/portable/mp_board_bench.py): the firmware deployed as .mpy
  with layout.json (sim/devlayout.py) on the simulated board, under the VM: µs
  per idle scan, per idle render and per key-to-frame (the scan that applies a
  roll, its journal record and the render that writes it), frames written per
  idle second (steady and with a lamp blinking), the heap the app holds after
  boot, and the smallest -X heapsize in which it boots, restoring its journal,
  and plays three rolls (bisection). The app is built as firmware/main.py
  builds it, with its journal (in a folder on the host).
- The time to compute and render the full exact odds report.

The stream is xorshift32 (sim/portable/dice_stream.py), identical in both runtimes; a
digest of every resolution is compared between them. Targets are recorded,
not asserted: >= 30x crapssim's rolls/s, 0 bytes per non-resolving roll.
"""

import importlib.metadata
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import Table
from sim import devlayout, runtime
from sim.analysis import doc_figures
from sim.cli import ArgumentParser, CommandError, check_writable, write_text
from sim.paths import ROOT
from sim.portable import dice_stream

TARGET_RATIO = 30
TARGET_QUIET_BYTES = 0
SLICE = 2500  # rolls per turn when engine and crapssim alternate
DEFAULT_OUT = os.path.join(ROOT, "build", "bench.json")


def dice_pairs(seed, count):
    return [(r // 6 + 1, r % 6 + 1) for r in dice_stream.rolls(seed, count)]


def engine_digest(stream):
    """Resolution count and digest, computed exactly as mp_bench.py does."""
    table = Table()
    digest = resolutions = 0
    for d1, d2 in stream:
        k = table.roll(d1, d2)
        for j in range(k):
            digest = (digest * 31 + table.res_wager[j] * 16 + table.res_level[j]) & 0xFFFFFF
        resolutions += k
    return resolutions, digest


def _crapssim_table():
    from crapssim.strategy.single_bet import BetAll, BetFire, BetSmall, BetTall
    from crapssim.strategy.tools import AggregateStrategy
    from crapssim.table import Table as CrapsTable

    table = CrapsTable()
    table.add_player(bankroll=10**12, strategy=AggregateStrategy(BetFire(1), BetAll(1), BetTall(1), BetSmall(1)))
    return table


def cpython_pair(stream, with_crapssim=True):
    """(engine rolls/s, crapssim rolls/s or None) over one pass of `stream`.

    The stream is cut into slices of SLICE rolls and the two run turn about,
    slice by slice, each on its own table carrying on from its last slice, so
    a burst of load from elsewhere on the machine hits both. CPU time of this
    process (time.process_time) is counted, not wall time."""
    engine = Table()  # default configuration: all six wagers offered and tracked
    roll = engine.roll
    craps = _crapssim_table() if with_crapssim else None
    clock = time.process_time
    engine_time = craps_time = 0.0
    for start in range(0, len(stream), SLICE):
        piece = stream[start : start + SLICE]
        t0 = clock()
        for d1, d2 in piece:
            roll(d1, d2)
        t1 = clock()
        engine_time += t1 - t0
        if craps is not None:
            craps.fixed_run(piece)
            craps_time += clock() - t1
    n = len(stream)
    return n / engine_time, (n / craps_time if craps is not None else None)


def cpython_pairs(stream, reps):
    return [cpython_pair(stream) for _ in range(reps)]


def micropython(rolls, seed, reps, sample):
    done = runtime.run(
        "sim/portable/mp_bench.py", [str(rolls), str(seed), str(reps), str(sample)], capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(
            "mp_bench.py failed: " + done.stderr.strip().splitlines()[-1]
            if done.stderr.strip()
            else "exit %d" % done.returncode
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


BOARD_BENCH = "sim/portable/mp_board_bench.py"
HEAP_LOW, HEAP_HIGH = 64, 256  # KB: the bisection's bounds


def _compile_bench(dest):
    """The board bench and the simulated board as .mpy beside the deploy, so
    the heap figures are the firmware's, not the benchmark's compiler's."""
    portable = os.path.join(dest, "lib", "sim", "portable")
    os.makedirs(portable)
    for name in ("simboard.py", "mp_board_bench.py"):
        target = os.path.join(portable, name[:-3] + ".mpy")
        subprocess.run([devlayout.mpy_cross(), "-o", target, os.path.join(ROOT, "sim", "portable", name)], check=True)
    launcher = os.path.join(dest, "bench_main.py")
    with open(launcher, "w", encoding="utf-8") as f:
        f.write("import sim.portable.mp_board_bench  # noqa: F401  (runs on import)\n")
    return launcher


def _board_run(launcher, dest, heap_kb, boot_only, journal):
    args = [os.path.join(dest, devlayout.DEVICE_FILE), journal] + (["boot"] if boot_only else [])
    done = runtime.run(
        launcher, args, "%dK" % heap_kb, extra_paths=[os.path.join(dest, "lib")], capture_output=True, text=True
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines or not lines[-1].startswith("{"):
        return None
    return json.loads(lines[-1])


def board(quick=False):
    """The board figures (see the module doc), or {"error": ...}."""
    with tempfile.TemporaryDirectory(prefix="bench-deploy-") as dest:
        devlayout.write_device_files(dest)
        launcher = _compile_bench(dest)
        # The full run is a first boot: it starts the journal the board keeps.
        os.makedirs(os.path.join(dest, "flash"))
        figures = _board_run(launcher, dest, HEAP_HIGH, False, os.path.join(dest, "flash"))
        if figures is None:
            return {"error": "mp_board_bench.py failed in a %dK heap" % HEAP_HIGH}
        low, high = HEAP_LOW, HEAP_HIGH  # low fails, high boots and plays
        step = 8 if quick else 1
        trial = 0
        while high - low > step:
            mid = (low + high) // 2
            # Each trial restores a copy of that journal and plays three rolls.
            trial += 1
            journal = os.path.join(dest, "trial%d" % trial)
            shutil.copytree(os.path.join(dest, "flash"), journal)
            played = _board_run(launcher, dest, mid, True, journal)
            if played is not None and played["played"] == 3:  # three rolls, three events
                high = mid
            else:
                low = mid
        figures["smallest_heap_kb"] = high
    return figures


def odds_report_seconds(reps=5):
    from sim.analysis import odds, odds_exact, odds_rows

    times = []
    for _ in range(reps):
        odds_exact.clear_caches()
        start = time.perf_counter()
        odds.render(odds_rows.all_rows(), io.StringIO().write)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(rolls, reps, mp_rolls, mp_reps, mp_sample, seed, skip_mp=False, quick=False):
    stream = dice_pairs(seed, rolls)
    result = {
        "seed": seed,
        "stream": "xorshift32 (sim/portable/dice_stream.py)",
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpython": {"rolls": rolls, "pairs": []},
        "targets": {"ratio_min": TARGET_RATIO, "quiet_bytes_per_roll": TARGET_QUIET_BYTES},
    }
    try:
        result["crapssim_version"] = importlib.metadata.version("crapssim")
    except importlib.metadata.PackageNotFoundError:
        result["crapssim_version"] = None
    pairs = cpython_pairs(stream, reps) if result["crapssim_version"] is not None else []
    cp = result["cpython"]
    cp["pairs"] = [{"engine_rolls_per_s": e, "crapssim_rolls_per_s": c, "ratio": e / c} for e, c in pairs]
    if pairs:
        cp["engine_rolls_per_s"] = statistics.median(e for e, _ in pairs)
        cp["crapssim_rolls_per_s"] = statistics.median(c for _, c in pairs)
        cp["ratio"] = statistics.median(e / c for e, c in pairs)
        cp["ratio_met"] = cp["ratio"] >= TARGET_RATIO
    else:
        cp["engine_rolls_per_s"] = statistics.median(cpython_pair(stream, False)[0] for _ in range(reps))
    result["micropython"] = None
    if not skip_mp:
        try:
            mp = micropython(mp_rolls, seed, mp_reps, mp_sample)
        except (runtime.RuntimeMissing, RuntimeError) as e:
            result["micropython"] = {"error": str(e)}
        else:
            mp["rolls_per_s"] = mp["rolls"] / (statistics.median(mp["pass_us"]) / 1e6)
            mp["quiet_bytes_per_roll"] = mp["quiet_bytes"] / mp["quiet_rolls"] if mp["quiet_rolls"] else None
            mp["resolving_bytes_per_roll"] = (
                mp["resolving_bytes"] / mp["resolving_rolls"] if mp["resolving_rolls"] else None
            )
            mp["bytes_per_roll"] = mp["total_bytes"] / mp["rolls"]
            mp["quiet_met"] = mp["quiet_bytes_per_roll"] == TARGET_QUIET_BYTES
            mp["sample_rolls"] = mp_sample
            expected = engine_digest(stream if mp_rolls == rolls else dice_pairs(seed, mp_rolls))
            mp["matches_cpython"] = [mp["resolutions"], mp["digest"]] == list(expected)
            result["micropython"] = mp
        try:
            result["board"] = board(quick)
        except (runtime.RuntimeMissing, OSError, subprocess.CalledProcessError) as e:
            result["board"] = {"error": str(e)}
    result["odds_report_seconds"] = odds_report_seconds()
    return result


def _n(x, spec=",.0f"):
    return "-" if x is None else format(x, spec)


def rows(r):
    """(measure, value) rows, as printed and as docs/odds.md's generated table."""
    cp, mp = r["cpython"], r["micropython"]
    rows = [
        ("CPython %s engine, all six wagers (rolls/s)" % r["python"], _n(cp["engine_rolls_per_s"])),
    ]
    if cp["pairs"]:
        rows += [
            ("crapssim %s, Fire+All+Tall+Small (rolls/s)" % r["crapssim_version"], _n(cp["crapssim_rolls_per_s"])),
            (
                "ratio engine / crapssim, median of pairs",
                "%.1fx  target >= %dx: %s" % (cp["ratio"], TARGET_RATIO, "met" if cp["ratio_met"] else "NOT met"),
            ),
            ("  each pair", " ".join("%.1fx" % p["ratio"] for p in cp["pairs"])),
        ]
    if mp and "error" not in mp:
        rows += [
            ("MicroPython engine, all six wagers (rolls/s)", _n(mp["rolls_per_s"])),
            (
                "MicroPython bytes/roll, non-resolving",
                "%s  (%s rolls sampled)  target %d: %s"
                % (
                    _n(mp["quiet_bytes_per_roll"], ".2f"),
                    _n(mp["quiet_rolls"]),
                    TARGET_QUIET_BYTES,
                    "met" if mp["quiet_met"] else "NOT met",
                ),
            ),
            (
                "MicroPython bytes/roll, resolving",
                "%s  (%s rolls sampled)" % (_n(mp["resolving_bytes_per_roll"], ".2f"), _n(mp["resolving_rolls"])),
            ),
            (
                "MicroPython bytes/roll, overall",
                "%s  (all %s rolls)" % (_n(mp["bytes_per_roll"], ".2f"), _n(mp["rolls"])),
            ),
            ("MicroPython heap held by Table() (bytes)", _n(mp["table_bytes"])),
            (
                "MicroPython peak heap, whole process (bytes)",
                "%s of %s" % (_n(mp["peak_heap_bytes"]), _n(mp["heap_bytes"])),
            ),
            ("MicroPython resolutions = CPython's", "yes" if mp["matches_cpython"] else "NO (digest differs)"),
        ]
    elif mp:
        rows.append(("MicroPython", "skipped: " + mp["error"]))
    b = r.get("board")
    if b and "error" not in b:
        rows += [
            ("board (.mpy + layout.json, unix port): idle scan (us)", "%.1f" % b["idle_scan_us"]),
            ("board: idle render, nothing written (us)", "%.1f" % b["idle_render_us"]),
            ("board: key to frame, scan + render + write (us)", "%.0f" % b["key_to_frame_us"]),
            (
                "board: frames written per idle second",
                "%.1f  (a lamp blinking: %.1f)" % (b["frames_per_idle_s"], b["frames_per_blinking_s"]),
            ),
            ("board: heap held after boot, journal started (bytes)", _n(b["boot_heap_bytes"])),
            ("board: smallest heap that boots and plays, journal restored (KB)", "%d" % b["smallest_heap_kb"]),
        ]
    elif b:
        rows.append(("board", "skipped: " + b["error"]))
    rows.append(("exact odds report, all rows (ms)", "%.1f" % (r["odds_report_seconds"] * 1000)))
    return rows


def title(r):
    cp = r["cpython"]
    return "Benchmark: %s rolls of %s, seed %d, %d interleaved pairs" % (
        _n(cp["rolls"]),
        r["stream"],
        r["seed"],
        len(cp["pairs"]),
    )


def render(r, write):
    doc_figures.console(title(r), rows(r), write)


# The docs' sections this bench writes (`--write-doc`): (doc, section, body from the results).
def doc_sections(r):
    from sim.analysis import gc_pause, journal_figures

    out = [("docs/odds.md", "make bench", doc_figures.section_body(r["stamp"], title(r), rows(r)))]
    if "gc_pause" in r and "error" not in r["gc_pause"]:
        out.append(("docs/board.md", "make bench: gc pause", gc_pause.section(r["stamp"], r["gc_pause"])))
    if "journal" in r and "error" not in r["journal"]:
        out.append(("docs/journal.md", "make bench: journal", journal_figures.section(r["stamp"], r["journal"])))
    return out


def main(argv):
    parser = ArgumentParser(prog="python -m sim bench", description="Engine speed and memory (see docs/odds.md).")
    parser.add_argument("--rolls", type=int, default=50_000, help="CPython stream length (default 50000)")
    parser.add_argument("--reps", type=int, default=5, help="interleaved engine/crapssim pairs (default 5)")
    parser.add_argument("--mp-rolls", type=int, default=100_000, help="MicroPython stream length (default 100000)")
    parser.add_argument("--mp-reps", type=int, default=3, help="MicroPython timed passes (default 3)")
    parser.add_argument(
        "--mp-sample", type=int, default=20_000, help="MicroPython rolls measured one by one (default 20000)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-micropython", action="store_true", help="skip the MicroPython measurements")
    parser.add_argument("--quick", action="store_true", help="tiny run (a smoke test, not a measurement)")
    parser.add_argument("--no-journal", action="store_true", help="skip the journal's flash figures")
    parser.add_argument("--out", default=DEFAULT_OUT, help="JSON file to write (default build/bench.json)")
    parser.add_argument(
        "--write-doc", action="store_true", help="write the figures into the docs' generated sections (make bench)"
    )
    args = parser.parse_args(argv)
    if args.write_doc and (args.quick or args.no_micropython or args.no_journal):
        raise CommandError("--write-doc needs a whole run: not with --quick, --no-micropython or --no-journal")
    if args.quick:
        args.rolls, args.reps, args.mp_rolls, args.mp_reps, args.mp_sample = 2000, 1, 4000, 1, 1000
    if min(args.rolls, args.reps, args.mp_rolls, args.mp_reps) < 1 or args.mp_sample < 0:
        raise CommandError("--rolls, --reps, --mp-rolls and --mp-reps must be at least 1")
    if args.out == DEFAULT_OUT:  # build/ is ours to make; another folder must exist
        os.makedirs(os.path.dirname(DEFAULT_OUT), exist_ok=True)
    check_writable(args.out, "benchmark results")
    result = measure(
        args.rolls, args.reps, args.mp_rolls, args.mp_reps, args.mp_sample, args.seed, args.no_micropython, args.quick
    )
    result["offered_wagers"] = list(pt.WAGER_NAMES)
    result["stamp"] = doc_figures.stamp("make bench")
    render(result, sys.stdout.write)
    if not args.no_micropython:  # the collection's pause against the used heap (sim/analysis/gc_pause.py)
        from sim.analysis import gc_pause

        result["gc_pause"] = gc_pause.measure()
        gc_pause.render(result["gc_pause"], sys.stdout.write)
    if not args.no_journal:  # the journal's flash figures (sim/analysis/journal_figures.py)
        from sim.analysis import journal_figures

        rolls = journal_figures.QUICK_ROLLS if args.quick else journal_figures.FULL_JOURNAL_ROLLS
        result["journal"] = journal_figures.measure(rolls)
        journal_figures.render(result["journal"], sys.stdout.write)
    write_text(args.out, json.dumps(result, indent=1) + "\n", "benchmark results")
    print("wrote " + os.path.relpath(args.out))
    if args.write_doc:
        for doc, name, body in doc_sections(json.loads(json.dumps(result))):
            doc_figures.write_section(doc, name, body)
            print("wrote %s (%s)" % (doc, name))
    return 0
