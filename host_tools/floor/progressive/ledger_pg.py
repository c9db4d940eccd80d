"""The controller's ledger on the floor's PostgreSQL: the same `Book` as the
SQLite one (ledger.py), in the schema `progressive` that `floor db migrate`
makes (pg/schema.py, migration 4), so a standby controller on another machine
opens the ledger the holder wrote.

- **Durable before published**: the session sets synchronous_commit=on
  whatever the server's default, so a commit returns once the server's WAL is
  flushed; the controller publishes after that, as on SQLite.
- **One writer**: every write transaction first takes a transaction advisory
  lock (WRITE_LOCK), so a maintenance's read-modify-write and the controller's
  are serialised as SQLite's BEGIN IMMEDIATE serialises them, and the log's
  numbers are given in commit order.
- **Fenced by the lease**: given `fence` (the lease's session's backend pid and
  lock key, pg/lease.py), a write transaction also checks, under that lock,
  that the session still holds the lease; a holder whose lease the server freed
  (its session dead) cannot commit, whatever it has not noticed yet, and a new
  holder that reads the ledger under the same lock sees every commit the old
  one made.
- **Another writer's commit** (`data_version`): the log's last number moving
  past what this connection wrote.
"""

import contextlib
import threading

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.pg import schema
from host_tools.floor.progressive.ledger import Book

SCHEMA = "progressive"
WRITE_LOCK = 0x70726F67  # the ledger's write lock ("prog"), taken per write transaction
_VALUE = {"params": "body", "meters": "body", "tables": "body", "epochs": "epoch"}  # each keyed table's value


class LeaseLost(HostToolError):
    """A write refused: this process no longer holds the progressive lease."""

    def __init__(self, text):
        super().__init__(text, EXIT_FAILED)


def _fence_ids(key):
    """(classid, objid) under which pg_locks shows a session advisory lock on the 64-bit `key`."""
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    return unsigned >> 32, unsigned & 0xFFFFFFFF


class PgLedger(Book):
    def __init__(self, url, readonly=False, fence=None):
        psycopg = schema.driver()
        self.Error = psycopg.Error
        self.url = url
        try:
            # a commit on a server gone silent fails within ~2 s instead of hanging the broker's thread
            self.conn = schema.connect_watchful(url)
        except psycopg.Error as e:
            raise HostToolError(
                "cannot reach the ledger's database %s: %s" % (schema.redacted(url), _first_line(e)), EXIT_USAGE
            )
        try:
            schema.check(self.conn, url)  # the ledger's tables are the migration's, never made here
            self.conn.execute("set search_path = %s" % SCHEMA)
            self.conn.execute("set synchronous_commit = on")
            if readonly:
                self.conn.execute("set default_transaction_read_only = on")
        except BaseException:
            self.conn.close()
            raise
        self.lock = threading.RLock()
        self.depth = 0
        self.fence = None if fence is None else (fence[0],) + _fence_ids(fence[1])
        self.known = None  # the log's last number this connection accounts for
        self.others = 0  # how many times another connection's commit was seen

    def close(self):
        self.conn.close()

    def _all(self, sql, args=()):
        return self.conn.execute(sql.replace("?", "%s"), args).fetchall()

    def _one(self, sql, args=()):
        return self.conn.execute(sql.replace("?", "%s"), args).fetchone()

    def _exec(self, sql, args=()):
        self.conn.execute(sql.replace("?", "%s"), args)

    def _put(self, table, key, row):
        value = _VALUE[table]
        sql = "insert into %s values (%%s, %%s) on conflict (%s) do update set %s = excluded.%s"
        self.conn.execute(sql % (table, key, value, value), row)

    def _append(self, row):
        if self._one("select max(n) from log")[0] != self.known:  # under the write lock: exact
            self.others += 1
        n = self.conn.execute(
            "insert into log (at, what, game, body, outcome) values (%s, %s, %s, %s, %s) returning n", row
        ).fetchone()[0]
        self.known = n
        return n

    @contextlib.contextmanager
    def _outermost(self):
        """BEGIN, the ledger's write lock, the lease checked … COMMIT."""
        with self.conn.transaction():
            self.conn.execute("select pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            self._check_fence()
            yield

    def _check_fence(self):
        if self.fence is None:
            return
        held = self.conn.execute(
            "select exists (select 1 from pg_locks where locktype = 'advisory' and granted and pid = %s"
            " and classid::bigint = %s and objid::bigint = %s and objsubid = 1)",
            self.fence,
        ).fetchone()[0]
        if not held:
            raise LeaseLost("the progressive lease is no longer this controller's: the ledger refused the write")

    def data_version(self):
        """Changes when another connection (the maintenance command) committed to the log."""
        top = self._one("select max(n) from log")[0]
        if top != self.known:
            self.others += 1
            self.known = top
        return self.others

    def integrity(self):
        """Always "ok": the server keeps its own pages whole (its WAL); opening checked the schema's version."""
        return "ok"


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
