"""The progressive records the controller missed on the bus, from the recorder's copy.

The broker keeps the controller's session and queues what arrives while it
is away, but a broker killed between two saves (docs/floor.md: autosave
every 5 s) forgets what it queued; the table's gateway publishes those
records again only if the *recorder* lacks them. So on every connection to
the broker, and every CATCH_UP_S while connected, the controller reads the
recorder's SQLite (read only, as the page does: host_tools/floor/page/recorded.py),
or the floor's record on PostgreSQL (`floor progressive --db postgresql://…`),
for progressive records it has not taken, and takes them in the order the
recorder received (on PostgreSQL: stored) them. The recorder stored each only after checking its
chain; a copy of a record the controller already took is dropped as always.
Each is keyed with its table's board-erased step (floor_copy.py), so an erased
board's new journal, stored from record 1 after the step, is taken in full.
A record from the bus that waits for the recorder's copy brings the next look
forward to SOON_S.
"""

import json

from host_tools.floor.pg import schema
from host_tools.floor.progressive import floor_copy, messages

CATCH_UP_S = 5.0
SOON_S = 0.3  # the next look when a record from the bus waits for the recorder's copy


def missed(where, seen):
    """[messages.Input] of the recorder's progressive records for which `seen(key)` is
    false, oldest received first, each with its epoch (floor_copy.py); a malformed one is
    skipped (the recorder alerted on it). `where`: a floor_copy.Copy, or the recorder's
    SQLite, or its postgresql:// URL (oldest stored first)."""
    location = where.where if isinstance(where, floor_copy.Copy) else where
    order = "n" if schema.is_url(location) else "received, rowid"
    sql = "select tbl, board, journal, record, %s from events where kind in (%s) order by %s" % (
        floor_copy.EPOCH_OF_EVENT,
        ",".join("?" * len(floor_copy.KINDS)),
        order,
    )
    got = floor_copy.read(where, [(sql, floor_copy.KINDS)])
    return [] if got is None else _inputs(got[0], seen)


def _inputs(rows, seen):
    out = []
    for tbl, board, jid, text, epoch in rows:
        record = json.loads(text)
        if seen((tbl, board, jid, record.get("seq"), epoch)):
            continue
        try:
            inp = messages.from_record(tbl, board, jid, record)
        except ValueError:
            continue
        inp.epoch = epoch
        out.append(inp)
    return out
