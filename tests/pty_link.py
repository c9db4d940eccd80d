"""The firmware's link core (crapsboard.link.link.Link, the real one) served on a
pseudo-terminal from a thread, so host_tools talks to it through real pyserial.

This is not the virtual board (python -m sim device runs the whole app under
the MicroPython VM); it is the protocol core alone, for the host's framing,
signing, paging and error paths. `journal_events(records)` is an `events`
handler over records made with the firmware's record codec.
"""

import os
import pty
import select
import threading
import tty

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.link import link as lk
from crapsboard.link import link_events


class PtyLink:
    def __init__(self, link, before_reply=b""):
        self.link = link
        self.before_reply = before_reply  # bytes written before every reply (boot text, events)
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.received = bytearray()
        self.silent = False  # True: read requests, answer nothing
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                continue  # the host closed its end; it may open it again
            self.received += data
            if self.silent:
                continue
            out = self.link.feed(data)
            if out:
                os.write(self.master, self.before_reply + out)

    def push(self, data):
        os.write(self.master, data)

    def close(self):
        self._stop = True
        self._thread.join()
        os.close(self.master)
        os.close(self.slave)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


BOARD_KEY = bytes(range(32))  # the board's link key (tests/test_host_link.py's KEY)
MAC = jr.Mac(jread.journal_key(BOARD_KEY))  # its journal key: the keyed chain
HEAD = jr.encode_head(b"ab", 1, 0, MAC.key_id())  # a journal head file (format 2): board "ab", journal 1


def make_records(n, head=HEAD, first=1, times=None, mac=MAC):
    """[(seq, record bytes, chain hash before it)] of `n` rolls, a chain from
    `head` (keyed with `mac` when the head is format 2); `times`: each
    record's t (32 bits, the board's journal clock)."""
    chain = jr.genesis(head)
    if jread.head_format(head) < 2:
        mac = None
    out = []
    for seq in range(first, first + n):
        dice = (seq % 6 + 1) * 8 + (seq * 5 % 6 + 1)
        t = 1000 * seq if times is None else times[seq - first]
        data, digest = jr.encode(chain, seq, t, jr.ROLL, dice, b"", b"", mac)
        out.append((seq, data, chain))
        chain = digest
    return out


def journal_events(records, page_max=8, tamper=None, head=None):
    """An `events` handler over `records` (a list that may grow) with the board's
    reply (firmware link_events: each record's fields by record_fields, the chain
    hash before the page, `next`, `more`); `tamper(fields)` may change a record's
    fields on the way, as a faulty or forged board would; `head`: the journal's
    head file, sent with a page that starts at record 1."""

    def fields(seq, data, prev):
        try:  # a format 2 record (make_records' default), else format 1 (an old journal's)
            r, fmt = jread.decode(data, 0, prev, seq, 2), 2
        except jread.RecordError:
            r, fmt = jread.decode(data, 0, prev, seq, 1), 1
        trailer = jr.TRAILER_SIZE if fmt == 2 else jr.TRAILER_SIZE_V1
        item = link_events.record_fields(r, data[r.size - trailer : r.size - trailer + jr.LINK_SIZE])
        if tamper:
            tamper(item)
        return item

    def handler(request):
        since = request["since"]
        limit = min(request.get("limit", page_max), page_max)
        if limit < 1:
            raise lk.LinkError("limit must be at least 1")
        after = [r for r in records if r[0] > since]
        page = after[:limit]
        reply = {
            "events": [fields(*record) for record in page],
            "next": page[-1][0] if page else since,
            "more": len(after) > limit,
        }
        if page:
            reply["prev"] = page[0][2].hex()
            if page[0][0] == 1 and head is not None:
                reply["head"] = head.hex()  # as the board sends it with a page from record 1
        return reply

    return handler
