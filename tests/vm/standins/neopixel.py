# Stand-in for `neopixel`: keeps the buffer, the number of frames written and
# the first three pixels of the first; __setitem__ writes GRB like the real one.
LAST = None


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        global LAST
        self.pin = pin
        self.buf = bytearray(n * bpp)
        self.writes = 0
        self.firsts = []
        LAST = self

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def write(self):
        self.writes += 1
        if not self.firsts:  # the first only: one per frame would grow the heap under test
            self.firsts.append(bytes(self.buf[0:9]))
