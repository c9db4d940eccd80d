# Writes a flash image holding a journal, for the host-side tests (MicroPython VM).
# stdin: the image path and the number of rolls. Prints the last seq.
import sys

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table
from sim.portable.norflash import NorFlash

BOARD = b"\x24\x0a\xc4\x00\x00\x01"

path, count = sys.stdin.read().split()
dev = NorFlash()
vfs.VfsLfs2.mkfs(dev)
vfs.mount(vfs.VfsLfs2(dev), "/f")
table = Table()
journal = jn.Journal("/f", BOARD, batch=32, segment_bytes=2048, max_segments=3)
journal.mount(table)
journal.start_new(table, 0, 7)
seed = 99
for i in range(int(count)):
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    d1 = 1 + (seed >> 16) % 6
    d2 = 1 + (seed >> 20) % 6
    table.roll(d1, d2)
    journal.append(jr.ROLL, d1 * 8 + d2, 1000 * i, table, b'{"n": %d}' % i if i % 10 == 0 else b"")
    journal.maintain(table, 1000 * i)
    if i == 40:
        table.undo()
        journal.append(jr.UNDO, 0, 1000 * i, table)
vfs.umount("/f")
dev.save(path)
print(journal.seq)
