# The link's view of the journal (docs/link.md): `events` pages and pushed events.
#
# Dispatched by link_app.py (`events`, and the pushed events while a host
# is subscribed). Records are read from
# the journal's files on flash, a record at a time, and decoded and checked
# (CRC, hash chain) by journal_read.decode, as the host tool reads an image.
# Each goes out as the host tool's record (seq, t, kind, arg, dice, state,
# payload) plus its 8-byte chain link and 8-byte MAC, so a host can re-encode
# every record and verify the chain itself (the MAC with the board's key). Where a page ends is remembered (the segment,
# the offset in it, the chain hash), so paging on from `next` reads only the
# new page, not the segment again from its start.
from micropython import const

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.link.link import LinkError
from crapsboard.link.link_json import Raw, encode

PAGE_MAX = const(8)  # records in one reply: a page of ~8 x 300 bytes of JSON


def _hex(data):
    return "".join(["%02x" % b for b in data])


def record_fields(r, link):
    """One record as the host tool writes it (host_tools/journal_log.record_dict),
    plus `link` and `mac` (hex); a time record also gives `unix`."""
    item = {"seq": r.seq, "t": r.t, "kind": jread.KIND_NAMES.get(r.kind, str(r.kind)), "arg": r.arg}
    if r.kind == jr.ROLL:
        item["dice"] = [r.arg >> 3, r.arg & 7]
    if r.state:
        item["state"] = _hex(r.state)
    if r.payload:
        item["payload"] = _hex(r.payload)
        if r.kind == jr.TIME and len(r.payload) == 8:
            item["unix"] = int.from_bytes(r.payload, "little")
    item["link"] = _hex(link)
    if r.mac:
        item["mac"] = _hex(r.mac)  # the keyed chain: a host holding the board's key checks it
    return item


def _link_of(buf, pos, r):
    end = pos + r.size - jr.TRAILER_SIZE
    return buf[end : end + jr.LINK_SIZE]


def _raw(r, buf):
    # Each record encoded on its own: the reply is then joined from a few
    # pieces of ~150 bytes, never one list of hundreds (a 4 KB block the
    # board's fragmented heap may not have in one piece).
    return Raw(encode(record_fields(r, _link_of(buf, 0, r))))


def pushed(record, prev_hash):
    """(event name, fields) of a record just appended: its kind, and its fields."""
    r = jread.decode(record, 0, prev_hash, jr.peek_seq(record, 0))
    fields = record_fields(r, _link_of(record, 0, r))
    return fields.pop("kind"), fields


class _Reader:
    # Reads one segment file a record at a time from a given offset.
    def __init__(self, path, offset, prev, seq):
        self.f = open(path, "rb")
        self.f.seek(offset)
        self.offset = offset
        self.prev = prev  # chain hash before the next record
        self.seq = seq  # seq of the next record

    def next(self):
        head = self.f.read(2)
        if len(head) < 2:
            return None, None
        n = head[0] | head[1] << 8
        buf = head + self.f.read(n - 2) if n > 2 else head
        r = jread.decode(buf, 0, self.prev, self.seq)
        self.offset += r.size
        self.prev = r.hash
        self.seq += 1
        return r, buf

    def close(self):
        self.f.close()


def events(handlers, request):
    """The `events` reply: records after `since`, at most `limit`."""
    return page(handlers, request["since"], request.get("limit", PAGE_MAX))


def page(handlers, since, limit):
    """The `events` reply: records after `since`, at most `limit`."""
    if not 1 <= limit <= PAGE_MAX:
        raise LinkError("limit must be 1 to %d" % PAGE_MAX)
    if since < 0:
        raise LinkError("since must be 0 or more")
    journal = handlers.app.journal
    if journal is None:
        raise LinkError("this board keeps no journal")
    base = journal.dir
    last = journal.seq
    segments = journal.segments()
    staged = journal.staged
    first = segments[0][0] if segments else last - staged + 1
    reply = {"journal": journal.journal_id, "seq": last, "first": first if last else 0}
    out = []
    prev = None
    seq = max(since + 1, first)
    try:
        # Records in segment files.
        for segment in segments:
            if len(out) >= limit or seq > last:
                break
            start, end = segment[0], segment[1]
            if seq > end:
                continue
            reader = _open(handlers, journal, base, start, seq)
            try:
                while reader.seq <= end and len(out) < limit:
                    before = reader.prev
                    r, buf = reader.next()
                    if r is None:
                        break
                    if r.seq >= seq:
                        if prev is None:
                            prev = before
                        out.append(_raw(r, buf))
                        seq = r.seq + 1
                handlers.cursor = (journal.journal_id, reader.seq, start, reader.offset, reader.prev)
            finally:
                reader.close()
        # Staged records: slot 0 holds the one after the last segment's last.
        staged_first = last - staged + 1
        chain = journal._batch_prev
        for k in range(staged):
            if len(out) >= limit or seq > last:
                break
            with open(base + "/" + jr.slot_name(k), "rb") as f:
                buf = f.read()
            r = jread.decode(buf, 0, chain, staged_first + k)
            if r.seq >= seq:
                if prev is None:
                    prev = chain
                out.append(_raw(r, buf))
                seq = r.seq + 1
            chain = r.hash
    except jread.RecordError as e:
        raise LinkError("journal: " + str(e))
    except OSError as e:
        raise LinkError("journal unreadable (OSError %s)" % (e.args[0] if e.args else "?"))
    if out and seq - len(out) == 1:  # the page starts at the first record: the host needs the head
        with open(base + "/" + "head", "rb") as f:
            reply["head"] = _hex(f.read())
    reply["events"] = out
    reply["prev"] = _hex(prev) if prev is not None else None
    reply["next"] = seq - 1 if out else min(since, last)
    reply["more"] = reply["next"] < last
    return reply


def _open(handlers, journal, base, start, seq):
    """A reader of segment g<start> placed at the record `seq` or before it:
    at the end of the last page when it ended there, else at the segment's start."""
    path = base + "/g" + str(start)
    cursor = handlers.cursor
    if cursor is not None and cursor[0] == journal.journal_id and cursor[2] == start and cursor[1] <= seq:
        reader = _Reader(path, cursor[3], cursor[4], cursor[1])
    else:
        with open(path, "rb") as f:
            first, prev = jread.decode_segment_header(f.read(jr.SEGMENT_HEADER_SIZE))
        if first != start:
            raise LinkError("journal: segment g%d starts at record %d" % (start, first))
        reader = _Reader(path, jr.SEGMENT_HEADER_SIZE, prev, start)
    return reader
