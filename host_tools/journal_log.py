"""`log`: read a board's flash image on the host, verify the journal, print its records.

The image is opened with littlefs-python and never formatted or written. Every
record is checked: its CRC, its place in the sequence and the hash chain from
the oldest segment kept (or the journal head) to the last staged record, and
its MAC (the keyed chain, docs/journal.md) with the board's key: `--key FILE`
or the host's key for the board; without one the summary says the keyed chain
was not checked.
"""

import csv
import json
import os
import sys

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError, littlefs_meta
from sim.portable.norflash import EFUSE_BYTES, EFUSE_TAG

BLOCK_SIZE = 4096
JOURNAL_DIR = "journal"


def add_arguments(parser):
    parser.add_argument("--image", required=True, help="flash image of the vfs partition (4 KiB blocks)")
    parser.add_argument("--verify", action="store_true", help="print only a one-line summary of the verified journal")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    parser.add_argument("--key", metavar="FILE", help="the board's key file (default: the host's key for the board)")


class JournalFault(HostToolError):
    """A record that fails its check (exit 1); `records` are the good ones before it."""

    def __init__(self, message, records=()):
        super().__init__(message, EXIT_FAILED)
        self.records = list(records)


def run(args):
    try:
        records, summary = read_image(args.image, getattr(args, "key", None))
    except JournalFault as e:
        if not args.verify:  # what can be proven is printed, then the fault (exit 1)
            write_records(e.records, args.format, sys.stdout)
            sys.stdout.flush()
        raise
    if args.verify:
        print(summary)
        return
    write_records(records, args.format, sys.stdout)


def read_image(path, key_file=None):
    """(records, summary) of the journal in flash image `path`; HostToolError on any fault.
    The keyed chain is checked with `key_file`, else the host's key for the board if it has one."""
    return verify_image(_load(path), path, key_file)


def verify_image(image, name="the image", key_file=None):
    """read_image for the bytes of an image: the files as littlefs mounts them,
    then the metadata littlefs passed over."""
    records, summary = verify_files(read_journal_files(name, image), key_file)
    try:
        return records, summary + check_metadata(image, records[-1].seq if records else 0)
    except HostToolError as e:
        raise JournalFault(str(e), records)


def check_metadata(image, last_seq):
    """The staged records live in littlefs's directory metadata, where a
    changed byte fails a commit CRC and littlefs mounts the directory as it
    was before that commit: the records after `last_seq` would vanish
    silently. HostToolError naming the first seq that cannot be proven when
    the metadata shows damage; a note for the summary when it shows a power
    cut's torn last write (littlefs_meta.py)."""
    try:
        findings = littlefs_meta.check_directory(image, JOURNAL_DIR)
    except ValueError as e:
        raise HostToolError("record %d: cannot be proven, littlefs metadata unreadable (%s)" % (last_seq + 1, e))
    for f in findings:
        if f.kind == littlefs_meta.DAMAGED:
            raise HostToolError(
                "record %d: cannot be proven, littlefs metadata damaged after record %d (%s)"
                % (last_seq + 1, last_seq, f)
            )
    torn = [str(f) for f in findings if f.kind == littlefs_meta.TORN]
    return "; torn last write discarded by littlefs (power cut): " + ", ".join(torn) if torn else ""


def _load(path):
    try:
        with open(path, "rb") as f:
            image = bytearray(f.read())
    except OSError as e:
        raise HostToolError("cannot read " + path + ": " + e.strerror, EXIT_USAGE)
    tail = len(image) % BLOCK_SIZE
    if tail == EFUSE_BYTES and image[-EFUSE_BYTES:].startswith(EFUSE_TAG):  # a virtual board's chip id
        del image[-EFUSE_BYTES:]
    if not image or len(image) % BLOCK_SIZE:
        raise HostToolError(path + " is not a flash image of 4 KiB blocks", EXIT_USAGE)
    return image


