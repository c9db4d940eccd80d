"""The smallest -X heapsize in which firmware/main.py boots and plays (docs/board.md, Memory).

    .venv/bin/python tests/boot_heap.py [BOOTS] [LOW] [HIGH] [REPEATS]

BOOTS is a comma-separated list of: first (a first boot, then three rolls
played), short (restoring the journal that left), shortplay (restoring it,
then three rolls played), 300 (restoring 300 events, as
test_a_journal_of_hundreds_of_events... builds them), 300play (restoring
them, then three rolls played) and full (restoring a
full journal: 24 segments; building it takes minutes); each with "+config"
(300+config) boots beside a config.json of every key, the journal kept under
it (tests/test_board_main.py's FULL_CONFIG). Default:
first,short,shortplay,300 112 256 3. A heap passes when every one of REPEATS
boots in it runs 3 s (30 watchdog feeds) with no fault; the bisection assumes
HIGH passes. The flash folders are made as tests/test_board_main.py makes
them, in a temporary folder. Not a test: a measurement, run by hand.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT] + [os.path.join(ROOT, p) for p in ("firmware/lib", "sim/shims", "hardware")]

import test_board_main as tbm  # noqa: E402


def boots(folder, heap, keys):
    """True when main.py in `folder` boots and runs 3 s in `heap` (e.g. "96K")
    and its journal gains what it should: the journal's start or the restart,
    and a record for each roll `keys` enter (a journal that ran out of memory
    stops, and the board takes no more rolls, with no start-up fault)."""
    rolls = len(keys) // 2
    expected = tbm.journal_seq(folder) + 1 + rolls
    try:
        done = tbm.run_boot(folder, heap, keys=keys, feeds=30, timeout=30)
    except subprocess.TimeoutExpired:  # a task died after start-up: no more feeds
        return False
    report = tbm.report_of(done.stdout)
    ran = done.returncode == 0 and report.get("wdt") == "1 30" and "crapsboard:" not in report
    return ran and tbm.journal_seq(folder) == expected


def template(base, name):
    """The flash folder each trial of boot `name` starts from (made once)."""
    folder = base / name
    if folder.exists():
        return folder
    folder.mkdir()
    boot, _, suffix = name.partition("+")
    config = tbm.FULL_CONFIG if suffix == "config" else None
    if suffix not in ("", "config"):
        raise SystemExit("unknown boot " + name)
    tbm.flash(folder, config=config)
    if boot in ("short", "shortplay"):
        if not boots(folder, "256K", tbm.keys_for(tbm.PLAYED)):
            raise SystemExit("the first boot failed in 256K")
    elif boot in ("300", "300play"):
        tbm.journal_of(folder, 300, config)
    elif boot == "full":
        tbm.journal_of(folder, 24 * 1290, config)
    elif boot != "first":
        raise SystemExit("unknown boot " + name)
    return folder


def smallest(base, name, low, high, repeats):
    keys = tbm.keys_for(tbm.PLAYED) if name.partition("+")[0] in ("first", "shortplay", "300play") else ()
    source = template(base, name)
    while high - low > 1:
        mid = (low + high) // 2
        good = True
        for _ in range(repeats):
            trial = base / "trial"
            shutil.rmtree(trial, ignore_errors=True)
            shutil.copytree(source, trial)
            if not boots(trial, "%dK" % mid, keys):
                good = False
                break
        low, high = (low, mid) if good else (mid, high)
    return high


def main(argv):
    names = (argv[0] if argv else "first,short,shortplay,300").split(",")
    low, high, repeats = [int(a) for a in argv[1:4]] if len(argv) >= 4 else (112, 256, 3)
    with tempfile.TemporaryDirectory(prefix="boot-heap-") as tmp:
        for name in names:
            print("%-10s %d KB" % (name, smallest(Path(tmp), name, low, high, repeats)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
