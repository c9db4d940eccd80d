# The link's handlers on a running app, under either runtime: the firmware App
# on a SimBoard with its journal in a directory (argv[1], also where config.json,
# link_ctr, maintenance and firmware.json live; argv[2] "nojournal": a board
# keeping no journal, "small": a journal of two 600-byte segments kept, so
# that a few rolls drop the oldest), the Link that
# crapsboard.link.link_app builds, and a LinkTask whose output is standard output.
#
# Reads commands on standard input, one a line, and prints what the board sends:
#   > JSON        a request line fed to the link; its reply (and any pushed events)
#   keys SCRIPT   keys pressed on a simulated clock (sim/portable/keyscript.py)
#   raw BITS      inputs held down from now on (an int: keypad.py's bitmap)
#   feeds BITS    lamp feeds whose eFuse FAULT flag reads low from now on (bit f: feed f)
#   wait MS       the clock runs on (scan and render as the board does)
#   idle MS       the clock jumps MS on with no scan between: a table left alone
#                 that long (a day of it would take hours of scans)
#   state         one line: the table's snapshot, the journal's seq, config.json
#   stop-journal  the journal stops as after a write error (fault full): it records nothing more
#   mkdir PATH    a directory made at PATH (in argv[1]): a file the board would write there cannot be
#   settle        lets the asyncio tasks a handler started run (the maintenance reset)
import asyncio
import os
import sys

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_boot, snapshot
from crapsboard.link import link_app
from crapsboard.link.link import CounterFile
from crapsboard.link.link_task import LinkTask, sleep_ms
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_BIT, KEYSWITCH_NC_BIT, RENDER_MS, App
from sim.portable.keyscript import KEY_ON, KEYSWITCH, WAIT, steps
from sim.portable.simboard import SimBoard

BOARD_ID = b"simboard"
KEY = b"k" * 32  # the tests' board key
FILES = sys.argv[1]


def out(data):
    sys.stdout.write(data.decode() if isinstance(data, (bytes, bytearray)) else data)


class Flag:
    """An eFuse FAULT flag with its pull-up: high until the eFuse latches off."""

    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


class Session:
    def __init__(self):
        self.layout = lay.load("hardware/board.json")
        self.board = SimBoard(self.layout, 0)
        self.board.feed_faults = [Flag() for _ in self.layout.feed_fault_pins]
        self.app = App(self.board, self.layout, None)
        self.nc = KEYSWITCH_NC_BIT if self.layout.button_pins[-1] is not None else 0
        self.held = self.nc  # the keyswitch off: a changeover switch closes its NC contact
        self.resets = 0
        if sys.argv[2:] != ["nojournal"]:
            small = sys.argv[2:] == ["small"]
            journal = jn.Journal(FILES, BOARD_ID, 4 if small else 32, 600 if small else 32768, 2 if small else 24, KEY)
            journal_boot.open_journal(self.app, journal, 1, 0)
        diag = {"boots": 4, "cause": 1, "error": "MemoryError: test", "failed": 0}
        self.link, self.handlers = link_app.build(
            self.app, diag, "73696d626f617264", self.reset, KEY, CounterFile(FILES + "/link_ctr"), FILES
        )
        self.task = LinkTask(self.link, stream=sys.stdin, write=out)
        self.handlers.task = self.task
        self._next_render = 0

    def reset(self):
        self.resets += 1
        out("reset %d\n" % self.resets)

    def advance(self, ms):
        board = self.board
        scan = self.layout.scan_ms
        end = board.now + ms
        while board.now + scan <= end:
            board.now += scan
            board.down = self.held
            self.app.step(board.now)
            if board.now >= self._next_render:
                self.app.render(board.now)
                self._next_render = board.now + RENDER_MS
        board.now = end

    def keys(self, script):
        for kind, bits, ms in steps(script, self.layout):
            if kind == WAIT:
                self.advance(ms)
            elif kind == KEYSWITCH:
                self.held &= ~(KEYSWITCH_BIT | KEYSWITCH_NC_BIT)
                self.held |= KEYSWITCH_BIT if bits == KEY_ON else self.nc
                self.advance(120)
            else:
                self.held |= bits
                self.advance(ms)
                self.held &= ~bits
                self.advance(120)

    def state(self):
        try:
            with open(FILES + "/config.json") as f:
                config = f.read()
        except OSError:
            config = "none"
        table = "".join(["%02x" % b for b in snapshot.dumps(self.app.table, 0)])
        out("state %s seq %d config %s\n" % (table, self.app.journal.seq, config))


async def main():
    session = Session()
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        line = line.rstrip("\n")
        word, _, rest = line.partition(" ")
        if word == ">":
            out(session.link.feed((rest + "\n").encode()))
        elif word == "keys":
            session.keys(rest)
        elif word == "raw":
            session.held = int(rest) | session.nc
        elif word == "feeds":
            for f, flag in enumerate(session.board.feed_faults):
                flag.level = 0 if int(rest) >> f & 1 else 1
        elif word == "wait":
            session.advance(int(rest))
        elif word == "idle":
            session.board.now += int(rest)
        elif word == "state":
            session.state()
        elif word == "mkdir":
            os.mkdir(FILES + "/" + rest)
        elif word == "stop-journal":
            journal = session.app.journal
            journal.fault, journal._ready = jn.FULL, False  # what Journal._fail leaves
        elif word == "settle":
            await sleep_ms(300)  # link_admin.RESET_DELAY_MS + 100
        out("--\n")


asyncio.run(main())
