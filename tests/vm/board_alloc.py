# The firmware app in an ESP32-sized heap: a quiet scan + render and rolls
# entered on the keypad allocate nothing. argv: BOARD_JSON.
# Prints: rolls, events, bytes over 5 quiet seconds, bytes over four rolls.
import gc
import sys

from crapsboard import layout as lay
from crapsboard.app import App
from sim.portable.simboard import SimBoard

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
