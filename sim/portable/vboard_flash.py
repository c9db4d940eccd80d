# The virtual board's flash: the NOR-flash image FILE itself as the block device.
#
# Same geometry and semantics as norflash.NorFlash (512 blocks of 4 KiB, a
# program only clears bits, an erase sets a whole block to 0xFF, the extended
# block protocol VfsLfs2 drives on the ESP32), but every program and erase goes
# straight to the file: nothing is held in the VM's heap (the board's heap stays
# the board's), and killing the VM at any moment is a power cut that leaves the
# flash exactly as far as it got. The image mounts offline too (flashfs.py).
#
# Ctrl-C on the virtual board is a SIGINT, whose KeyboardInterrupt may land in
# these methods while littlefs is in the middle of an operation: an exception
# must never unwind through littlefs. Every operation here is idempotent (a
# read, an AND, an erase), so an interrupted one is simply done again and the
# interrupt is handed back to the caller (`on_interrupt`), which asks for it to
# be delivered again once littlefs has finished.
from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE

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
    def __init__(self, f, on_interrupt=None):
        self.f = f
        self.block_size = BLOCK_SIZE
        self.block_count = BLOCK_COUNT
        self._old = memoryview(bytearray(BLOCK_SIZE))
        self._erased = b"\xff" * BLOCK_SIZE
        self.on_interrupt = on_interrupt

    def _interrupted(self):
        if self.on_interrupt is not None:
            self.on_interrupt()

    def readblocks(self, block, buf, offset=0):
        while True:
            try:
                self.f.seek(block * BLOCK_SIZE + offset)
                self.f.readinto(buf)
                return
            except KeyboardInterrupt:
                self._interrupted()

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # the simple protocol: whole blocks, erased first
            for i in range(len(buf) // BLOCK_SIZE):
                self._erase(block + i)
            offset = 0
        while True:
            try:
                self._program(block * BLOCK_SIZE + offset, buf)
                return
            except KeyboardInterrupt:
                self._interrupted()

    def _program(self, position, buf):
        # NOR: the new bits are ANDed into what is there (done twice, the same).
        f = self.f
        n = len(buf)
        done = 0
        while done < n:
            size = min(BLOCK_SIZE, n - done)
            old = self._old[:size]
            f.seek(position + done)
            f.readinto(old)
            for i in range(size):
                old[i] &= buf[done + i]
            f.seek(position + done)
            f.write(old)
            done += size

    def _erase(self, block):
        while True:
            try:
                self.f.seek(block * BLOCK_SIZE)
                self.f.write(self._erased)
                return
            except KeyboardInterrupt:
                self._interrupted()

    def ioctl(self, op, arg):
        if op == _IOCTL_BLOCK_COUNT:
            return BLOCK_COUNT
        if op == _IOCTL_BLOCK_SIZE:
            return BLOCK_SIZE
        if op == _IOCTL_BLOCK_ERASE:
            self._erase(arg)
        return 0  # init, deinit, sync: nothing to do
