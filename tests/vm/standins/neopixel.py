# Stand-in for `neopixel`: keeps the buffer, the number of frames written, the
# first three pixels of the first and the last frame written (`sent`: what the
# strip shows, which the buffer is not until write()); __setitem__ writes GRB
# like the real one. `sent_ms`: when the last frame was written.
import time

LAST = None


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        global LAST
        self.pin = pin
        self.buf = bytearray(n * bpp)
        self.sent = bytearray(n * bpp)  # copied into at each write: no allocation per frame
        self.sent_ms = None
        self.writes = 0
        self.firsts = []
        LAST = self

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def write(self):
        self.writes += 1
        self.sent[:] = self.buf
        self.sent_ms = time.ticks_ms()
        if not self.firsts:  # the first only: one per frame would grow the heap under test
            self.firsts.append(bytes(self.buf[0:9]))
