# The simulated board's filesystem: littlefs on the NOR-flash model, under
# MicroPython and CPython alike, mounted at ROOT for the journal.
#
# MicroPython mounts `vfs.VfsLfs2` on the device exactly as the ESP32 does.
# CPython has no VFS, so littlefs-python (the same littlefs v2 on-disk format,
# configured with VfsLfs2's defaults: 32-byte read/program size, 32-byte
# lookahead, a 128-byte cache, 4 KiB blocks) runs on the very same NorFlash
# object: programs only clear bits, erases set a whole block, and a power cut
# drops every later write, so both runtimes see the same flash semantics and
# each can mount the other's image. The journal's modules then get this
# filesystem's `os` and `open` in place of the host's (the only names they use).
import sys

ROOT = "/flash"
_IS_MICROPYTHON = sys.implementation.name == "micropython"


class MountError(Exception):
    pass


def mount(dev, fresh):
    """Mount littlefs on `dev` at ROOT; format it first when `fresh` (an
    erased, never used flash: a board leaves the factory with its filesystem,
    so the format's writes are not counted for a power cut). An existing
    image that does not mount is MountError, never formatted over."""
    if fresh:
        cut, dev.cut_at = dev.cut_at, 0
        _format(dev)
        dev.writes = 0
        dev.cut_at = cut
    if _IS_MICROPYTHON:
        import vfs

        try:
            vfs.mount(vfs.VfsLfs2(dev), ROOT)
        except OSError as e:
            raise MountError("the flash image has no filesystem (error " + str(e.args[0]) + ")")
        return ROOT
    _mount_cpython(dev, fresh)
    return ROOT


def _format(dev):
    if _IS_MICROPYTHON:
        import vfs

        vfs.VfsLfs2.mkfs(dev)
    else:
        _lfs(dev).format()


def unmount():
    if _IS_MICROPYTHON:
        import vfs

        try:
            vfs.umount(ROOT)
        except OSError:
            pass
        return
    import os

    from crapsboard.base import files
    from crapsboard.journal import journal, journal_restore

    for module in (journal, journal_restore, files):
        module.os = os
        module.__dict__.pop("open", None)  # the builtin again


# ---- CPython: littlefs-python on the same device -----------------------------


def _mount_cpython(dev, fresh):
    import littlefs

    fs = _lfs(dev)
    try:
        fs.mount()
    except littlefs.LittleFSError as e:
        raise MountError("the flash image has no filesystem (" + str(e) + ")")
    from crapsboard.base import files
    from crapsboard.journal import journal, journal_restore

    shim = _LfsOs(fs, littlefs.LittleFSError)
    for module in (journal, journal_restore, files):
        module.os = shim
        module.open = shim.open


def _lfs(dev):
    import littlefs

    class Context(littlefs.UserContext):
        def __init__(self):
            self.buffer = dev.data
            self.in_size = len(dev.data)

        def read(self, cfg, block, off, size):
            buf = bytearray(size)
            dev.readblocks(block, buf, off)
            return buf

        def prog(self, cfg, block, off, data):
            dev.writeblocks(block, data, off)
            return 0

        def erase(self, cfg, block):
            dev.ioctl(6, block)
            return 0

        def sync(self, cfg):
            return 0

    fs = littlefs.LittleFS(
        context=Context(),
        mount=False,
        block_size=dev.block_size,
        block_count=dev.block_count,
        read_size=32,
        prog_size=32,
        lookahead_size=32,
        cache_size=128,
    )
    return fs


class _LfsOs:
    # The `os` functions and `open` the journal uses, on littlefs-python,
    # with littlefs errors as OSError(errno) as MicroPython raises them.
    def __init__(self, fs, error):
        self.fs = fs
        self.error = error

    def _path(self, path):
        if path.startswith(ROOT + "/"):
            return path[len(ROOT) :]
        raise OSError(2, "not on the flash: " + path)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except self.error as e:
            raise OSError(-e.code, str(e))
        except FileNotFoundError:
            raise OSError(2, "no such file")

    def open(self, path, mode="r"):
        # Unbuffered: littlefs has its own cache, and _File.close must reach lfs_file_close itself.
        return _File(self, self._call(self.fs.open, self._path(path), mode, 0))

    def listdir(self, path):
        return self._call(self.fs.listdir, self._path(path))

    def mkdir(self, path):
        return self._call(self.fs.mkdir, self._path(path))

    def remove(self, path):
        return self._call(self.fs.remove, self._path(path))

    def rmdir(self, path):
        return self._call(self.fs.rmdir, self._path(path))

    def rename(self, old, new):
        return self._call(self.fs.rename, self._path(old), self._path(new))

    def stat(self, path):
        return self._call(self.fs.stat, self._path(path))


class _File:
    # A littlefs-python file whose errors (ENOSPC at write or close) are OSError too.
    def __init__(self, lfs_os, f):
        self._os = lfs_os
        self._f = f

    def read(self, *args):
        return self._os._call(self._f.read, *args)

    def readinto(self, buf):
        return self._os._call(self._f.readinto, buf)

    def write(self, data):
        return self._os._call(self._f.write, data)

    def close(self):
        try:
            return self._os._call(self._f.close)
        finally:
            # littlefs has let go of the file even when closing it failed (a
            # full flash): closing it again would abort in lfs_file_close.
            setattr(self._f, "__IOBase_closed", True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
