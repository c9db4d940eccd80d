# The firmware app in an ESP32-sized heap: a quiet scan + render and rolls
# entered on the keypad allocate nothing, the lamp feeds' fault flags read at
# every scan. argv: BOARD_JSON.
# Prints: rolls, events, bytes over 5 quiet seconds, bytes over four rolls.
import sys

from alloc_probe import Flag, Probe  # beside this script

from crapsboard.table import layout as lay
from crapsboard.table.app import App
from sim.portable.simboard import SimBoard

layout = lay.load(sys.argv[1])
board = SimBoard(layout)
board.feed_faults = [Flag() for _ in layout.feed_fault_pins]  # read every scan, as on the board
app = App(board, layout)
quiet, rolls = Probe(app, board, layout).measure("2214")  # warm up: two rolls
print(app.table.rolls, app.seq, quiet, rolls)