def read_journal_files(path, image=None):
    """{name: bytes} of the journal directory in the image, read without writing to it."""
    import littlefs

    if image is None:
        image = _load(path)
    image = bytearray(image)  # littlefs-python's own copy: the caller's stays as read
    context = _image_context()(buffer=image)
    # mount=False: littlefs-python formats an image it cannot mount otherwise.
    fs = littlefs.LittleFS(
        context=context,
        mount=False,
        block_size=BLOCK_SIZE,
        block_count=len(image) // BLOCK_SIZE,
        read_size=32,
        prog_size=32,
        lookahead_size=32,
    )
    try:
        fs.mount()
    except littlefs.LittleFSError as e:
        reason = " has no littlefs filesystem (" + str(e) + "): not a board's flash image"
        raise HostToolError(path + reason, EXIT_USAGE)
    try:
        names = fs.listdir(JOURNAL_DIR)
    except littlefs.LittleFSError:
        raise HostToolError(path + " has no journal")
    if jr.ODD_DIR in names:  # the odd staging slots' directory: its files as "odd/s1", ...
        names.remove(jr.ODD_DIR)
        names += [jr.ODD_DIR + "/" + name for name in fs.listdir(JOURNAL_DIR + "/" + jr.ODD_DIR)]
    files = {}
    for name in names:
        with fs.open(JOURNAL_DIR + "/" + name, "rb") as f:
            files[name] = f.read()
    return files


def _image_context():
    import littlefs

    class ImageContext(littlefs.UserContext):
        # UserContext.read without its debug log line per 32-byte read (most of the time).
        def read(self, cfg, block, off, size):
            start = block * BLOCK_SIZE + off
            return self.buffer[start : start + size]

    return ImageContext


def board_mac(board_hex, key_file=None):
    """(journal_record.Mac under the board's journal key, where the key came
    from), or (None, why not) when no key is given and the host has none."""
    from host_tools import keys

    if key_file is None:
        path = keys.key_path(board_hex)
        if not os.path.exists(path):
            return None, "no key for board %s on this host" % board_hex
        key_file = path
    return jr.Mac(jread.journal_key(keys.read_key(key_file))), key_file


def refuse_downgrade(board_hex, fmt, key_file=None):
    """HostToolError (exit 1) for a journal of an older format than the firmware
    writes when this host holds the board's key and deployed it: that board
    writes keyed journals, so an unkeyed one claiming to be its journal was
    rewritten to pass without the key."""
    from host_tools import board_records, keys

    try:
        have_key = key_file is not None or os.path.exists(keys.key_path(board_hex))
        deployed = board_records.load(board_hex, "deployed") if have_key else None
    except HostToolError:
        deployed = None
    if deployed is not None:
        raise HostToolError(
            "board %s was deployed from this host (%s) and writes keyed journals: a format %d journal for it is"
            " refused (an unkeyed rewrite passes the public chain)" % (board_hex, deployed.get("when"), fmt),
            EXIT_FAILED,
        )


def keyed_check(fmt, key_id, mac, where):
    """The summary's words on the keyed chain; HostToolError when the key
    given is not the one the journal was written under."""
    if fmt < 2:
        return "format 1 journal: public chain only (written before the keyed chain)"
    if mac is None:
        return "public chain only, keyed chain NOT checked (%s: give --key FILE)" % where
    if mac.key_id() != key_id:
        raise HostToolError("the journal was written under another key than %s: not this board's key" % where)
    return "keyed chain verified with " + where


def verify_files(files, key_file=None, mac=False):
    """(records, summary) from the journal's files by name; JournalFault naming
    the first bad seq, holding the records verified before it. The keyed chain
    (format 2) is checked with `mac` (a journal_record.Mac, or None for the
    public chain only), else with the key from `key_file` or the host's key
    for the board."""
    records = []
    try:
        return _verify_files(files, records, key_file, mac)
    except JournalFault:
        raise
    except HostToolError as e:
        raise JournalFault(str(e), records)


