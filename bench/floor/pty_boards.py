"""Many tables in one process for the floor's big benches: each the firmware's
App (on the simulator's SimBoard, its journal on the host's disk) and the
firmware's link (crapsboard.link_app, the same handlers the board builds),
served on a pseudo-terminal, under CPython. Not the virtual board (`sim
device` runs the firmware in the MicroPython VM on a littlefs image, ~6 % of
a core a table): this is the link and journal the gateway talks to, cheap
enough to put 50 tables on a 2-core machine. The bench says which it used.

    python -m bench.floor.pty_boards --dir FLOOR_DIR T1 T2 …

For each table: DIR/boards/T.port (a symbolic link to its pty), the journal
and link counter in DIR/boards/T.cpython/, the key DIR/keys/T.key, and a live
key feed DIR/boards/T.keys (lines of a key script, pressed as they are
appended, as `sim device --key-feed`). Serves until SIGTERM or SIGINT.
"""

import asyncio
import os
import pty
import signal
import sys
import time
import tty

import host_tools  # noqa: F401  (firmware/lib on the path: run as its own process by the benches)
from crapsboard.journal import journal as jn
from crapsboard.journal import journal_boot
from crapsboard.link import link_app
from crapsboard.link.link import CounterFile
from crapsboard.link.link_task import LinkTask
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, RENDER_MS, App
from host_tools import keys
from sim.paths import BOARD_JSON
from sim.portable.keyscript import KEYSWITCH, WAIT, steps
from sim.portable.simboard import SimBoard

BOARD_ID = "240ac40000%02x"
# The lamps are rendered for `status` only (no strip to look at): four times a
# second instead of the board's 20, so fifty tables fit in one process.
RENDER_EVERY_MS = 250


class PtyBoard:
    def __init__(self, directory, table_id, index):
        self.layout = lay.load(BOARD_JSON)
        self.board = SimBoard(self.layout, 0)
        self.app = App(self.board, self.layout, None)
        self.nc = KEYSWITCH_NC_BIT if self.layout.button_pins[-1] is not None else 0
        self.held = self.nc
        self.start = time.monotonic()
        files = os.path.join(directory, "boards", table_id + ".cpython")
        os.makedirs(files, exist_ok=True)
        board_id = BOARD_ID % index
        key = keys.read_key(os.path.join(directory, "keys", table_id + ".key"))
        # keyed as the board keys it (boot/power_up.py): the recorder stores only records MACed by the board
        journal = jn.Journal(files, bytes.fromhex(board_id), key=key)
        journal_boot.open_journal(self.app, journal, 1, 0)
        diag = {"boots": 1, "cause": 1, "error": None, "failed": 0}
        self.link, self.handlers = link_app.build(
            self.app, diag, board_id, lambda: None, key, CounterFile(files + "/link_ctr"), files
        )
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        tty.setraw(self.master)
        os.set_blocking(self.master, False)
        self.port = os.path.join(directory, "boards", table_id + ".port")
        if os.path.islink(self.port):
            os.remove(self.port)
        os.symlink(os.ttyname(self.slave), self.port)
        self.task = LinkTask(self.link, stream=_Stream(self.master), write=self._write)
        self.handlers.task = self.task
        self.feed_path = os.path.join(directory, "boards", table_id + ".keys")
        self.feed_at = 0
        self.presses = []  # (held bits or None for a wait, ms)

    def _write(self, data):
        try:
            os.write(self.master, bytes(data))
        except (BlockingIOError, OSError):
            pass  # nobody reading: a UART drops it too

    def now(self):
        return int((time.monotonic() - self.start) * 1000)

    def read_feed(self):
        try:
            with open(self.feed_path, "rb") as f:
                f.seek(self.feed_at)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n") + 1
        self.feed_at += end
        for line in data[:end].decode("ascii", "replace").splitlines():
            try:
                for kind, bits, ms in steps(line, self.layout):
                    if kind == WAIT:
                        self.presses.append((None, ms))
                    elif kind != KEYSWITCH:
                        self.presses += [(bits, ms), (0, 120)]
            except ValueError as e:
                print("keys: %s line: %s" % (self.feed_path, e), file=sys.stderr, flush=True)

    async def keys(self):
        while True:
            self.read_feed()
            while self.presses:
                bits, ms = self.presses.pop(0)
                self.held = (bits or 0) | self.nc
                await asyncio.sleep(ms / 1000)
                self.held = self.nc
            await asyncio.sleep(0.05)

    async def scan(self):
        scan_s = self.layout.scan_ms / 1000
        next_render = 0
        while True:
            now = self.now()
            self.board.now = now
            self.board.down = self.held
            self.app.step(now)
            if now >= next_render:
                self.app.render(now)
                next_render = now + max(RENDER_MS, RENDER_EVERY_MS)
            await asyncio.sleep(scan_s)


class _Stream:
    """The pty's master end as LinkTask's stream: poll()able, read(1)."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd

    def read(self, n):
        try:
            return os.read(self.fd, n)
        except BlockingIOError:
            return None
        except OSError:  # the host closed its end: nothing to read until it opens it again
            return None


async def serve(directory, tables):
    boards = [PtyBoard(directory, t, i + 1) for i, t in enumerate(tables)]
    print("serving %d tables" % len(boards), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = []
    for b in boards:
        tasks += [asyncio.ensure_future(b.task.run()), asyncio.ensure_future(b.scan()), asyncio.ensure_future(b.keys())]
    await stop.wait()
    for t in tasks:
        t.cancel()
    for b in boards:
        if os.path.islink(b.port):
            os.remove(b.port)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 3 or argv[0] != "--dir":
        print("usage: python -m bench.floor.pty_boards --dir FLOOR_DIR TABLE …", file=sys.stderr)
        return 2
    asyncio.run(serve(argv[1], argv[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
