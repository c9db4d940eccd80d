"""A read-only walk of littlefs v2 metadata: what lies after the last commit littlefs accepts.

littlefs keeps each directory in a metadata pair of blocks; each block is a
log of commits (littlefs SPEC.md, lfs.c lfs_dir_fetchmatch): a 32-bit
revision count, then tags XOR-chained from 0xffffffff, stored big-endian,
each commit closed by a CRC tag. A commit whose CRC fails ends the log: the
directory mounts as it was before it, silently, and every later commit in
that block is ignored. A power cut explains that only for the newest commit,
and only as a prefix of what littlefs meant to program followed by erased
flash (0xFF) to the end of the block. So this module reads the journal's
directory (and the root pairs that lead to it) and sorts what follows the
last accepted commit of the block littlefs mounts:

- erased to the end of the block: clean;
- a prefix of one commit, then erased: a torn last write (a power cut);
- anything else -- a whole commit that fails its CRC, a tag littlefs never
  writes, a valid commit after a bad one -- is damage.

The block littlefs passed over (the older copy of the pair) is checked too:
when its first commit is whole but fails its CRC (a changed revision count
or a changed byte in a compacted copy), littlefs fell back to the older
copy, which is damage as well. Disk version 2.1 (littlefs 2.6 and later,
FCRC tags) is assumed: it never appends after a torn commit, it compacts.
"""

import struct
import zlib

BLOCK_SIZE = 4096
COMMIT_ALIGN = 4  # commits start on a program boundary; every program size used divides into 4

CLEAN = "clean"
TORN = "torn"
DAMAGED = "damaged"

_CCRC = 0x500
_FCRC = 0x5FF
_CREATE = 0x401
_DELETE = 0x4FF
_DIRSTRUCT = 0x200
_TYPE_DIR = 0x002
# Every type3 littlefs writes: names (file, directory, superblock), create,
# delete, structs, user attributes, tails, move state, the two CRC tags.
_NAMES = (0x001, 0x002, 0x0FF)


class Finding:
    """What follows the accepted commits of one block: `kind` (CLEAN, TORN,
    DAMAGED), the block, the offset where it starts and why."""

    __slots__ = ("kind", "block", "offset", "reason")

    def __init__(self, kind, block, offset, reason):
        self.kind = kind
        self.block = block
        self.offset = offset
        self.reason = reason

    def __str__(self):
        return "block %d offset %d: %s" % (self.block, self.offset, self.reason)