def _verify_files(files, records, key_file, mac):
    if "head" not in files:
        raise HostToolError("journal has no head file")
    try:
        board_id, journal_id, _ = jread.decode_head(files["head"])
        fmt = jread.head_format(files["head"])
    except ValueError as e:
        raise HostToolError("journal head: " + str(e))
    where = "the Mac given"
    if mac is False:
        if fmt < jr.FORMAT:
            refuse_downgrade(board_id.hex(), fmt, key_file)
        mac, where = board_mac(board_id.hex(), key_file) if fmt >= 2 else (None, "")
    keyed = keyed_check(fmt, jread.head_key_id(files["head"]), mac, where)
    segments = sorted((int(name[1:]), name) for name in files if name.startswith("g") and name[1:].isdigit())
    chain = jr.genesis(files["head"])
    seq = 0
    for i, (first, name) in enumerate(segments):
        data = files[name]
        if not data and i == len(segments) - 1:
            break
        try:
            seg_first, prev = jread.decode_segment_header(data)
        except ValueError:
            raise HostToolError("record " + str(first) + ": segment " + name + " has no header")
        if seg_first != first or (i and first != seq + 1):
            raise HostToolError(
                "record " + str(seq + 1) + ": missing (segment " + name + " starts at " + str(seg_first) + ")"
            )
        if i == 0:
            chain, seq = prev, first - 1
        pos = jr.SEGMENT_HEADER_SIZE
        while pos < len(data):
            r = _decode(data, pos, chain, seq + 1, fmt, mac)
            records.append(r)
            chain, seq, pos = r.hash, r.seq, pos + r.size
    staged = {}
    for name, data in files.items():
        if name.rsplit("/", 1)[-1].startswith("s") and data:
            if not jread.crc_ok(data, 0):
                raise HostToolError("record " + str(jr.peek_seq(data, 0)) + ": staging file " + name + " fails its CRC")
            if jr.peek_seq(data, 0) > seq:
                staged[jr.peek_seq(data, 0)] = (name, data)
    for k in range(len(staged)):
        name, data = staged.get(seq + 1, ("", b""))
        if name != jr.slot_name(k):
            raise HostToolError("record " + str(seq + 1) + ": staged records out of order")
        r = _decode(data, 0, chain, seq + 1, fmt, mac)
        records.append(r)
        chain, seq = r.hash, r.seq
    first_seq = records[0].seq if records else 0
    summary = "journal %d of board %s: records %d-%d verified, chain head %s; %s" % (
        journal_id,
        board_id.hex(),
        first_seq,
        seq,
        chain.hex(),
        keyed,
    )
    return records, summary


def _decode(data, pos, chain, seq, fmt=jr.FORMAT, mac=None):
    try:
        return jread.decode(data, pos, chain, seq, fmt, mac)
    except jread.RecordError as e:
        raise HostToolError(str(e))


def unwrapped_times(records):
    """Each record's t in ms, unwrapped: the board's journal clock never runs
    backwards, so a t below the one before it has wrapped its 32 bits (49.7
    days of the board being on). Counted from the oldest record kept."""
    times = []
    wraps = 0
    previous = None
    for r in records:
        if previous is not None and r.t < previous:
            wraps += 1
        previous = r.t
        times.append(r.t + (wraps << 32))
    return times


def record_dict(r, t=None):
    """One record as plain data for JSON or CSV; `t` its unwrapped time (unwrapped_times)."""
    item = {"seq": r.seq, "t": r.t if t is None else t, "kind": jread.KIND_NAMES.get(r.kind, str(r.kind)), "arg": r.arg}
    if r.kind == jr.ROLL:
        item["dice"] = [r.arg >> 3, r.arg & 7]
    if r.state:
        item["state"] = r.state.hex()
    if r.payload:
        try:
            item["payload"] = json.loads(r.payload)
        except ValueError:
            item["payload"] = r.payload.hex()
    return item


def write_records(records, fmt, out):
    times = unwrapped_times(records)
    if fmt == "jsonl":
        for r, t in zip(records, times):
            out.write(json.dumps(record_dict(r, t)) + "\n")
        return
    writer = csv.writer(out)
    writer.writerow(["seq", "t", "kind", "arg", "dice", "state", "payload"])
    for r, t in zip(records, times):
        item = record_dict(r, t)
        dice = item.get("dice")
        payload = item.get("payload", "")
        writer.writerow(
            [
                item["seq"],
                item["t"],
                item["kind"],
                item["arg"],
                "" if dice is None else "%d-%d" % tuple(dice),
                item.get("state", ""),
                payload if isinstance(payload, str) else json.dumps(payload),
            ]
        )
