# The link's asyncio task: standard input -> link.Link -> standard output.
#
# It polls and then reads one byte at a time. asyncio's StreamReader.readline()
# would block the whole loop while half a line is pending (measured with the
# pinned VM: a 10 ms heartbeat advanced 1 tick in 0.5 s instead of 50), so a
# slow or stalled host would stop key scanning and rendering; here a held
# half-line costs one empty poll every IDLE_MS (tests/test_link_task.py).
#
# Byte 0x03 raises KeyboardInterrupt, as the ESP32's UART and USB drivers do,
# so mpremote can break into a board (or the virtual board) that runs the app.
import asyncio
import select
import sys

from micropython import const

BURST = const(64)  # bytes taken in one go before the other tasks get a turn
IDLE_MS = const(10)  # poll period while the host sends nothing
_CTRL_C = const(3)

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


class LinkTask:
    def __init__(self, link, stream=None, write=None):
        """`stream`: a pollable byte stream with read(1) (standard input);
        `write(bytes)`: where replies and pushed events go (standard output)."""
        self.link = link
        self.stream = stream if stream is not None else _stdin()
        self.write = write if write is not None else _stdout_write()
        self.running = False

    def push(self, name, fields=None):
        """Send a pushed event now. The loop is cooperative and writes are
        whole, so an event never lands inside a reply."""
        self.write(self.link.event(name, fields))

    def stop(self):
        self.running = False

    async def run(self):
        """Serve until stop() or the end of the input (a closed pipe)."""
        poller = select.poll()
        poller.register(self.stream, select.POLLIN)
        read = self.stream.read
        link = self.link
        self.running = True
        while self.running:
            taken = 0
            while taken < BURST and poller.poll(0):
                byte = read(1)
                if byte is None:  # a non-blocking stream with nothing after all
                    break
                if not byte:  # end of input
                    self.running = False
                    break
                if byte[0] == _CTRL_C:
                    raise KeyboardInterrupt
                out = link.feed(byte)
                if out:
                    self.write(out)
                taken += 1
            await sleep_ms(0 if taken == BURST else IDLE_MS)
