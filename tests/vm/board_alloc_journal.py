# The firmware app with its journal on littlefs (vfs.VfsLfs2 on the NOR-flash
# model, a 64-block partition to keep the heap small): what a quiet scan +
# render and a roll allocate. argv: BOARD_JSON.
# Prints: rolls, journal seq, bytes over 5 quiet seconds, bytes per roll (over four).
import sys

import vfs
from alloc_probe import Probe  # beside this script

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_boot
from crapsboard.table import layout as lay
from crapsboard.table.app import App
from sim.portable.norflash import NorFlash
from sim.portable.simboard import SimBoard

dev = NorFlash(block_count=64)
vfs.VfsLfs2.mkfs(dev)
vfs.mount(vfs.VfsLfs2(dev), "/flash")
layout = lay.load(sys.argv[1])
board = SimBoard(layout)
app = App(board, layout)
journal_boot.open_journal(app, jn.Journal("/flash", b"alloc"), 1, 0)
quiet, rolls = Probe(app, board, layout).measure("2214", settle_ms=1000)  # warm up: two rolls
print(app.table.rolls, app.journal.seq, quiet, rolls // 4)
