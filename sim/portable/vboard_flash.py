# The virtual board's flash: the NOR-flash image FILE itself as the block device.
#
# Same geometry and semantics as norflash.NorFlash (512 blocks of 4 KiB, a
# program only clears bits, an erase sets a whole block to 0xFF, the extended
# block protocol VfsLfs2 drives on the ESP32), but every program and erase goes
# straight to the file: nothing is held in the VM's heap (the board's heap stays
# the board's), and killing the VM at any moment is a power cut that leaves the
# flash exactly as far as it got. The image mounts offline too (flashfs.py).
#
# A Ctrl-C the board does not read becomes a SIGINT (sim/device.py), whose
# KeyboardInterrupt may land in these methods while littlefs is in the middle of an operation: an exception
# must never unwind through littlefs. Every operation here is idempotent (a
# read, an AND, an erase), so an interrupted one is simply done again and the
# interrupt is handed back to the caller (`on_interrupt`), which asks for it to
# be delivered again a little later. littlefs also calls these with the heap
# locked (closing a file from the garbage collector's finaliser), where an
# allocation is a MemoryError that the collector swallows, the interrupt and
# the write with it: nothing here allocates once the device is made (the
# program buffers are made in advance for littlefs's program sizes, and
# `on_interrupt` must not allocate either).
from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE

PROG_SIZE = 32
CACHE_SIZE = 128

_IOCTL_BLOCK_COUNT = 4
_IOCTL_BLOCK_SIZE = 5
_IOCTL_BLOCK_ERASE = 6


def open_image(path):
    """The image file opened for update, and whether it was made erased just now."""
    try:
        return open(path, "r+b"), False
    except OSError:
        pass
    f = open(path, "w+b")
    erased = b"\xff" * BLOCK_SIZE
    for _ in range(BLOCK_COUNT):
        f.write(erased)
    return f, True


class FileFlash:
    # Why the methods look as they do: the VM raises a pending KeyboardInterrupt
    # only at a jump (an if, a loop, the end of a try) or a function's start,
    # so each public method is a try around a helper, with nothing before it;
    # the only jump outside a try is the end of the handler, which a second
    # interrupt would have to hit within microseconds (the CPython side sends
    # them tens of milliseconds apart).
    def __init__(self, f, on_interrupt=None):
        self.f = f
        self.block_size = BLOCK_SIZE
        self.block_count = BLOCK_COUNT
        # VfsLfs2's defaults: programs of 32-byte units through a 128-byte cache.
        self._old = {}
        self._ones = {}
        for n in list(range(PROG_SIZE, CACHE_SIZE + 1, PROG_SIZE)) + [BLOCK_SIZE]:
            self._old[n] = bytearray(n)
            self._ones[n] = b"\xff" * n
        self._erased = self._ones[BLOCK_SIZE]
        self.on_interrupt = on_interrupt or _nothing

    def readblocks(self, block, buf, offset=0):
        try:
            self._read(block * BLOCK_SIZE + offset, buf)
            return
        except KeyboardInterrupt:
            pass
        self.on_interrupt()
        return self.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=None):
        try:
            self._write(block, buf, offset)
            return
        except KeyboardInterrupt:
            pass
        self.on_interrupt()
        return self.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        try:
            return self._ioctl(op, arg)
        except KeyboardInterrupt:
            pass
        self.on_interrupt()
        return self.ioctl(op, arg)

    # ---- the work (every step may be done again) ----------------------------------

    def _read(self, position, buf):
        self.f.seek(position)
        self.f.readinto(buf)

    def _write(self, block, buf, offset):
        if offset is None:  # the simple protocol: whole blocks, erased first
            for i in range(len(buf) // BLOCK_SIZE):
                self._erase(block + i)
            offset = 0
        self._program(block * BLOCK_SIZE + offset, buf)

    def _program(self, position, buf):
        # NOR: the new bits are ANDed into what is there (done twice, the same).
        f = self.f
        n = len(buf)
        old = self._old.get(n)
        if old is None:  # not a size littlefs programs with these settings
            old = bytearray(n)
        f.seek(position)
        f.readinto(old)
        if old == self._ones.get(n):  # erased, as littlefs nearly always finds it: the AND is the data
            f.seek(position)
            f.write(buf)
            return
        for i in range(n):
            old[i] &= buf[i]
        f.seek(position)
        f.write(old)

    def _erase(self, block):
        self.f.seek(block * BLOCK_SIZE)
        self.f.write(self._erased)

    def _ioctl(self, op, arg):
        if op == _IOCTL_BLOCK_COUNT:
            return BLOCK_COUNT
        if op == _IOCTL_BLOCK_SIZE:
            return BLOCK_SIZE
        if op == _IOCTL_BLOCK_ERASE:
            self._erase(arg)
        return 0  # init, deinit, sync: nothing to do


def _nothing():
    pass
