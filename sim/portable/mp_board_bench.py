# MicroPython side of `python -m sim bench`'s board figures (MicroPython subset).
# argv: LAYOUT_JSON JOURNAL_ROOT [boot]. The firmware comes from the deploy files bench.py
# wrote (lib/crapsboard/*.mpy, layout.json) on MICROPYPATH; the board is the
# simulator's SimBoard, its clock stepped here, so time is the app's own CPU.
# The app is built as firmware/main.py builds it: its journal in JOURNAL_ROOT
# (a folder on the host) mounted and the table restored first (or a journal
# started), then the app built around it.
#
# Prints one JSON object: the heap the app holds after boot (gc.mem_alloc
# after a collection, less what was in use before the firmware was imported),
# µs per idle scan (app.step), per idle render (app.render with no change, so
# no strip write), per key-to-frame (the scan that applies a roll, its journal
# record included, plus the render that writes it), and frames written per
# idle second, steady and with a lamp blinking. With `boot` it only boots,
# plays three rolls and prints {"played": N}: bench.py looks for the smallest
# heap that does so.
import gc
import json
import sys
import time

from sim.portable.simboard import SimBoard

SCAN_MS = 10  # layout scan_ms of the shipped board; the loop below uses the layout's
RENDER_MS = 50
# crapsboard.app.KEYSWITCH_NC_BIT, written out: the firmware is imported only
# once the heap's baseline is taken. The keyswitch off closes its NC contact.
KEY_OFF = 0x100000


class Clock:
    def __init__(self, app, board):
        self.app = app
        self.board = board
        self.t = 0

    def run(self, ms):
        """Scan every scan_ms and render every RENDER_MS for `ms`, like App.run."""
        app = self.app
        board = self.board
        scan = app.layout.scan_ms
        end = self.t + ms
        while self.t < end:
            self.t += scan
            board.now = self.t
            app.step(self.t)
            if self.t % RENDER_MS == 0:
                app.render(self.t)

    def press(self, label):
        """Hold key `label` until entry takes it, then release it; returns the
        µs of the scan that applied it plus the render that followed."""
        app = self.app
        board = self.board
        bit = 1 << app.layout.key_index(label)
        board.down = bit | KEY_OFF
        seq = app.seq
        first = app.entry.first
        spent = -1
        for _ in range(20):
            self.t += app.layout.scan_ms
            board.now = self.t
            t0 = time.ticks_us()
            app.step(self.t)
            if app.seq != seq or app.entry.first != first:
                app.render(self.t)
                spent = time.ticks_diff(time.ticks_us(), t0)
                break
        board.down = KEY_OFF
        self.run(60)
        return spent


def roll(clock, d1, d2):
    clock.press(str(d1))
    return clock.press(str(d2))


BOARD_ID = b"\x24\x0a\xc4\x00\x00\x01"


def build(layout, board, root):
    """The App with its journal, built in firmware/main.py's order."""
    from crapsboard.boot import power_up

    config, journal, table, restored = power_up.restore_in(root, BOARD_ID, 1, board)
    from crapsboard.table.app import App

    app = App(board, layout, config, journal, table)
    app.restored = restored
    gc.collect()
    return app


def main(argv):
    gc.collect()
    base = gc.mem_alloc()
    from crapsboard.table import layout as lay

    layout = lay.load(argv[0])
    board = SimBoard(layout)
    board.down = KEY_OFF
    app = build(layout, board, argv[1])
    gc.collect()
    out = {"boot_heap_bytes": gc.mem_alloc() - base}
    clock = Clock(app, board)
    clock.run(1000)
    if len(argv) > 2 and argv[2] == "boot":
        for d1, d2 in ((3, 3), (2, 2), (1, 5)):
            roll(clock, d1, d2)
        print(json.dumps({"played": app.seq, "boot_heap_bytes": out["boot_heap_bytes"]}))
        return
    n = 2000
    t0 = time.ticks_us()
    t = clock.t
    for i in range(n):
        app.step(t + i * SCAN_MS)
    out["idle_scan_us"] = time.ticks_diff(time.ticks_us(), t0) / n
    clock.t = t + n * SCAN_MS
    frames = board.frames
    t = clock.t - clock.t % RENDER_MS
    t0 = time.ticks_us()
    for i in range(n):
        app.render(t + (i + 1) * RENDER_MS)
    out["idle_render_us"] = time.ticks_diff(time.ticks_us(), t0) / n
    out["idle_render_writes"] = board.frames - frames
    clock.t = t + n * RENDER_MS
    times = []
    for d in range(1, 7):  # point rolls and sevens alike: 2 .. 12
        times.append(roll(clock, d, 7 - d if d < 6 else 6))
    out["key_to_frame_us"] = sum(times) / len(times)
    clock.run(6000)  # celebrations over
    frames = board.frames
    clock.run(10000)
    out["frames_per_idle_s"] = (board.frames - frames) / 10
    # Four Fire points made (4, 5, 6, 8): the floor lamp blinks slowly from then on.
    for d1, d2 in ((2, 2), (2, 2), (2, 3), (2, 3), (3, 3), (3, 3), (4, 4), (4, 4)):
        roll(clock, d1, d2)
    clock.run(6000)
    frames = board.frames
    clock.run(10000)
    out["frames_per_blinking_s"] = (board.frames - frames) / 10
    out["rolls"] = app.table.rolls
    print(json.dumps(out))


main(sys.argv[1:])
