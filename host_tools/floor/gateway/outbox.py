"""The gateway's outbox: the board's records fetched and not yet confirmed by
the broker, in SQLite on the host (docs/floor.md, Gateway).

A record is fetched from the board into `records` with `sent` 0, in the same
transaction as the cursor (the last record fetched and the chain hash after
it); it is marked sent only once the broker's PUBACK for it came back. A
gateway killed at any point restarts from here: unsent records are published
again (the recorder drops the copies), nothing is fetched twice or skipped.

After a technician's board-erased step (the recorder's `recorded` names it)
the outbox starts again: the old journal's records and the cursor go, the
step's number is kept, and the board's new journal is fetched from its first
record.
"""

import sqlite3

SCHEMA = """
create table if not exists records (journal integer, seq integer, payload blob not null, sent integer not null,
                                    primary key (journal, seq));
create table if not exists cursor (one integer primary key check (one = 1), board text, journal integer,
                                   seq integer, chain text);
create table if not exists erased (one integer primary key check (one = 1), step integer);
"""


class Outbox:
    def __init__(self, path):
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("pragma synchronous=full")
        self.db.executescript(SCHEMA)

    def cursor(self):
        """(board, journal, seq, chain hex) of the last record fetched, or None."""
        row = self.db.execute("select board, journal, seq, chain from cursor").fetchone()
        return tuple(row) if row else None

    def add(self, board, journal, rows, seq, chain):
        """Keep `rows` [(seq, payload)] and move the cursor, in one transaction."""
        with self.db:
            self.db.execute("begin")
            self.db.executemany(
                "insert or replace into records values (?, ?, ?, 0)", [(journal, s, p) for s, p in rows]
            )
            self.db.execute("insert or replace into cursor values (1, ?, ?, ?, ?)", (board, journal, seq, chain))

    def move(self, board, journal, seq, chain):
        with self.db:
            self.db.execute("begin")
            self.db.execute("insert or replace into cursor values (1, ?, ?, ?, ?)", (board, journal, seq, chain))

    def unsent(self, limit):
        return self.db.execute(
            "select journal, seq, payload from records where sent = 0 order by journal, seq limit ?", (limit,)
        ).fetchall()

    def mark_sent(self, keys):
        with self.db:
            self.db.execute("begin")
            self.db.executemany("update records set sent = 1 where journal = ? and seq = ?", keys)

    def resend_after(self, journal, seq):
        """Mark every record after (journal, seq) unsent again: the floor's
        recorder has not recorded them (the broker may have lost them)."""
        with self.db:
            self.db.execute("begin")
            cur = self.db.execute(
                "update records set sent = 0 where sent = 1 and (journal > ? or (journal = ? and seq > ?))",
                (journal, journal, seq),
            )
            return cur.rowcount

    def erased(self):
        """The number of the last board-erased step this outbox started again after, or None."""
        row = self.db.execute("select step from erased").fetchone()
        return row[0] if row else None

    def start_again(self, step):
        """Drop every record and the cursor, and keep `step`, in one transaction."""
        with self.db:
            self.db.execute("begin")
            self.db.execute("delete from records")
            self.db.execute("delete from cursor")
            self.db.execute("insert or replace into erased values (1, ?)", (step,))

    def counts(self):
        row = self.db.execute("select count(*), coalesce(sum(sent), 0) from records").fetchone()
        return {"records": row[0], "sent": row[1]}

    def close(self):
        self.db.close()
