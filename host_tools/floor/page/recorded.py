"""The page's two SQLite files: the recorder's copy of the floor (read only) and the page's own audit.

The alerts are folded from the floor's verified copy, never from the raw
bus: the recorder stores each record once, in order, with its chain checked
(host_tools/floor/recorder/service.py), and says on `table/<t>/recorded` how far a
table's journal is complete. The page then reads the new records from the
recorder's SQLite. A forged or out-of-order message on the bus never reaches
the alerts, and a page restarted folds the same history to the same alerts.
A file that cannot be read yet (not made, or SQLite refusing the read) reads
as nothing new, with one line on stderr; the page reads again each second
until it holds what the last `recorded` said (floorview.py).

The page's own file (DIR/page.sqlite) keeps what people did: each
acknowledgement and each refusal, so they survive a restart of the page.
"""

import json
import os
import sqlite3
import sys
import threading

from host_tools.floor.base.read_trouble import ReadTrouble


class RecordedCopy:
    """Read-only access to the recorder's events (DIR/recorder.sqlite)."""

    def __init__(self, path):
        self.path = path
        self.db = None
        self.lock = threading.Lock()
        self.trouble = ReadTrouble(path, lambda text: print("page: " + text, file=sys.stderr, flush=True))

    def _rows(self, sql, args):
        with self.lock:
            try:
                if self.db is None:
                    if not os.path.exists(self.path):
                        return []
                    self.db = sqlite3.connect(
                        "file:%s?mode=ro" % self.path, uri=True, check_same_thread=False, timeout=10
                    )
                rows = self.db.execute(sql, args).fetchall()
            except sqlite3.Error as e:
                if self.db is not None:
                    self.db.close()
                    self.db = None
                self.trouble.failed(str(e).strip() or type(e).__name__)
                return []
            self.trouble.worked()
            return rows

    def records(self, table, board, journal, after, upto):
        """[(record, received)] of one journal, seq in (after, upto], in order."""
        rows = self._rows(
            "select record, received from events where tbl=? and board=? and journal=? and seq>? and seq<=?"
            " order by seq",
            (table, board, journal, after, upto),
        )
        return [(json.loads(r), received) for r, received in rows]

    def table_records(self, table):
        """[(record, received)] of every journal of `table`, oldest journal first."""
        rows = self._rows("select record, received from events where tbl=? order by journal, seq", (table,))
        return [(json.loads(r), received) for r, received in rows]

    def close(self):
        with self.lock:
            if self.db is not None:
                self.db.close()
                self.db = None


class PeopleLog:
    """DIR/page.sqlite: every acknowledgement and refusal, in order."""

    SCHEMA = (
        "create table if not exists audit (n integer primary key autoincrement, at real, action text,"
        " alert text, user text, role text, for_role text, note text, reason text)"
    )

    def __init__(self, path):
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute(self.SCHEMA)
        self.lock = threading.Lock()

    def add(self, entry):
        with self.lock:
            self.db.execute(
                "insert into audit (at, action, alert, user, role, for_role, note, reason) values (?,?,?,?,?,?,?,?)",
                tuple(entry.get(k) for k in ("at", "action", "alert", "user", "role", "for_role", "note", "reason")),
            )

    def entries(self):
        with self.lock:
            rows = self.db.execute(
                "select at, action, alert, user, role, for_role, note, reason from audit order by n"
            ).fetchall()
        keys = ("at", "action", "alert", "user", "role", "for_role", "note", "reason")
        return [dict(zip(keys, r)) for r in rows]

    def close(self):
        with self.lock:
            self.db.close()
