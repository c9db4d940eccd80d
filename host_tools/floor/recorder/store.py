"""The floor recorder's SQLite: every event once, each table's chain, its
last state and presence, and the alerts raised (docs/floor.md, Recorder).

An event is keyed by (table, board, journal, seq): the same record twice is
stored once. A record is stored only if its own chain link matches its fields
and it continues the floor's copy of the chain (the hash of the record before
it, when the floor has that one); a record the floor already holds with
another link is not stored and is an alert: the board's journal differs from
the floor's copy.

A board whose flash was erased starts its journals again; the technician's
`board-erased` step (base/erasure.py) moves the table's records of that board
into `archived_events` under the step's number, kept and exportable, and the
step itself is a row of `erased` (who, when, what the floor held).

Each write is its own transaction, except inside `batch`: the recorder's
messages that arrived together, one transaction, one commit (one sync of
the file with `synchronous=full`) before any of them is acknowledged.
"""

import contextlib
import json
import sqlite3
import threading
import time

from host_tools.floor.base import sqlite_file

SCHEMA = """
create table if not exists events (tbl text, board text, journal integer, seq integer, t integer, kind text,
    link text, hash text, prev text, record text, received real, primary key (tbl, board, journal, seq));
create table if not exists waiting (tbl text, board text, journal integer, seq integer, hash text, prev text,
    record text, received real, primary key (tbl, board, journal, seq));
create table if not exists tables (tbl text primary key, presence text, state text, updated real);
create table if not exists alerts (id integer primary key autoincrement, at real, tbl text, kind text,
    text text, key text unique);
create table if not exists erased (id integer primary key autoincrement, at real, tbl text, board text, technician text,
    signed_at integer, nonce text unique, journal integer, seq integer, archived integer);
create table if not exists archived_events (erased integer, tbl text, board text, journal integer, seq integer,
    t integer, kind text, link text, hash text, prev text, record text, received real,
    primary key (erased, tbl, board, journal, seq));
"""
EVENT_COLUMNS = "tbl, board, journal, seq, t, kind, link, hash, prev, record, received"


class NotRecorderDatabase(Exception):
    """A file read as the recorder's that has no events table, or is not SQLite."""


