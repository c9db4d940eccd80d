"""The smallest heap in which main.py boots and plays, with and without the
serial link answering (docs/link.md, Memory). Not a test: a measurement.

    .venv/bin/python tests/heap_bisect_link.py

Boots tests/vm/boot_main.py in a fresh flash folder (as tests/test_board_main.py
deploys it) at each heap size: the app must run 3 s (30 watchdog feeds) with no
start-up message, and with requests on standard input every one must be answered.
"""

import os
import pathlib
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT] + [os.path.join(ROOT, p) for p in ("firmware/lib", "sim/shims", "hardware")]

from test_board_main import flash, run_boot  # noqa: E402
from test_board_main_link import link_paths  # noqa: E402

CASES = (
    ("no host talking", ""),
    ("hello", '{"id": 1, "cmd": "hello"}\n'),
    ("hello and status", '{"id": 1, "cmd": "hello"}\n{"id": 2, "cmd": "status"}\n'),
)


def boots(kb, stdin):
    folder = pathlib.Path(tempfile.mkdtemp())
    try:
        flash(folder)
        out = run_boot(folder, "%dK" % kb, feeds=30, stdin=stdin, timeout=120, extra_paths=link_paths(folder))
    finally:
        shutil.rmtree(folder)
    good = out.returncode == 0 and "wdt 1 30" in out.stdout and "crapsboard:" not in out.stdout
    return good and out.stdout.count('"ok": true') == stdin.count("\n")


def smallest(stdin, low=64, high=256):
    while low < high:
        middle = (low + high) // 2
        if boots(middle, stdin):
            high = middle
        else:
            low = middle + 1
    return low


if __name__ == "__main__":
    for name, stdin in CASES:
        print("%-18s %d KB" % (name, smallest(stdin)), flush=True)
