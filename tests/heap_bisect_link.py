"""The smallest heap in which main.py boots and plays, with and without the
serial link answering (docs/link.md, Memory). Not a test: a measurement.

    .venv/bin/python tests/heap_bisect_link.py

Boots tests/vm/boot_main.py in a fresh flash folder (as tests/test_board_main.py
deploys it) at each heap size: the app must run 3 s (30 watchdog feeds) with no
start-up message, and with requests on standard input every one must be answered.
"""

import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT] + [os.path.join(ROOT, p) for p in ("firmware/lib", "sim/shims", "hardware")]

from test_board_main import STANDINS, flash  # noqa: E402

from sim import runtime  # noqa: E402

CASES = (
    ("no host talking", ""),
    ("hello", '{"id": 1, "cmd": "hello"}\n'),
    ("hello and status", '{"id": 1, "cmd": "hello"}\n{"id": 2, "cmd": "status"}\n'),
)


def boots(kb, stdin):
    import pathlib

    folder = pathlib.Path(tempfile.mkdtemp())
    try:
        flash(folder)
        (folder / "fake_setup.py").write_text("HELD = ()\nRESET_CAUSE = 1\nKEYS = ()\nFEEDS = 30\n")
        out = runtime.run(
            "tests/vm/boot_main.py",
            heapsize="%dK" % kb,
            extra_paths=[str(folder), str(folder / "lib"), STANDINS],
            cwd=folder,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
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
