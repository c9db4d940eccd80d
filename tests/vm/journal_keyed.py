# The keyed chain under the MicroPython VM with littlefs on the NOR-flash model
#: the rewrites an attacker without the board's key can make, and
# what the board does with them at power-up. Each case prints "name: result";
# `image PATH` on stdin also saves the rewritten flash for the host's checks.
import sys

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_boot, snapshot
from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table
from sim.portable.norflash import NorFlash

BOARD = b"\x24\x0a\xc4\x00\x00\x01"
KEY = bytes(range(32))  # the board's link key (tests/test_journal_keyed.py's)
OPTIONS = {"batch": 8, "segment_bytes": 1024, "max_segments": 3}
# Rolls: come-out 2+2 sets the point 4; then 3 3, 5 1 ... (seq 2 is the 2+2).
ROLLS = [(2, 2), (3, 3), (5, 1), (6, 3), (1, 2), (2, 3), (4, 4), (6, 5), (3, 4)]


def fresh():
    dev = NorFlash()
    vfs.VfsLfs2.mkfs(dev)
    vfs.mount(vfs.VfsLfs2(dev), "/f")
    return dev


def remount(dev):
    vfs.umount("/f")
    vfs.mount(vfs.VfsLfs2(dev), "/f")


def started(rolls, key=KEY, fmt=2):
    dev = fresh()
    table = Table()
    journal = jn.Journal("/f", BOARD, key=key, **OPTIONS)
    journal.start_new(table, 0, 1)
    for i in range(rolls):
        d1, d2 = ROLLS[i % len(ROLLS)]
        table.roll(d1, d2)
        journal.append(jr.ROLL, d1 * 8 + d2, 100 * i, table)
        journal.maintain(table, 100 * i)
    if fmt == 1:
        to_format_1()
    return dev, journal, table


def to_format_1():
    # What an older firmware wrote: a format 1 head, records without a MAC.
    head = read("/f/journal/head")
    board_id, journal_id, t = jread.decode_head(head)
    rewrite(lambda r: r, new_fmt=1, new_head=jr.encode_head(board_id, journal_id, t))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def files():
    import os

    names = [n for n in os.listdir("/f/journal") if n[0] in "gs"]
    names += ["odd/" + n for n in os.listdir("/f/journal/odd")]
    return names


def records(fmt=2):
    # [(file, offset, Record, bytes)] in seq order, the public chain only.
    head = read("/f/journal/head")
    chain = jr.genesis(head)
    out = []
    segs = sorted((int(n[1:]), n) for n in files() if n[0] == "g")
    seq = 0
    for first, name in segs:
        data = read("/f/journal/" + name)
        _, chain = jread.decode_segment_header(data)
        seq = first - 1
        pos = jr.SEGMENT_HEADER_SIZE
        while pos < len(data):
            r = jread.decode(data, pos, chain, seq + 1, fmt)
            out.append((name, pos, r, data[pos : pos + r.size]))
            chain, seq, pos = r.hash, r.seq, pos + r.size
    staged = {}
    for name in files():
        if name.rsplit("/", 1)[-1][0] == "s":
            data = read("/f/journal/" + name)
            if data and jr.peek_seq(data, 0) > seq:
                staged[jr.peek_seq(data, 0)] = (name, data)
    for s in sorted(staged):
        name, data = staged[s]
        r = jread.decode(data, 0, chain, s, fmt)
        out.append((name, 0, r, data))
        chain = r.hash
    return out


def chain_end():
    return records()[-1][2].hash


