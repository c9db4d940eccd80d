"""The recorder's store on PostgreSQL: the same calls as the SQLite store
(host_tools/floor/recorder/store.py), for `recorder --db postgresql://…`.

The exactly-once key (table, board, journal, seq) is the events table's
primary key, so recorders on several machines can run against one database:
each checks a record's chain against what is stored, and whichever inserts
it first stores it; the other's insert does nothing (`on conflict do
nothing`). The recorder's messages that arrived together are one
transaction (`batch`), committed before it acknowledges any of them to the
broker; a record that continues the one stored before it is checked and
inserted in one statement (`add_next`), so a batch costs one commit and
about one round trip a record.

The server going away is waited out, not fatal: a statement that fails on a
lost connection is tried again on a new one every half second (each write is
idempotent), and a batch is done again whole, while the broker keeps the
unacknowledged messages. A batch that loses a deadlock to another recorder's
is done again at once. The newest journal of a table is the one whose record
was inserted last (the `n` column), not the one with the latest clock, since
recorders' clocks differ.
"""

import json
import threading
import time

from host_tools import HostToolError
from host_tools.floor.pg import schema

RETRY_S = 0.5


class PgStore:
    def __init__(self, url, readonly=False, retry=True):
        self.url = url
        self.readonly = readonly
        self.retry = retry and not readonly  # a reader (a CLI, the page) says so at once instead
        self.lock = threading.RLock()
        self.conn = schema.connect(url)
        schema.check(self.conn, url)
        psycopg = schema.driver()
        # OperationalError holds TransactionRollback (a deadlock, a serialisation failure): done again too
        self._errors = psycopg.OperationalError, psycopg.InterfaceError
        self._rollback = psycopg.errors.TransactionRollback
        # what the server says of a message's data itself (a NUL in a text, a journal number past
        # an integer): done again it fails again, so the message is refused, not retried
        self.refusals = (psycopg.DataError, psycopg.IntegrityError)
        self._in_batch = False
        self.db = _Compat(self)

    def close(self):
        self.conn.close()

    def _run(self, sql, args=(), fetch=None):
        """One statement; fetch "one", "all" or None (the row count). On a
        lost server a writer waits and tries again on a new connection."""
        if self._in_batch:  # a statement of a batch is not done again alone: batch() does the whole again
            return self._fetch(self.conn.execute(sql, args), fetch)
        said = False
        while True:
            try:
                if self.conn.closed:
                    self.conn = schema.connect(self.url)
                return self._fetch(self.conn.execute(sql, args), fetch)
            except self._errors + (HostToolError,) as e:
                said = self._lost(e, said)

    @staticmethod
    def _fetch(cur, fetch):
        if fetch == "one":
            return cur.fetchone()
        if fetch == "all":
            return cur.fetchall()
        return cur.rowcount

    def _lost(self, e, said):
        """After a lost server: raise for a reader; else say so once, drop the connection, wait. True: said."""
        if not self.retry:
            raise e
        if not said:
            schema.log("lost %s (%s): trying again" % (schema.redacted(self.url), str(e).strip()[:160]))
        try:
            self.conn.close()
        except Exception:
            pass
        time.sleep(RETRY_S)
        return True

    def batch(self, work):
        """work()'s statements in one transaction, committed when it returns; its result. On a
        lost server, or a deadlock lost to another recorder, the transaction is rolled back and
        work() runs again whole (it must say nothing outside the database until this returns)."""
        said = False
        while True:
            try:
                if self.conn.closed:
                    self.conn = schema.connect(self.url)
                with self.conn.transaction():
                    self._in_batch = True
                    try:
                        result = work()
                    finally:
                        self._in_batch = False
                return result
            except self._rollback:
                continue  # the server chose this batch to undo; the other's holds its keys no longer
            except self._errors + (HostToolError,) as e:
                said = self._lost(e, said)

    # ---- events ---------------------------------------------------------------------

    def stored(self, tbl, board, journal, seq):
        """(link, hash, prev) of a stored record, or None."""
        row = self._run(
            "select link, hash, prev from events where tbl=%s and board=%s and journal=%s and seq=%s",
            (tbl, board, journal, seq),
            "one",
        )
        return tuple(row) if row else None

    def around(self, tbl, board, journal, seq):
        """{n: (link, hash, prev)} of the stored records seq-1, seq and seq+1: what placing
        record `seq` checks, in one round trip to the server rather than three."""
        rows = self._run(
            "select seq, link, hash, prev from events where tbl=%s and board=%s and journal=%s"
            " and seq between %s and %s",
            (tbl, board, journal, seq - 1, seq + 1),
            "all",
        )
        return {r[0]: tuple(r[1:]) for r in rows}

    def add_event(self, tbl, board, journal, record, digest, prev):
        """True when this call stored it; False when it was stored already (by another recorder)."""
        return bool(
            self._run(
                "insert into events (tbl, board, journal, seq, t, kind, link, hash, prev, record, received)"
                " values (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) on conflict on constraint events_once do nothing",
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
        )

    def add_next(self, tbl, board, journal, record, digest, prev):
        """Store `record` if it continues the stored record before it (whose hash is `prev`)
        and neither it nor the one after it is stored: the usual case, checked and inserted in
        one round trip. (placed, the waiting record after it as waiting() gives it, or None);
        not placed, the caller reads around() and judges."""
        row = self._run(
            "with ins as (insert into events (tbl, board, journal, seq, t, kind, link, hash, prev, record, received)"
            " select %(tbl)s, %(board)s, %(journal)s, %(seq)s, %(t)s, %(kind)s, %(link)s, %(hash)s, %(prev)s,"
            " %(record)s, %(received)s where exists (select 1 from events where tbl=%(tbl)s and board=%(board)s"
            " and journal=%(journal)s and seq=%(seq)s - 1 and hash=%(prev)s) and not exists (select 1 from events"
            " where tbl=%(tbl)s and board=%(board)s and journal=%(journal)s and seq=%(seq)s + 1)"
            " on conflict on constraint events_once do nothing returning 1)"
            " select (select count(*) from ins), w.record, w.hash, w.prev from (select 1) one left join waiting w"
            " on w.tbl=%(tbl)s and w.board=%(board)s and w.journal=%(journal)s and w.seq=%(seq)s + 1",
            {
                "tbl": tbl,
                "board": board,
                "journal": journal,
                "seq": record["seq"],
                "t": record.get("t"),
                "kind": str(record.get("kind")),
                "link": record["link"],
                "hash": digest.hex(),
                "prev": prev,
                "record": json.dumps(record, sort_keys=True),
                "received": time.time(),
            },
            "one",
        )
        if not row[0]:
            return False, None
        return True, None if row[1] is None else (json.loads(row[1]), row[2], row[3])

    def add_waiting(self, tbl, board, journal, record, digest, prev):
        """A record whose MAC is the board's, held until the record before it is stored."""
        self._run(
            "insert into waiting values (%s,%s,%s,%s,%s,%s,%s,%s) on conflict on constraint waiting_once do update"
            " set hash=excluded.hash, prev=excluded.prev, record=excluded.record, received=excluded.received",
            (tbl, board, journal, record["seq"], digest.hex(), prev, json.dumps(record, sort_keys=True), time.time()),
        )

    def waiting(self, tbl, board, journal, seq):
        """(record, hash, prev) of a waiting record, or None."""
        row = self._run(
            "select record, hash, prev from waiting where tbl=%s and board=%s and journal=%s and seq=%s",
            (tbl, board, journal, seq),
            "one",
        )
        return None if row is None else (json.loads(row[0]), row[1], row[2])

    def drop_waiting(self, tbl, board, journal, seq):
        self._run("delete from waiting where tbl=%s and board=%s and journal=%s and seq=%s", (tbl, board, journal, seq))

    def gaps(self):
        """[(tbl, board, journal, from, to)]: the records missing before each journal's first waiting one."""
        out = []
        for key in self._run("select distinct tbl, board, journal from waiting", (), "all"):
            key = tuple(key)
            # Stored meanwhile (by the other recorder on this database): no longer waiting.
            self._run(
                "delete from waiting w where tbl=%s and board=%s and journal=%s and exists (select 1 from events e"
                " where e.tbl=w.tbl and e.board=w.board and e.journal=w.journal and e.seq=w.seq)",
                key,
            )
            low = self._run("select min(seq) from waiting where tbl=%s and board=%s and journal=%s", key, "one")[0]
            if low is not None:
                # the records missing before the first one waiting: those after the highest held below it
                below = (
                    self._run(
                        "select max(seq) from events where tbl=%s and board=%s and journal=%s and seq<%s",
                        key + (low,),
                        "one",
                    )[0]
                    or 0
                )
                out.append(key + (below + 1, low - 1))
        return out

    def last_journal(self, tbl):
        """(board, journal, highest seq) of the table's newest journal, or None."""
        row = self._run(
            "select board, journal, max(seq) from events where tbl=%s group by board, journal"
            " order by max(n) desc limit 1",
            (tbl,),
            "one",
        )
        return tuple(row) if row else None

    def max_seq(self, tbl, board, journal):
        return self._run(
            "select max(seq) from events where tbl=%s and board=%s and journal=%s", (tbl, board, journal), "one"
        )[0]

    def contiguous(self, tbl, board, journal):
        """The highest seq up to which the floor holds every record from the
        journal's first one it holds, and the holes above it [(from, to)]."""
        low, high, count = self._run(
            "select min(seq), max(seq), count(*) from events where tbl=%s and board=%s and journal=%s",
            (tbl, board, journal),
            "one",
        )
        if not count:
            return 0, []
        if high - low + 1 == count:
            return high, []
        seqs = [
            r[0]
            for r in self._run(
                "select seq from events where tbl=%s and board=%s and journal=%s order by seq",
                (tbl, board, journal),
                "all",
            )
        ]
        holes = [(a + 1, b - 1) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
        return holes[0][0] - 1, holes

    def journals(self, tbl=None):
        q = "select tbl, board, journal, min(seq), max(seq), count(*) from events"
        q += " where tbl=%s group by tbl, board, journal" if tbl else " group by tbl, board, journal"
        return [tuple(r) for r in self._run(q, (tbl,) if tbl else (), "all")]

    def events(self, tbl, since=0, journal=None):
        q = "select tbl, board, journal, seq, record, received from events where tbl=%s and seq>%s"
        args = [tbl, since]
        if journal is not None:
            q += " and journal=%s"
            args.append(journal)
        return [tuple(r) for r in self._run(q + " order by journal, seq", args, "all")]

    def tables_with_events(self):
        return [r[0] for r in self._run("select distinct tbl from events", (), "all")]

    # ---- a board erased -------------------------------------------------------------

    def erase(self, tbl, board, by, signed_at, nonce, held):
        """As the SQLite store's: one statement, so the step and its archive commit
        together, and a second recorder taking the same step (its nonce) does nothing."""
        row = self._run(
            "with step as (insert into erased (at, tbl, board, technician, signed_at, nonce, journal, seq)"
            " values (%s,%s,%s,%s,%s,%s,%s,%s) on conflict (nonce) do nothing returning id),"
            " moved as (delete from events where tbl=%s and board=%s and exists (select 1 from step)"
            " returning tbl, board, journal, seq, t, kind, link, hash, prev, record, received),"
            " kept as (insert into archived_events select (select id from step), moved.* from moved returning 1),"
            " dropped as (delete from waiting where tbl=%s and board=%s and exists (select 1 from step))"
            " select id, (select count(*) from kept) from step",
            (time.time(), tbl, board, by, signed_at, nonce) + tuple(held) + (tbl, board, tbl, board),
            "one",
        )
        if row is None:
            return None
        self._run("update erased set archived=%s where id=%s", (row[1], row[0]))
        return row[0]

    def last_erased(self, tbl):
        """(step, board) of the table's newest board-erased step, or None."""
        row = self._run("select id, board from erased where tbl=%s order by id desc limit 1", (tbl,), "one")
        return tuple(row) if row else None

    def erasures(self, tbl=None):
        q = "select id, at, tbl, board, technician, signed_at, journal, seq, archived from erased"
        rows = self._run(q + (" where tbl=%s" if tbl else "") + " order by id", (tbl,) if tbl else (), "all")
        names = ("step", "at", "table", "board", "by", "signed_at", "journal", "seq", "archived")
        return [dict(zip(names, r)) for r in rows]

    def archived(self, tbl):
        """(step, tbl, board, journal, seq, record, received) of the table's archived records, oldest step first."""
        return [
            tuple(r)
            for r in self._run(
                "select erased, tbl, board, journal, seq, record, received from archived_events where tbl=%s"
                " order by erased, journal, seq",
                (tbl,),
                "all",
            )
        ]

    # ---- tables and alerts ----------------------------------------------------------

    def set_table(self, tbl, presence=None, state=None):
        now = time.time()
        self._run(
            "insert into tables values (%s, %s, %s, %s) on conflict (tbl) do update set"
            " presence=coalesce(excluded.presence, tables.presence), state=coalesce(excluded.state, tables.state),"
            " updated=excluded.updated",
            (tbl, presence, json.dumps(state, sort_keys=True) if state is not None else None, now),
        )

    def tables(self):
        return {
            r[0]: {"presence": r[1], "state": json.loads(r[2]) if r[2] else None, "updated": r[3]}
            for r in self._run("select tbl, presence, state, updated from tables order by tbl", (), "all")
        }

    def add_alert(self, tbl, kind, text, key=None):
        """The new alert's id, or None when one with `key` was raised already (by either recorder)."""
        row = self._run(
            "insert into alerts (at, tbl, kind, text, key) values (%s,%s,%s,%s,%s)"
            " on conflict (key) do nothing returning id",
            (time.time(), tbl, kind, text, key),
            "one",
        )
        return row[0] if row else None

    def alerts(self, tbl=None):
        q = "select id, at, tbl, kind, text from alerts" + (" where tbl=%s" if tbl else "") + " order by id"
        rows = self._run(q, (tbl,) if tbl else (), "all")
        return [dict(zip(("id", "at", "table", "kind", "text"), r)) for r in rows]


class _Compat:
    """`store.db.execute(sql, args)` with SQLite's `?` placeholders, for the
    few readers (the benches, the tests) that query the store directly."""

    def __init__(self, store):
        self.store = store

    def execute(self, sql, args=()):
        return _Rows(self.store._run(sql.replace("?", "%s"), args, "all"))


class _Rows(list):
    def fetchone(self):
        return self[0] if self else None

    def fetchall(self):
        return list(self)
