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
"""

import json
import os
import sqlite3

from host_tools import HostToolError
from host_tools.floor.pg import schema
from host_tools.floor.progressive import messages

CATCH_UP_S = 5.0
_KINDS = sorted({str(code) for code in messages.KINDS} | set(messages.KINDS.values()))


def missed(recorder_path, seen):
    """[messages.Input] of the recorder's progressive records for which `seen(key)` is
    false, oldest received first; a malformed one is skipped (the recorder alerted on it).
    `recorder_path`: the recorder's SQLite, or its postgresql:// URL (oldest stored first)."""
    if schema.is_url(recorder_path):
        return _inputs(_pg_rows(recorder_path), seen)
    if not os.path.exists(recorder_path):
        return []
    db = sqlite3.connect("file:%s?mode=ro" % recorder_path, uri=True, timeout=10)
    try:
        rows = db.execute(
            "select tbl, board, journal, record from events where kind in (%s) order by received, rowid"
            % ",".join("?" * len(_KINDS)),
            _KINDS,
        ).fetchall()
    except sqlite3.Error:  # a recorder that has not made its tables yet
        return []
    finally:
        db.close()
    return _inputs(rows, seen)


def _pg_rows(url):
    try:
        conn = schema.connect(url)
    except HostToolError as e:  # the database away: the next look, CATCH_UP_S on
        schema.log("progressive catch-up: %s" % e)
        return []
    try:
        return conn.execute(
            "select tbl, board, journal, record from events where kind = any(%s) order by n", (_KINDS,)
        ).fetchall()
    except schema.driver().Error as e:
        schema.log("progressive catch-up: %s" % str(e).strip()[:160])
        return []
    finally:
        conn.close()


def _inputs(rows, seen):
    out = []
    for tbl, board, jid, text in rows:
        record = json.loads(text)
        if seen((tbl, board, jid, record.get("seq"))):
            continue
        try:
            out.append(messages.from_record(tbl, board, jid, record))
        except ValueError:
            continue
    return out