def lfs_crc(crc, data):
    """littlefs's CRC-32 (polynomial 0x04c11db7 reflected, no final XOR)."""
    return zlib.crc32(data, crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def _type3(tag):
    return (tag >> 20) & 0x7FF


def _is_crc(tag):
    return (tag >> 20) & 0x780 == _CCRC


def _dsize(tag):
    size = tag & 0x3FF
    return 4 + (0 if size == 0x3FF else size)  # 0x3ff marks a deleted tag: no data


def _known(tag):
    t = _type3(tag)
    kind = t & 0x700
    if kind == 0x000:
        return t in _NAMES
    if kind == 0x400:
        return t in (_CREATE, _DELETE)
    if kind == 0x200:
        return t <= 0x202
    if kind == 0x500:
        return t in (_CCRC, _CCRC + 1, _FCRC)
    if kind == 0x600:
        return t in (0x600, 0x601)
    if kind == 0x700:
        return t == 0x7FF
    return kind == 0x300  # user attributes (MicroPython's mtime)


class Log:
    """The commits littlefs accepts in one block (lfs_dir_fetchmatch)."""

    def __init__(self, data):
        self.data = data
        self.rev = struct.unpack_from("<I", data, 0)[0]
        self.commits = 0
        self.end = 0  # offset after the last accepted commit
        self.ptag = 0xFFFFFFFF  # the tag the next commit's first tag is XORed with
        self.tags = []  # (tag, offset) of every accepted commit, in order
        off = 0
        ptag = 0xFFFFFFFF
        crc = lfs_crc(0xFFFFFFFF, data[0:4])
        pending = []
        while True:
            off += _dsize(ptag)
            if off + 4 > len(data):
                break
            raw = data[off : off + 4]
            crc = lfs_crc(crc, raw)
            tag = struct.unpack(">I", raw)[0] ^ ptag
            if tag & 0x80000000 or off + _dsize(tag) > len(data):
                break
            ptag = tag
            if _is_crc(tag):
                if crc != struct.unpack_from("<I", data, off + 4)[0]:
                    break
                ptag ^= ((tag >> 20) & 1) << 31
                self.tags.extend(pending)
                pending = []
                self.commits += 1
                self.end = off + _dsize(tag)
                self.ptag = ptag
                crc = 0xFFFFFFFF
                continue
            crc = lfs_crc(crc, data[off + 4 : off + _dsize(tag)])
            pending.append((tag, off))

    def entries(self):
        """({name: (type, attributes)}, hard tail pair or None) of this block's directory."""
        ids = []
        tail = None
        for tag, off in self.tags:
            t = _type3(tag)
            i = (tag >> 10) & 0x3FF
            body = self.data[off + 4 : off + _dsize(tag)]
            if t == _CREATE:
                ids.insert(i, {})
            elif t == _DELETE:
                if i < len(ids):
                    ids.pop(i)
            elif t & 0x700 == 0x000:
                while len(ids) <= i:
                    ids.append({})
                ids[i] = {"type": t, "name": bytes(body)}
            elif t == _DIRSTRUCT and i < len(ids) and len(body) == 8:
                ids[i]["dir"] = struct.unpack("<II", body)
            elif t & 0x700 == 0x600 and len(body) == 8:
                tail = struct.unpack("<II", body) if t & 1 else None
        names = {}
        for entry in ids:
            if "name" in entry:
                names[entry["name"]] = entry
        return names, tail


def _newer(a, b):
    # littlefs compares revision counts as sequence numbers (lfs_scmp).
    d = (a - b) & 0xFFFFFFFF
    return 0 < d < 0x80000000


def _programmed_end(data):
    # One past the last byte that is not erased.
    n = len(data)
    while n and data[n - 1] == 0xFF:
        n -= 1
    return n


def _after(data, start, ptag, crc):
    """(kind, offset, reason) for data[start:], where the next commit should begin.

    Under the power-cut hypothesis every byte before the last programmed one is
    what littlefs meant to write, so a tag there must be one littlefs writes and
    a commit wholly there must pass its CRC."""
    q = _programmed_end(data)
    if q <= start:
        return CLEAN, start, "erased"
    off = start
    while True:
        if off + 4 > q:
            return TORN, start, "a commit cut short, then erased flash"
        raw = data[off : off + 4]
        crc = lfs_crc(crc, raw)
        tag = struct.unpack(">I", raw)[0] ^ ptag
        if tag & 0x80000000 or not _known(tag) or off + _dsize(tag) > len(data):
            return DAMAGED, off, "a tag littlefs never writes"
        ptag = tag
        if _is_crc(tag):
            want = struct.pack("<I", crc)
            have = max(0, min(4, q - off - 4))
            if have < 4 and data[off + 4 : off + 4 + have] == want[:have]:
                return TORN, start, "a commit cut short in its CRC, then erased flash"
            return DAMAGED, start, "commit CRC"
        end = off + _dsize(tag)
        if end > q:
            return TORN, start, "a commit cut short, then erased flash"
        crc = lfs_crc(crc, data[off + 4 : end])
        off = end


def _valid_commit_at(data, off, ptag):
    # A whole commit at data[off:] that passes its CRC.
    crc = 0xFFFFFFFF
    while off + 4 <= len(data):
        raw = data[off : off + 4]
        crc = lfs_crc(crc, raw)
        tag = struct.unpack(">I", raw)[0] ^ ptag
        if tag & 0x80000000 or not _known(tag) or off + _dsize(tag) > len(data):
            return False
        ptag = tag
        if _is_crc(tag):
            return crc == struct.unpack_from("<I", data, off + 4)[0]
        crc = lfs_crc(crc, data[off + 4 : off + _dsize(tag)])
        off += _dsize(tag)
    return False


def _later_valid_commit(data, start):
    """Offset of a commit after `start` that passes its CRC, or None. The tag a
    commit's first tag is XORed with is the previous commit's CRC tag, so each
    likely one is tried: its padding (4 to 64 bytes) and valid-bit state."""
    q = _programmed_end(data)
    for off in range(start + COMMIT_ALIGN, q - 8, COMMIT_ALIGN):
        raw = struct.unpack_from(">I", data, off)[0]
        for v in (0, 1):
            for pad in range(4, 65):
                ptag = (((_CCRC | v) << 20) | (0x3FF << 10) | pad) ^ (v << 31)
                tag = raw ^ ptag
                if tag & 0x80000000 or not _known(tag) or _is_crc(tag):
                    continue
                if _valid_commit_at(data, off, ptag):
                    return off
    return None


def check_pair(image, pair):
    """(the Log littlefs mounts or None, [Finding]) for the metadata pair `pair`."""
    logs = []
    for block in pair:
        if block >= len(image) // BLOCK_SIZE:
            return None, [Finding(DAMAGED, block, 0, "metadata pair points past the end of the flash")]
        logs.append((block, Log(image[block * BLOCK_SIZE : (block + 1) * BLOCK_SIZE])))
    order = sorted(range(2), key=lambda i: 0 if _newer(logs[i][1].rev, logs[1 - i][1].rev) else 1)
    chosen = None
    for i in order:
        if logs[i][1].commits:
            chosen = i
            break
    findings = []
    if chosen is None:
        return None, [Finding(DAMAGED, pair[0], 0, "no valid commit in either block of the pair")]
    block, log = logs[chosen]
    kind, offset, reason = _after(log.data, log.end, log.ptag, 0xFFFFFFFF)
    if kind == TORN:
        later = _later_valid_commit(log.data, log.end)
        if later is not None:
            kind, offset, reason = DAMAGED, log.end, "commit CRC (a valid commit follows at offset %d)" % later
    if kind != CLEAN:
        findings.append(Finding(kind, block, offset, reason))
    other_block, other = logs[1 - chosen]
    if not other.commits:
        # littlefs passed this block over. A whole first commit that fails its
        # CRC was written in full and changed since (or its revision count
        # was): damage, unless the block is the copy the mounted one replaced
        # (revision one less), whose loss costs nothing.
        kind, offset, reason = _after(other.data, 4, 0xFFFFFFFF, lfs_crc(0xFFFFFFFF, other.data[0:4]))
        stale = (log.rev - other.rev) & 0xFFFFFFFF == 1
        if kind == DAMAGED and reason == "commit CRC" and not stale:
            findings.append(Finding(DAMAGED, other_block, offset, "commit CRC of the compacted copy"))
        elif kind == TORN and _newer(other.rev, log.rev):
            findings.append(Finding(TORN, other_block, 4, "a compaction cut short, then erased flash"))
    return log, findings


def disk_version(image):
    """The on-disk version in the superblock (0x00020001 for 2.1); ValueError when there is none."""
    log, _ = check_pair(image, (0, 1))
    if log is not None:
        for tag, off in reversed(log.tags):
            if _type3(tag) == 0x201 and (tag >> 10) & 0x3FF == 0 and tag & 0x3FF >= 4:
                return struct.unpack_from("<I", log.data, off + 4)[0]
    raise ValueError("no littlefs superblock")


def check_directory(image, name):
    """[Finding] for the metadata pairs from the root to directory `name` and
    those of `name` itself and of its subdirectories; ValueError when the
    directory is not found."""
    if disk_version(image) < 0x00020001:
        # Before 2.1 littlefs could append a commit after a torn one: what
        # follows a bad commit would no longer be damage for certain.
        raise ValueError("littlefs on-disk version before 2.1")
    findings = []
    pair = (0, 1)
    target = None
    seen = set()
    while target is None:
        if pair in seen:
            raise ValueError("the root directory's pairs loop")
        seen.add(pair)
        log, found = check_pair(image, pair)
        findings.extend(found)
        if log is None:
            return findings
        names, tail = log.entries()
        entry = names.get(name.encode())
        if entry is not None and entry["type"] == _TYPE_DIR and "dir" in entry:
            target = entry["dir"]
        elif tail is None:
            raise ValueError("no directory " + name)
        else:
            pair = tail
    heads = [target]  # the directory's first pair, then those of its subdirectories
    while heads:
        pair = heads.pop(0)
        while pair is not None:
            if pair in seen:
                raise ValueError("directory " + name + " loops")
            seen.add(pair)
            log, found = check_pair(image, pair)
            findings.extend(found)
            if log is None:
                break
            names, pair = log.entries()
            heads += [e["dir"] for e in names.values() if e["type"] == _TYPE_DIR and "dir" in e]
    return findings
