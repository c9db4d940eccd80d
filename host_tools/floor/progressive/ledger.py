"""The controller's durable record: SQLite in WAL mode with synchronous=FULL
(`Ledger`, the default), or the floor's PostgreSQL (ledger_pg.py, the same
`Book`: the shape below in the schema `progressive`).

    params(game, body)          the parameters in force (JSON)
    meters(game, body)          each meter as Meter.dump() after the last change
    seen(tbl, board, journal, seq, epoch, n)   every table record taken (a copy is dropped);
                                epoch: the table's board-erased step it came after (0: none)
    epochs(tbl, epoch)          each table's newest board-erased step, as the recorder said it
    tables(tbl, body)           each table's progressive paytables, from its board's configuration
    log(n, at, what, game, body, outcome)  every input in the controller's order:
        what = "input" (a table's record: a wager, hit or void), "settle", "ack", "params",
        "table_config" (a table's record carrying its configuration)

One transaction per change: the log row, the record's identity and the meter
after it commit together, and the controller publishes only after the commit
returns (synchronous=FULL: the WAL is synced on every commit; on PostgreSQL,
synchronous_commit=on: the server's WAL is flushed before the commit returns),
so a meter the floor has seen is one the ledger holds, and after a SIGKILL the
controller comes back to it. `replay` folds the log again from the first parameters: the
proof that the stored meters are the log's.
"""

import contextlib
import json
import sqlite3
import threading

from host_tools.floor.base import sqlite_file
from host_tools.floor.progressive import params as pm
from host_tools.floor.progressive.meter import Meter

_SCHEMA = """
create table if not exists params (game text primary key, body text not null);
create table if not exists meters (game text primary key, body text not null);
create table if not exists tables (tbl text primary key, body text not null);
create table if not exists seen (tbl text, board text, journal integer, seq integer, n integer,
    epoch integer not null default 0, primary key (tbl, board, journal, seq, epoch));
create table if not exists epochs (tbl text primary key, epoch integer not null);
create table if not exists log (n integer primary key autoincrement, at real not null, what text not null,
    game text, body text not null, outcome text not null);
"""


class Book:
    """What the ledger is on either store: a subclass gives the connection's five
    primitives (_all, _one, _exec, _put, _append), `lock`, and `_outermost()`, the
    store's own write transaction; SQL here is written with `?` placeholders and
    each store's own table names."""

    Error = Exception  # what the store raises when its data cannot be read
    Missing = ()  # what it raises for a table an older ledger lacks (read-only)
    depth = 0  # transactions open: nested calls join the outermost

    @contextlib.contextmanager
    def transaction(self):
        """The store's write transaction (`_outermost`); nested calls join the outer one."""
        with self.lock:
            if self.depth:
                self.depth += 1
                try:
                    yield
                finally:
                    self.depth -= 1
                return
            with self._outermost():
                self.depth = 1
                try:
                    yield
                finally:
                    self.depth = 0

    # ---- reading -----------------------------------------------------------------

    def params(self):
        """{game: Params} in force, {} before the first start."""
        rows = self._all("select game, body from params")
        return {g: pm.check_game(g, json.loads(b)) for g, b in rows}

    def meters(self, params):
        """{game: Meter}: each stored meter, a fresh one (at its base amount) for a game without."""
        stored = dict(self._all("select game, body from meters"))
        return {g: Meter.load(p, json.loads(stored[g])) if g in stored else Meter(p) for g, p in params.items()}

    def tables(self):
        """{table: {"paytables": {game: id}, "board", "journal", "seq"}} as the boards last said."""
        try:
            rows = self._all("select tbl, body from tables")
        except self.Missing:  # a ledger made before tables were kept (read-only)
            return {}
        return {t: json.loads(b) for t, b in rows}

    def seen(self, key):
        """Whether the record (table, board, journal, seq[, epoch]) was taken."""
        return self._one(
            "select 1 from seen where tbl=? and board=? and journal=? and seq=? and epoch=?", _with_epoch(key)
        )

    def epochs(self):
        """{table: its newest board-erased step the controller knows}."""
        try:
            return dict(self._all("select tbl, epoch from epochs"))
        except self.Missing:  # a ledger made before steps were kept (read-only)
            return {}

    def set_epoch(self, table, epoch):
        with self.lock, self.transaction():
            self._put("epochs", "tbl", (table, epoch))

    def log_rows(self):
        return self._all("select n, at, what, game, body, outcome from log order by n")

    def last_n(self):
        """The log's last row number (0 when empty)."""
        return self._one("select max(n) from log")[0] or 0

    # ---- one change ----------------------------------------------------------------

    def commit(self, at, what, game, body, outcome, meters=(), key=None, params=None, table=None):
        """One change, durable when this returns: a log row, the table record's
        identity `key` (if any), the meters after it and new parameters (if any).
        Returns the log row's number."""
        with self.lock, self.transaction():
            n = self._append((at, what, game, json.dumps(body, sort_keys=True), outcome))
            if key is not None:
                self._exec(
                    "insert into seen (tbl, board, journal, seq, epoch, n) values (?,?,?,?,?,?)",
                    _with_epoch(key) + (n,),
                )
            for p in (params or {}).values():
                self._put("params", "game", (p.game, json.dumps(p.to_dict())))
            for m in meters:
                self._put("meters", "game", (m.params.game, json.dumps(m.dump())))
            if table is not None:
                self._put("tables", "tbl", (table[0], json.dumps(table[1])))
        return n