class Store:
    def __init__(self, path, readonly=False):
        if not readonly:
            sqlite_file.create_whole(path, SCHEMA)
        uri = "file:%s%s" % (path, "?mode=ro" if readonly else "")
        self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=10)
        self.lock = threading.RLock()
        # a message's data refused (a journal number past 64 bits): done again it fails again; a
        # locked or full database is not the message's fault and stops the recorder instead
        self.refusals = (sqlite3.DataError, sqlite3.IntegrityError, sqlite3.InterfaceError, OverflowError)
        self._in_batch = False
        if not readonly:
            self.db.execute("pragma journal_mode=wal")
            self.db.execute("pragma synchronous=full")
            self.db.executescript(SCHEMA)
            return
        try:
            self.db.execute("select 1 from events limit 1").fetchall()
        except sqlite3.DatabaseError as e:
            self.db.close()
            raise NotRecorderDatabase("%s is not a recorder's database (%s)" % (path, e)) from None

    def close(self):
        self.db.close()

    @contextlib.contextmanager
    def _write(self):
        """One write's transaction, or none inside a batch (the batch's is the one)."""
        if self._in_batch:
            yield
            return
        with self.db:
            self.db.execute("begin")
            yield

    def batch(self, work):
        """work()'s writes in one transaction, committed when it returns; its result.
        On an error nothing of it is kept."""
        with self.db:
            self.db.execute("begin")
            self._in_batch = True
            try:
                return work()
            finally:
                self._in_batch = False

    # ---- events ---------------------------------------------------------------------

    def stored(self, tbl, board, journal, seq):
        """(link, hash, prev) of a stored record, or None."""
        return self.db.execute(
            "select link, hash, prev from events where tbl=? and board=? and journal=? and seq=?",
            (tbl, board, journal, seq),
        ).fetchone()

    def around(self, tbl, board, journal, seq):
        """{n: (link, hash, prev)} of the stored records seq-1, seq and seq+1: what placing
        record `seq` checks, read in one statement."""
        rows = self.db.execute(
            "select seq, link, hash, prev from events where tbl=? and board=? and journal=? and seq between ? and ?",
            (tbl, board, journal, seq - 1, seq + 1),
        )
        return {r[0]: tuple(r[1:]) for r in rows}

    def add_event(self, tbl, board, journal, record, digest, prev):
        with self._write():
            self.db.execute(
                "insert into events values (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    tbl,
                    board,
                    journal,
                    record["seq"],
                    record.get("t"),
                    str(record.get("kind")),
                    record["link"],
                    digest.hex(),
                    prev,
                    json.dumps(record, sort_keys=True),
                    time.time(),
                ),
            )

    def add_next(self, tbl, board, journal, record, digest, prev):
        """As the PostgreSQL store's: store `record` if it continues the stored record before
        it (whose hash is `prev`) and neither it nor the one after it is stored. (placed, the
        waiting record after it or None). In-process reads cost little: the checks are around()'s."""
        seq = record["seq"]
        near = self.around(tbl, board, journal, seq)
        before = near.get(seq - 1)
        if seq in near or seq + 1 in near or before is None or before[1] != prev:
            return False, None
        self.add_event(tbl, board, journal, record, digest, prev)
        return True, self.waiting(tbl, board, journal, seq + 1)

    def add_waiting(self, tbl, board, journal, record, digest, prev):
        """A record whose MAC is the board's, held until the record before it is stored."""
        with self._write():
            self.db.execute(
                "insert or replace into waiting values (?,?,?,?,?,?,?,?)",
                (
                    tbl,
                    board,
                    journal,
                    record["seq"],
                    digest.hex(),
                    prev,
                    json.dumps(record, sort_keys=True),
                    time.time(),
                ),
            )

    def waiting(self, tbl, board, journal, seq):
        """(record, hash, prev) of a waiting record, or None."""
        row = self.db.execute(
            "select record, hash, prev from waiting where tbl=? and board=? and journal=? and seq=?",
            (tbl, board, journal, seq),
        ).fetchone()
        return None if row is None else (json.loads(row[0]), row[1], row[2])

    def drop_waiting(self, tbl, board, journal, seq):
        with self._write():
            self.db.execute(
                "delete from waiting where tbl=? and board=? and journal=? and seq=?", (tbl, board, journal, seq)
            )

    def gaps(self):
        """[(tbl, board, journal, from, to)]: the records missing before each journal's first waiting one."""
        out = []
        for key in self.db.execute("select distinct tbl, board, journal from waiting").fetchall():
            with self._write():  # stored meanwhile (the record came again): no longer waiting
                self.db.execute(
                    "delete from waiting where tbl=? and board=? and journal=? and exists (select 1 from events e"
                    " where e.tbl=waiting.tbl and e.board=waiting.board and e.journal=waiting.journal"
                    " and e.seq=waiting.seq)",
                    key,
                )
            first = "select min(seq) from waiting where tbl=? and board=? and journal=?"
            low = self.db.execute(first, key).fetchone()[0]
            if low is not None:
                # the records missing before the first one waiting: those after the highest held below it
                below = (
                    self.db.execute(
                        "select max(seq) from events where tbl=? and board=? and journal=? and seq<?", key + (low,)
                    ).fetchone()[0]
                    or 0
                )
                out.append(key + (below + 1, low - 1))
        return out

    def last_journal(self, tbl):
        """(board, journal, highest seq) of the table's newest journal, or None."""
        return self.db.execute(
            "select board, journal, max(seq) from events where tbl=? group by board, journal "
            "order by max(received) desc limit 1",
            (tbl,),
        ).fetchone()

    def max_seq(self, tbl, board, journal):
        row = self.db.execute(
            "select max(seq) from events where tbl=? and board=? and journal=?", (tbl, board, journal)
        ).fetchone()
        return row[0]

    def contiguous(self, tbl, board, journal):
        """The highest seq up to which the floor holds every record from the
        journal's first one it holds, and the holes above it [(from, to)]."""
        low, high, count = self.db.execute(
            "select min(seq), max(seq), count(*) from events where tbl=? and board=? and journal=?",
            (tbl, board, journal),
        ).fetchone()
        if not count:
            return 0, []
        if high - low + 1 == count:  # the usual case, from the primary key's index alone
            return high, []
        seqs = [
            r[0]
            for r in self.db.execute(
                "select seq from events where tbl=? and board=? and journal=? order by seq", (tbl, board, journal)
            )
        ]
        holes = [(a + 1, b - 1) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
        return holes[0][0] - 1, holes

    def journals(self, tbl=None):
        q = "select tbl, board, journal, min(seq), max(seq), count(*) from events"
        q += " where tbl=? group by tbl, board, journal" if tbl else " group by tbl, board, journal"
        return self.db.execute(q, (tbl,) if tbl else ()).fetchall()

    def events(self, tbl, since=0, journal=None):
        q = "select tbl, board, journal, seq, record, received from events where tbl=? and seq>?"
        args = [tbl, since]
        if journal is not None:
            q += " and journal=?"
            args.append(journal)
        return self.db.execute(q + " order by journal, seq", args)

    # ---- a board erased -------------------------------------------------------------

    def erase(self, tbl, board, by, signed_at, nonce, held):
        """The board-erased step: its row, and every record of `board` at `tbl` moved
        to `archived_events` under it, in one transaction. `held` (journal, seq): what
        the floor had received of the board's newest journal. The step's number, or
        None when a step with this nonce was taken already."""
        with self._write():
            cur = self.db.execute(
                "insert or ignore into erased (at, tbl, board, technician, signed_at, nonce, journal, seq, archived)"
                " values (?,?,?,?,?,?,?,?,0)",
                (time.time(), tbl, board, by, signed_at, nonce) + tuple(held),
            )
            if not cur.rowcount:
                return None
            step = cur.lastrowid
            moved = self.db.execute(
                "insert into archived_events select ?, %s from events where tbl=? and board=?" % EVENT_COLUMNS,
                (step, tbl, board),
            ).rowcount
            self.db.execute("delete from events where tbl=? and board=?", (tbl, board))
            self.db.execute("delete from waiting where tbl=? and board=?", (tbl, board))
            self.db.execute("update erased set archived=? where id=?", (moved, step))
            return step

    def last_erased(self, tbl):
        """(step, board) of the table's newest board-erased step, or None."""
        return self.db.execute("select id, board from erased where tbl=? order by id desc limit 1", (tbl,)).fetchone()

    def erasures(self, tbl=None):
        q = "select id, at, tbl, board, technician, signed_at, journal, seq, archived from erased"
        rows = self.db.execute(q + (" where tbl=?" if tbl else "") + " order by id", (tbl,) if tbl else ())
        names = ("step", "at", "table", "board", "by", "signed_at", "journal", "seq", "archived")
        return [dict(zip(names, r)) for r in rows]

    def archived(self, tbl):
        """(step, tbl, board, journal, seq, record, received) of the table's archived records, oldest step first."""
        return self.db.execute(
            "select erased, tbl, board, journal, seq, record, received from archived_events where tbl=?"
            " order by erased, journal, seq",
            (tbl,),
        ).fetchall()

    # ---- tables and alerts ----------------------------------------------------------

    def set_table(self, tbl, presence=None, state=None):
        with self._write():
            self.db.execute("insert or ignore into tables values (?, null, null, ?)", (tbl, time.time()))
            if presence is not None:
                self.db.execute("update tables set presence=?, updated=? where tbl=?", (presence, time.time(), tbl))
            if state is not None:
                self.db.execute(
                    "update tables set state=?, updated=? where tbl=?",
                    (json.dumps(state, sort_keys=True), time.time(), tbl),
                )

    def tables(self):
        return {
            r[0]: {"presence": r[1], "state": json.loads(r[2]) if r[2] else None, "updated": r[3]}
            for r in self.db.execute("select tbl, presence, state, updated from tables order by tbl")
        }

    def add_alert(self, tbl, kind, text, key=None):
        """The new alert's row id, or None when one with `key` was raised already."""
        with self._write():
            cur = self.db.execute(
                "insert or ignore into alerts (at, tbl, kind, text, key) values (?,?,?,?,?)",
                (time.time(), tbl, kind, text, key),
            )
            return cur.lastrowid if cur.rowcount else None

    def alerts(self, tbl=None):
        q = "select id, at, tbl, kind, text from alerts" + (" where tbl=?" if tbl else "") + " order by id"
        return [dict(zip(("id", "at", "table", "kind", "text"), r)) for r in self.db.execute(q, (tbl,) if tbl else ())]
