# One journal session, the same under CPython (a temporary directory) and the
# MicroPython VM (littlefs on the NOR-flash model): prints every journal file's
# sha256 and the restored table snapshot, which must agree byte for byte.
import sys
from binascii import hexlify
from hashlib import sha256

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.journal import snapshot
from crapsboard.rules import config as cfg
from crapsboard.rules.engine import Table


def root_dir():
    if sys.implementation.name == "micropython":
        import vfs

        from sim.portable.norflash import NorFlash

        dev = NorFlash()
        vfs.VfsLfs2.mkfs(dev)
        vfs.mount(vfs.VfsLfs2(dev), "/f")
        return "/f"
    import tempfile

    return tempfile.mkdtemp()


def main():
    import os

    root = root_dir()
    table = Table()
    journal = jn.Journal(root, b"\x24\x0a\xc4\x00\x00\x01", batch=8, segment_bytes=1024, max_segments=3)
    journal.start_new(table, 0, 1)
    seed = 7
    for i in range(260):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        r = (seed >> 8) % 100
        if i == 120:
            table.configure(cfg.parse({"rebet_after_win": False}, table.config))
            # With the change as payload the record is over 128 bytes: straight to the segment.
            journal.append(jr.CONFIG, 0, i, table, b'{"config": {"rebet_after_win": false}}')
        elif r < 8 and table.undo():
            journal.append(jr.UNDO, 0, i, table)
        elif r < 12:
            table.end_hand()
            journal.append(jr.END_HAND, 0, i, table)
        else:
            d1, d2 = 1 + (seed >> 16) % 6, 1 + (seed >> 20) % 6
            table.roll(d1, d2)
            journal.append(jr.ROLL, d1 * 8 + d2, i * 1000, table)
        journal.maintain(table, i)
    names = os.listdir(root + "/journal")
    names.remove(jr.ODD_DIR)
    names += [jr.ODD_DIR + "/" + name for name in os.listdir(root + "/journal/" + jr.ODD_DIR)]
    for name in sorted(names):
        with open(root + "/journal/" + name, "rb") as f:
            print(name, hexlify(sha256(f.read()).digest()).decode())
    restored = Table()
    jn.Journal(root, b"\x24\x0a\xc4\x00\x00\x01", batch=8, segment_bytes=1024, max_segments=3).mount(restored)
    print("state", hexlify(snapshot.dumps(restored, 0)).decode())
    print("same", snapshot.dumps(restored, 0) == snapshot.dumps(table, 0))


main()