class Ledger(Book):
    """The ledger in a SQLite file (the default: DIR/progressive.sqlite)."""

    Error = sqlite3.DatabaseError
    Missing = sqlite3.OperationalError

    def __init__(self, path, readonly=False):
        if not readonly:
            sqlite_file.create_whole(path, _SCHEMA)
        uri = "file:%s%s" % (path, "?mode=ro" if readonly else "")
        self.db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        self.lock = threading.RLock()
        self.depth = 0
        if not readonly:
            self.db.execute("pragma journal_mode=wal")
            self.db.execute("pragma synchronous=full")
            self._migrate_seen()
            self.db.executescript(_SCHEMA)

    def _migrate_seen(self):
        """A ledger made before board-erased steps keyed its records without an epoch: each
        of them came before any step (epoch 0). The log's rows are not touched, so its
        replay, and the self-check, give the same figures after as before."""
        cols = [r[1] for r in self.db.execute("pragma table_info(seen)")]
        if not cols or "epoch" in cols:
            return
        with self.transaction():
            self.db.execute(
                "create table seen_epoch (tbl text, board text, journal integer, seq integer, n integer,"
                " epoch integer not null default 0, primary key (tbl, board, journal, seq, epoch))"
            )
            self.db.execute("insert into seen_epoch select tbl, board, journal, seq, n, 0 from seen")
            self.db.execute("drop table seen")
            self.db.execute("alter table seen_epoch rename to seen")

    def close(self):
        self.db.close()

    def _all(self, sql, args=()):
        return self.db.execute(sql, args).fetchall()

    def _one(self, sql, args=()):
        return self.db.execute(sql, args).fetchone()

    def _exec(self, sql, args=()):
        self.db.execute(sql, args)

    def _put(self, table, key, row):
        self.db.execute("insert or replace into %s values (%s)" % (table, ",".join("?" * len(row))), row)

    def _append(self, row):
        return self.db.execute("insert into log (at, what, game, body, outcome) values (?, ?, ?, ?, ?)", row).lastrowid

    @contextlib.contextmanager
    def _outermost(self):
        """BEGIN IMMEDIATE … COMMIT (the write lock from the start: another process's
        read-modify-write waits)."""
        self.db.execute("begin immediate")
        try:
            yield
            self.db.execute("commit")
        except BaseException:
            self.db.execute("rollback")
            raise

    def data_version(self):
        """Changes when another connection (the maintenance command) commits."""
        return self.db.execute("pragma data_version").fetchone()[0]

    def integrity(self):
        """SQLite's own integrity check: "ok" or what it found."""
        return self.db.execute("pragma integrity_check").fetchone()[0]


def _with_epoch(key):
    """(table, board, journal, seq, epoch): a key of four fields is one before any step."""
    return tuple(key) + (0,) * (5 - len(key))


def replay(rows):
    """{game: Meter} folded again from the log's rows alone (see the header)."""
    meters = {}
    for _, _, what, game, body, outcome in rows:
        obj = json.loads(body)
        if what == "table_config":  # which paytable a table plays: no money moves
            continue
        if what == "params":
            new = pm.check_game(game, obj["params"])
            if game not in meters:
                meters[game] = Meter(new)
            elif outcome == "applied":
                meters[game].change_params(new)
            continue
        if outcome != "applied":
            continue
        m = meters[game]
        epoch = obj.get("epoch", 0)  # a row written before any board-erased step has none
        if what == "input" and obj["kind"] == "prog_wager":
            m.contribute(obj["table"], obj["count"])
        elif what == "input" and obj["kind"] == "prog_void":
            m.void(obj["table"], obj["board"], obj["journal"], obj["seq"], obj["hit"], obj["count"], epoch)
        elif what == "input":
            m.lock(obj["table"], obj["board"], obj["journal"], obj["seq"], obj["count"], obj["arrival"], epoch)
        elif what == "settle":
            m.settle()
        elif what == "ack":
            m.acknowledge(obj["hit"], obj["by"])
    return meters
