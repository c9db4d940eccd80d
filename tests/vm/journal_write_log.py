# A journal session on fresh NOR flash (MicroPython VM, the board's littlefs),
# printed as its write log, so a host-side test can rebuild the flash as a
# power cut before or inside any write would leave it (tests/test_journal_metadata.py).
# stdin: the number of events. Prints the formatted image's blocks that are
# not erased ("b BLOCK HEX"), then one line per write: "p BLOCK OFFSET HEX" or "e BLOCK".
import sys

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table
from sim.portable.norflash import NorFlash

BOARD = b"\x24\x0a\xc4\x00\x00\x01"

count = int(sys.stdin.read())
dev = NorFlash()
vfs.VfsLfs2.mkfs(dev)
for block in range(dev.block_count):
    data = dev.data[block * 4096 : (block + 1) * 4096]
    if data != dev._erased:
        print("b", block, bytes(data).hex())
log = []


def on_write(index, op, block, offset, buf):
    log.append((op, block, offset, None if buf is None else bytes(buf)))


dev.on_write = on_write
vfs.mount(vfs.VfsLfs2(dev), "/s")
table = Table()
journal = jn.Journal("/s", BOARD, batch=32, segment_bytes=2048, max_segments=3)
journal.mount(table)
journal.start_new(table, 0, 1)
journal.maintain(table, 0)
seed = 7
for i in range(count):
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    d1 = 1 + (seed >> 16) % 6
    d2 = 1 + (seed >> 20) % 6
    t = 1000 * (i + 1)
    if i % 17 == 16 and table.undo():
        journal.append(jr.UNDO, 0, t, table)
    else:
        table.roll(d1, d2)
        journal.append(jr.ROLL, d1 * 8 + d2, t, table)
    journal.maintain(table, t)
vfs.umount("/s")
for op, block, offset, data in log:
    if op == "e":
        print("e", block)
    else:
        print("p", block, offset, data.hex())
