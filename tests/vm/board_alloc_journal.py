# The firmware app with its journal on littlefs (vfs.VfsLfs2 on the NOR-flash
# model, a 64-block partition to keep the heap small): what a quiet scan +
# render and a roll allocate. argv: BOARD_JSON.
# Prints: rolls, journal seq, bytes over 5 quiet seconds, bytes per roll (over four).
import gc
import sys

import vfs

from crapsboard import journal as jn
from crapsboard import journal_boot
from crapsboard import layout as lay
from crapsboard.app import App
from sim.portable.norflash import NorFlash
from sim.portable.simboard import SimBoard

dev = NorFlash(block_count=64)
vfs.VfsLfs2.mkfs(dev)
vfs.mount(vfs.VfsLfs2(dev), "/flash")
layout = lay.load(sys.argv[1])
board = SimBoard(layout)
app = App(board, layout)
journal_boot.open_journal(app, jn.Journal("/flash", b"alloc"), 1, 0)
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
run(1000)
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
print(app.table.rolls, app.journal.seq, quiet, rolls // 4)
