# A NOR-flash block device for `vfs.VfsLfs2`, under MicroPython and CPython.
#
# Behaves like the ESP32's SPI flash "vfs" partition as MicroPython drives it
# (ports/esp32 esp32_partition.c): 512 blocks of 4 KiB, the extended block
# protocol (readblocks/writeblocks with a byte offset, ioctl 6 erases one
# block), mounted with VfsLfs2's defaults as _boot.py/inisetup.py do. Unlike a
# RAM disk it starts erased (0xFF), a program can only clear bits (AND) and
# only an erase sets them again, so littlefs meets the flash it relies on.
#
# Power cuts: `cut_at = K` makes the K-th program or erase (counting from 1
# since the device was made) the last one: `cut_mode` "before" leaves it
# undone, "half" applies a prefix of it (half the bytes of a program, the first
# half of an erased block), then `PowerCut` is raised and every later access
# raises too, as a board without power would never answer. Under the VM,
# littlefs calls the device with the heap locked, so an exception cannot be
# made there: set `raise_cut = False` and the device goes quiet instead,
# dropping every later program and erase, so the flash stays as the cut
# left it while the program runs on (check `dead`). `on_write`, when
# set, is called as on_write(index, op, block, offset, data) before each
# program ("p") or erase ("e"), so a harness can log what happened when.
BLOCK_SIZE = 4096
BLOCK_COUNT = 512  # the 4 MB ESP32 board's 2 MiB "vfs" partition
# A virtual board's image file ends, after the partition, with the chip's own
# id, as an ESP32's eFuse holds its MAC outside the flash: EFUSE_TAG, 12 hex
# digits, a newline. Nothing on the board reads or writes it as flash.
EFUSE_TAG = b"\nefuse mac "
EFUSE_BYTES = len(EFUSE_TAG) + 13

_IOCTL_BLOCK_COUNT = 4
_IOCTL_BLOCK_SIZE = 5
_IOCTL_BLOCK_ERASE = 6


class PowerCut(Exception):
    pass


_ERASED = b"\xff" * BLOCK_SIZE


def apply_write(image, op, block, offset, data, half=False, block_size=BLOCK_SIZE):
    """Do one logged write to `image` as the flash does: a program ("p")
    clears bits (AND), an erase ("e") sets a whole block; `half`: the write
    the power cut, only a prefix of it (half the bytes, the first half of the
    block). The device below and the proofs' replays of a write log share it."""
    if op == "e":
        start = block * block_size
        n = block_size // 2 if half else block_size
        image[start : start + n] = _ERASED if n == len(_ERASED) else b"\xff" * n  # no 4 KiB garbage per erase
        return n
    start = block * block_size + offset
    n = len(data) // 2 if half else len(data)
    for i in range(n):
        image[start + i] &= data[i]
    return n


class NorFlash:
    def __init__(self, image=None, block_count=BLOCK_COUNT, block_size=BLOCK_SIZE, copy=True):
        self.block_size = block_size
        self.block_count = block_count
        size = block_size * block_count
        self._erased = b"\xff" * block_size
        self.efuse = b""  # a virtual board's chip id after the partition (EFUSE_TAG), kept as it was
        if (
            image is not None
            and len(image) == size + EFUSE_BYTES
            and bytes(image[size : size + len(EFUSE_TAG)]) == EFUSE_TAG
        ):
            self.efuse = bytes(image[size:])
            image = image[:size]
        if image is None:
            self.data = bytearray(size)
            for block in range(block_count):
                self.data[block * block_size : (block + 1) * block_size] = self._erased
        else:
            if len(image) != size:
                raise ValueError("flash image is " + str(len(image)) + " bytes, not " + str(size))
            self.data = bytearray(image) if copy else image  # copy=False: the device owns `image`
        self.writes = 0  # programs + erases so far
        self.programs = 0
        self.erases = 0
        self.bytes_programmed = 0
        self.cut_at = 0  # 0: never
        self.cut_mode = "before"
        self.dead = False
        self.raise_cut = True
        self.on_write = None

    # ---- image file ----------------------------------------------------

    @classmethod
    def load(cls, path, block_count=BLOCK_COUNT, block_size=BLOCK_SIZE):
        """The device backed by image file `path` (erased flash when it does not exist)."""
        try:
            with open(path, "rb") as f:
                image = f.read()
        except OSError:
            image = None
        return cls(image, block_count, block_size)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)
            f.write(self.efuse)

    # ---- the block protocol ---------------------------------------------

    def readblocks(self, block, buf, offset=0):
        if self.dead and self.raise_cut:
            raise PowerCut("no power")
        start = block * self.block_size + offset
        buf[:] = self.data[start : start + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        # Without an offset (the simple protocol) the blocks are erased first.
        if self._quiet():
            return
        if offset is None:
            for i in range(len(buf) // self.block_size):
                self._erase(block + i)
            offset = 0
        cut = self._count("p", block, offset, buf)
        if cut is None:
            return
        n = apply_write(self.data, "p", block, offset, buf, cut, self.block_size)
        self.programs += 1
        self.bytes_programmed += n
        self._maybe_die()

    def ioctl(self, op, arg):
        if op == _IOCTL_BLOCK_COUNT:
            return self.block_count
        if op == _IOCTL_BLOCK_SIZE:
            return self.block_size
        if op == _IOCTL_BLOCK_ERASE:
            if not self._quiet():
                self._erase(arg)
            return 0
        return 0  # init, deinit, sync: nothing to do

    # ---- internals -------------------------------------------------------

    def _erase(self, block):
        cut = self._count("e", block, 0, None)
        if cut is None:
            return
        apply_write(self.data, "e", block, 0, None, cut, self.block_size)
        self.erases += 1
        self._maybe_die()

    def _count(self, op, block, offset, buf):
        # True when this write is the one cut in half; raises when it is cut before.
        self.writes += 1
        if self.on_write is not None:
            self.on_write(self.writes, op, block, offset, buf)
        if self.writes == self.cut_at:
            self.dead = True
            if self.cut_mode == "before":
                if self.raise_cut:
                    raise PowerCut("power cut before write " + str(self.writes))
                return None  # nothing of it reaches the flash
            return True
        return False

    def _maybe_die(self):
        if self.dead and self.raise_cut:
            raise PowerCut("power cut during write " + str(self.writes))

    def _quiet(self):
        # True when the power is gone and writes must vanish without a word.
        if self.dead:
            if self.raise_cut:
                raise PowerCut("no power")
            return True
        return False