def rewrite(change, new_fmt=2, new_head=None, mac=None):
    # Re-encode every record with the public codec after `change(record)`:
    # links, segment headers and CRCs recomputed; a format 2 record keeps the
    # MAC bytes it had (the attacker cannot compute new ones without the key).
    old = records()
    head = new_head if new_head is not None else read("/f/journal/head")
    chain = jr.genesis(head)
    out = {}
    for name, _pos, r, _data in old:
        r = change(r)
        if name[0] == "g" and name not in out:
            out[name] = bytearray(jr.encode_segment_header(r.seq, chain))
        tag = (mac if mac is not None else r.mac) if new_fmt == 2 else None
        enc, chain = jr.encode(chain, r.seq, r.t, r.kind, r.arg, r.state, r.payload, tag)
        if name[0] == "g":
            out[name] += enc
        else:
            out[name] = enc
    write("/f/journal/head", head)
    for name in out:
        write("/f/journal/" + name, bytes(out[name]))


def mount_report(dev, key=KEY, new_journal=False):
    # (fault name, seq, writes by the mount, point after, journal id after)
    remount(dev)
    table = Table()
    journal = jn.Journal("/f", BOARD, key=key, **OPTIONS)
    writes = dev.writes
    try:
        journal_boot.open_table_journal(table, journal, 1, 0, new_journal)
    except jn.JournalError as e:
        return jn.FAULT_NAMES[e.fault], e.seq, dev.writes - writes, str(e)
    return "none", journal.seq, dev.writes - writes, "point %s journal %d" % (table.point, journal.journal_id)


def case_rewrite_recomputing_the_public_chain():
    # The security review's case 2: the roll that set the point (2 2, seq 2) becomes 4 4.
    dev, journal, table = started(20)
    before = snapshot.dumps(table, 0)

    def eight(r):
        if r.seq == 2:
            r.arg = 4 * 8 + 4
        return r

    rewrite(eight)
    fault = mount_report(dev)
    print("rewrite:", fault[0], fault[1], fault[2], fault[3])
    return dev, before


def case_a_keyed_roll_that_is_not_two_dice():
    # Written with the board's own key (a firmware bug, not an attacker): the
    # chain and the MACs check, the restore still refuses a die of 0 or 7.
    for arg in (3 * 8 + 0, 0 * 8 + 3, 3 * 8 + 7, 7 * 8 + 3):
        dev, journal, table = started(12)

        def bad(r, arg=arg):
            if r.seq == 3:
                r.arg = arg
            return r

        from crapsboard.journal.journal_read import journal_key

        rewrite(bad, mac=jr.Mac(journal_key(KEY)))
        fault = mount_report(dev)
        print("bad dice %d:" % arg, fault[0], fault[1], fault[2], fault[3])
        vfs.umount("/f")


def case_truncation_of_the_newest_record():
    import os

    dev, journal, table = started(13)  # 14 records: 8 in g1, 6 staged
    os.remove("/f/journal/odd/s5")  # the newest staged record: looks like a power cut
    print("truncated:", mount_report(dev)[:3])
    vfs.umount("/f")


def case_format_1_journal():
    # 9 records: 8 in g1, its last a roll of 26 bytes (a format 1 record is 8 bytes
    # shorter than the shortest of format 2), then 1 staged.
    dev, journal, table = started(8, fmt=1)
    print("format1:", mount_report(dev)[0], mount_report(dev)[2])
    print("format1 says:", mount_report(dev)[3])
    print("format1 gesture:", mount_report(dev, new_journal=True)[3])
    print("format1 after:", mount_report(dev)[0], mount_report(dev)[3])
    vfs.umount("/f")


def case_another_key():
    dev, journal, table = started(5)
    print("other key:", mount_report(dev, key=bytes(32))[0])
    print("other key says:", mount_report(dev, key=bytes(32))[3])
    print("no key:", mount_report(dev, key=None)[0])
    print("own key:", mount_report(dev)[3])
    vfs.umount("/f")


dev, before = case_rewrite_recomputing_the_public_chain()
line = sys.stdin.readline().split()
if line and line[0] == "image":
    vfs.umount("/f")
    dev.save(line[1])
else:
    vfs.umount("/f")
case_a_keyed_roll_that_is_not_two_dice()
case_truncation_of_the_newest_record()
case_format_1_journal()
case_another_key()
