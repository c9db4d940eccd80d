"""The firmware app on the MicroPython VM with an ESP32-sized heap: it fits,
and neither a quiet scan + render nor a roll entered on the keypad allocates."""

import os
import subprocess

from conftest import ROOT

from sim import runtime

SCRIPT = """
import gc
import sys
from crapsboard import layout as lay
from crapsboard.app import App
from simboard import SimBoard

layout = lay.load(sys.argv[1])
board = SimBoard(layout)
app = App(board, layout)
t = 0


def run(ms):
    global t
    for _ in range(ms // 10):
        t += 10
        board.now = t
        app.step(t)
        if t % 50 == 0:
            app.render(t)


def press(label):
    board.down = 1 << layout.key_index(label)
    run(100)
    board.down = 0
    run(100)


for label in "2214":  # warm up: two rolls
    press(label)
gc.collect()
gc.disable()
start = gc.mem_alloc()
run(5000)
quiet = gc.mem_alloc() - start
start = gc.mem_alloc()
for label in "14336622":  # four rolls: point 5 made, 6 (point), 4
    press(label)
rolls = gc.mem_alloc() - start
gc.enable()
print(app.table.rolls, app.seq, quiet, rolls)
"""


def test_the_app_fits_and_does_not_allocate_per_scan_or_roll(tmp_path):
    script = tmp_path / "mp_board_alloc.py"
    script.write_text(SCRIPT)
    out = subprocess.run(
        runtime.micropython_command(str(script), [os.path.join(ROOT, "hardware", "board.json")]),
        env=runtime.micropython_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    rolls, events, quiet, per_rolls = map(int, out.stdout.split())
    assert (rolls, events) == (6, 6)
    assert quiet == 0
    assert per_rolls == 0
