# Journal faults under the MicroPython VM with littlefs on the NOR-flash model:
# each case prints "name: result" and the pytest side checks the results.
import os

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.journal import snapshot
from crapsboard.rules.engine import Table
from sim.portable.norflash import NorFlash

BOARD = b"\x24\x0a\xc4\x00\x00\x01"
OTHER = b"\x24\x0a\xc4\x00\x00\x02"
OPTIONS = {"batch": 8, "segment_bytes": 1024, "max_segments": 3}


def fresh(blocks=512):
    dev = NorFlash(block_count=blocks)
    vfs.VfsLfs2.mkfs(dev)
    vfs.mount(vfs.VfsLfs2(dev), "/f")
    return dev


def play(journal, table, rolls, start=0):
    for i in range(rolls):
        d1, d2 = 1 + (i * 5 + start) % 6, 1 + (i * 7 + start // 3) % 6
        table.roll(d1, d2)
        journal.append(jr.ROLL, d1 * 8 + d2, i, table)
        journal.maintain(table, i)


def started(rolls, board=BOARD, blocks=512):
    """(flash, journal, table): a fresh flash with a journal started and `rolls` played."""
    dev = fresh(blocks)
    table = Table()
    journal = jn.Journal("/f", board, **OPTIONS)
    journal.start_new(table, 0, 1)
    play(journal, table, rolls)
    return dev, journal, table


def remount(dev):
    vfs.umount("/f")
    vfs.mount(vfs.VfsLfs2(dev), "/f")


def mount_fault(dev, board=BOARD):
    # (fault name, seq, writes made by the failed mount, table untouched)
    table = Table()
    before = snapshot.dumps(table, 0)
    writes = dev.writes
    try:
        jn.Journal("/f", board, **OPTIONS).mount(table)
    except jn.JournalError as e:
        return jn.FAULT_NAMES[e.fault], e.seq, dev.writes - writes, snapshot.dumps(table, 0) == before
    return "none", None, dev.writes - writes, True


def case_foreign():
    dev, journal, table = started(20, board=OTHER)
    remount(dev)
    print("foreign:", mount_fault(dev))
    vfs.umount("/f")


def case_flipped_bytes():
    # Every byte of the records in the middle segment, one at a time.
    dev, journal, table = started(100)
    first, last, _ = journal.segments()[1]
    path = "/f/journal/g" + str(first)
    with open(path, "rb") as f:
        good = f.read()
    caught = 0
    missed = []
    seqs = set()
    for i in range(jr.SEGMENT_HEADER_SIZE, len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x10
        with open(path, "wb") as f:
            f.write(bad)
        fault, seq, writes, untouched = mount_fault(dev)
        if fault in ("corrupt", "chain") and writes == 0 and untouched and first <= seq <= last:
            caught += 1
            seqs.add(seq)
        else:
            missed.append((i, fault, seq, writes))
    with open(path, "wb") as f:
        f.write(good)
    print("flips:", caught, len(seqs), last - first + 1, missed[:3], mount_fault(dev)[0])
    vfs.umount("/f")


def case_stale_slot_truncation():
    # The last staged record's seq rewritten lower (CRC not fixed): a truncation attempt.
    dev, journal, table = started(12)
    name = "/f/journal/" + jr.slot_name(journal.staged - 1)
    with open(name, "rb") as f:
        data = bytearray(f.read())
    data[2] = 1
    with open(name, "wb") as f:
        f.write(data)
    print("truncation:", mount_fault(dev))
    vfs.umount("/f")


def case_full():
    # A 40-block filesystem filled by another file: the event is refused as "full".
    dev, journal, table = started(5, blocks=40)
    seq = journal.seq
    fillers = 0
    try:
        while True:
            with open("/f/fill" + str(fillers), "wb") as f:
                f.write(b"\x00" * 1024)
            fillers += 1
    except OSError:
        pass
    result = "accepted"
    for i in range(200):
        table.roll(2, 3)
        try:
            journal.append(jr.ROLL, 2 * 8 + 3, i, table)
            journal.maintain(table, i)
        except jn.JournalError as e:
            result = jn.FAULT_NAMES[e.fault]
            break
    acked = journal.seq if result == "full" else -1
    try:
        journal.append(jr.ROLL, 9, 0, table)
        refused = False
    except jn.JournalError:
        refused = True
    for i in range(fillers + 1):
        try:
            os.remove("/f/fill" + str(i))
        except OSError:
            pass
    remount(dev)
    restored = Table()
    jn.Journal("/f", BOARD, **OPTIONS).mount(restored)
    print("full:", result, refused, acked >= seq, restored.rolls >= 5)
    vfs.umount("/f")


def case_start_new_is_recorded():
    dev, journal, table = started(30)
    old_seq, old_hash = journal.seq, journal.hash
    remount(dev)
    journal = jn.Journal("/f", BOARD, **OPTIONS)
    journal.mount(Table())
    table = Table()
    journal.start_new(table, 5, 2, reason=3)
    journal.maintain(table, 5)
    remount(dev)
    restored = Table()
    journal = jn.Journal("/f", BOARD, **OPTIONS)
    journal.mount(restored)
    # With the table state, the previous journal and the MAC the record is
    # over 128 bytes: it went straight into the first segment, not a staging file.
    with open("/f/journal/g1", "rb") as f:
        r = jread.decode(f.read(), jr.SEGMENT_HEADER_SIZE, jr.genesis(open("/f/journal/head", "rb").read()), 1)
    previous = r.payload
    print(
        "start_new:",
        jread.KIND_NAMES[r.kind],
        r.arg,
        int.from_bytes(previous[0:4], "little"),
        int.from_bytes(previous[4:8], "little") == old_seq,
        previous[8:16] == old_hash[:8],
        "journal.old" in os.listdir("/f"),
        restored.rolls,
    )
    vfs.umount("/f")


case_foreign()
case_flipped_bytes()
case_stale_slot_truncation()
case_full()
case_start_new_is_recorded()
