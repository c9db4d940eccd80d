# The link's asyncio task: standard input -> link.Link -> standard output.
#
# It polls and then reads one byte at a time. asyncio's StreamReader.readline()
# would block the whole loop while half a line is pending (measured with the
# pinned VM: a 10 ms heartbeat advanced 1 tick in 0.5 s instead of 50), so a
# slow or stalled host would stop key scanning and rendering; here a held
# half-line costs one empty poll every IDLE_MS (tests/test_link_task.py).
#
# Byte 0x03 is an ordinary byte here on a board with a key: main.py has shut
# the REPL (micropython.kbd_intr(-1)). On one without (`break_in`), it raises
# KeyboardInterrupt, as the ESP32's UART and USB drivers do, so mpremote can
# break in and the bytes it sends next reach the REPL.
#
# On the board the link costs nothing until a host speaks: crapsboard/link/link_wait.py
# polls, and at the first byte imports this module and builds the task with
# `load` instead of a link; it loads the link's modules and forgets them again
# after `idle_ms` of silence (no half-read line, no subscription), then run()
# returns (`once`) and link_wait drops this module too, so while no host is
# talking the heap holds the table alone (crapsboard/base/modules.py: the
# firmware's one mechanism for loading modules for a while).
import asyncio
import gc
import select
import sys

from micropython import const

from crapsboard.base import modules

BURST = const(64)  # bytes taken in one go before the other tasks get a turn
IDLE_MS = const(10)  # poll period while the host sends nothing
UNLOAD_MS = const(10000)  # silence after which a loaded link is forgotten
_NOT_LOADED = b'{"id": null, "ok": false, "error": "link not loaded: out of memory, try again"}\n'

try:
    from asyncio import sleep_ms
except ImportError:  # CPython

    async def sleep_ms(delay):
        await asyncio.sleep(delay / 1000)


def _stdin():
    stream = sys.stdin.buffer
    return getattr(stream, "raw", stream)  # CPython: unbuffered, so poll sees every byte


def _stdout_write():
    stream = sys.stdout.buffer
    flush = getattr(stream, "flush", None)

    def write(data):
        stream.write(data)
        if flush:
            flush()

    return write


def _ipoll_ready(poller):
    for _ in poller.ipoll(0):
        return True
    return False


def _poll_ready(poller):
    return bool(poller.poll(0))


class LinkTask:
    def __init__(self, link=None, stream=None, write=None, load=None, idle_ms=UNLOAD_MS):
        """`link`: a link.Link; or None and `load(task)`, which builds one when
        a host sends its first byte (forgotten after `idle_ms` of silence).
        `stream`: a pollable byte stream with read(1) (standard input);
        `write(bytes)`: where replies and pushed events go (standard output)."""
        self.link = link
        self.load = load
        self.idle_ms = idle_ms
        self.keep = {}  # what must outlive a forgotten link (the wall clock a host set)
        self.loads = 0
        self._before = None  # the firmware's modules in memory before the link loaded (modules.loaded)
        self._dropping = False  # the link could not load: the line is skipped to its newline
        self.stream = stream if stream is not None else _stdin()
        self.write = write if write is not None else _stdout_write()
        self.running = False
        self.once = False  # run() returns when the link is forgotten (crapsboard/link/link_wait.py)
        self.ended = False  # the input ended
        self.break_in = False  # 0x03 raises KeyboardInterrupt (the REPL open: link_wait.BREAK_IN)

    def push(self, name, fields=None):
        """Send a pushed event now. The loop is cooperative and writes are
        whole, so an event never lands inside a reply."""
        if self.link is not None:
            self.write(self.link.event(name, fields))

    def take(self, byte):
        """Feed one byte of a request (loading the link first if need be)."""
        if self.link is None:
            load = self.load
            if load is None:  # built without a link or a way to load one
                return
            gc.collect()  # the link's modules load into whole pieces, not the scan's crumbs
            self._before = None
            try:
                self._before = modules.loaded()
                self.link = load(self)
            except Exception:  # MemoryError above all: the table plays on, the host is told
                self.link = None
                if self._before is not None:
                    modules.drop_since(self._before)
                gc.collect()
                self.write(_NOT_LOADED)
                self._dropping = byte != b"\n"
                return
            self.loads += 1
        out = self.link.feed(byte)
        if out:
            self.write(out)

    def forget(self):
        """Drop a loaded link and its modules, unless it is in the middle of a
        line or holds a subscription."""
        link = self.link
        if self.load is None or link is None or link.length or link.skipping or link.hold:
            if self.once and link is None:  # never loaded (out of memory): link_wait polls again
                self.running = False
            return
        self.link = None
        self.running = not self.once
        modules.drop_since(self._before)
        gc.collect()

    def stop(self):
        self.running = False

    async def run(self):
        """Serve until stop() or the end of the input (a closed pipe)."""
        poller = select.poll()
        poller.register(self.stream, select.POLLIN)
        ready = _ipoll_ready if hasattr(poller, "ipoll") else _poll_ready  # MicroPython's poll(0) allocates a list
        read = self.stream.read
        quiet = 0
        self.running = True
        while self.running:
            taken = 0
            while taken < BURST and ready(poller):
                byte = read(1)
                if byte is None:  # a non-blocking stream with nothing after all
                    break
                if not byte:  # end of input
                    self.running = False
                    self.ended = True
                    break
                if self.break_in and byte[0] == 3:
                    raise KeyboardInterrupt
                if self._dropping:
                    self._dropping = byte != b"\n"
                else:
                    self.take(byte)
                taken += 1
            if taken:
                quiet = 0
            elif self.load is not None and (self.link is not None or self.once):
                quiet += IDLE_MS
                if quiet >= self.idle_ms:
                    self.forget()
                    quiet = 0
            await sleep_ms(0 if taken == BURST else IDLE_MS)


def on_demand(module, function, args):
    """A LinkTask whose link MODULE.FUNCTION(*args, task) builds when a host
    first speaks (link_wait: crapsboard.link.link_app.board_link). Nothing of
    the link is imported before."""

    def load(task):
        return getattr(modules.load(module), function)(*(args + (task,)))

    return LinkTask(load=load)
