"""The firmware app on the MicroPython VM with an ESP32-sized heap: it fits,
and neither a quiet scan + render nor a roll entered on the keypad allocates."""

import os

from conftest import ROOT

from sim import runtime


def test_the_app_fits_and_does_not_allocate_per_scan_or_roll():
    board_json = os.path.join(ROOT, "hardware", "board.json")
    out = runtime.run("tests/vm/board_alloc.py", [board_json], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    rolls, events, quiet, per_rolls = map(int, out.stdout.split())
    assert (rolls, events) == (6, 6)
    assert quiet == 0
    assert per_rolls == 0
