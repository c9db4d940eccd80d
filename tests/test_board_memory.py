"""The firmware app on the MicroPython VM (the board's budget heap), loaded
from .mpy as a deploy installs it: it fits, and neither a quiet scan + render
nor a roll entered on the keypad allocates."""

import os

from conftest import ROOT

from sim import runtime

# The app from board.json with every module kept (docs/board.md, Memory): it
# no longer fits the VM's default 128K.
APP_HEAP = "256K"


def test_the_app_fits_and_does_not_allocate_per_scan_or_roll(mpy_lib):
    board_json = os.path.join(ROOT, "hardware", "board.json")
    out = runtime.run(
        "tests/vm/board_alloc.py",
        [board_json],
        heapsize=APP_HEAP,
        extra_paths=[mpy_lib],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    rolls, events, quiet, per_rolls = map(int, out.stdout.split())
    assert (rolls, events) == (6, 6)
    assert quiet == 0
    assert per_rolls == 0


def test_with_its_journal_the_app_allocates_only_while_appending(mpy_lib):
    # The test above measures the app without a journal (as the hot path runs
    # when none is attached). With one, each table event costs littlefs's file
    # buffer for the one open-write-close, the record and its sha256: garbage
    # at once, but a free piece of heap per event; docs/journal.md states the
    # figure and the 8 KB ceiling held here. A quiet scan + render still allocates nothing.
    board_json = os.path.join(ROOT, "hardware", "board.json")
    out = runtime.run(
        "tests/vm/board_alloc_journal.py",
        [board_json],
        heapsize="1M",  # the 256 KiB flash model lives in the heap too
        extra_paths=[mpy_lib],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    rolls, seq, quiet, per_roll = map(int, out.stdout.split())
    assert (rolls, seq) == (6, 7)  # the journal start and six rolls
    assert quiet == 0
    assert 0 < per_roll < 8192
