"""The recorder's copy as the judge of a table's record from the bus, and of each
table's board-erased step (docs/progressive.md, "A linked table's board erased").

A board whose flash was erased starts again at journal 1 record 1 with the same
chip id, so until the technician's step the bus carries records whose identity
(table, board, journal, seq) the floor already holds for other records, or
numbers past what it holds that continue nothing of it. The recorder stores
neither (docs/floor.md, "A board erased"); the controller, which sees only the
progressive records, asks the recorder's copy (read only, as the catch-up does):

- the recorder holds the record, with its link: the floor's, taken;
- the recorder holds the record before it, with the chain hash it continues: taken;
- the recorder holds nothing of its journal (a journal new to the floor): taken;
- otherwise (another record with its numbers, a record before it that it does not
  continue, or one the recorder has not stored yet) it waits: the catch-up takes
  it from the recorder's copy once the recorder has stored it, which for an
  erased board's new journal is after the step.

The epoch of a record is the number of its table's newest board-erased step the
recorder had taken when it stored the record (0: none), the number the recorder
says as `erased` in the table's retained `recorded`.
"""

import json
import sqlite3
import threading

from host_tools import HostToolError
from host_tools.floor.pg import schema
from host_tools.floor.progressive import messages

PAST = "past the floor's copy of its journal"  # the one verdict that is a doubt, not a conflict
# the progressive kinds as the recorder stores them: by number, or by name from a newer firmware
KINDS = tuple(sorted({str(code) for code in messages.KINDS} | set(messages.KINDS.values())))
# a stored record's epoch: the table's newest step taken before the recorder stored it
EPOCH_OF_EVENT = "(select coalesce(max(e.id), 0) from erased e where e.tbl = events.tbl and e.at <= events.received)"


class Copy:
    """The recorder's copy read through one connection, kept open between reads: the
    controller asks it about every record from the bus, and a connection per record cost
    more than the record (docs/progressive.md, Figures). A read that fails on the kept
    connection (the server restarted) is tried once more on a new one."""

    def __init__(self, where):
        self.where = where
        self.conn = None
        self.lock = threading.Lock()

    def read(self, statements):
        """[rows] of each (sql, args) in `statements` (placeholders `?`), all read in one
        snapshot of the recorder's SQLite or PostgreSQL (a step between two of them would
        pair a record with the wrong epoch); None when the copy cannot be read (no
        recorder yet, the database away: the next look)."""
        with self.lock:
            kept = self.conn is not None
            got = self._read(statements)
            if got is None and kept:
                got = self._read(statements)
            return got

    def _read(self, statements):
        if schema.is_url(self.where):
            return self._read_pg(statements)
        return self._read_sqlite(statements)

    def _read_pg(self, statements):
        if self.conn is None:
            try:
                self.conn = schema.connect(self.where)
            except HostToolError as e:
                schema.log("progressive: the recorder's copy: %s" % e)
                return None
        try:
            self.conn.execute("begin isolation level repeatable read read only")
            try:
                return [self.conn.execute(sql.replace("?", "%s"), args).fetchall() for sql, args in statements]
            finally:
                self.conn.execute("commit")
        except schema.driver().Error as e:
            schema.log("progressive: the recorder's copy: %s" % str(e).strip()[:160])
            self.close()
            return None

    def _read_sqlite(self, statements):
        try:
            if self.conn is None:
                self.conn = sqlite3.connect(
                    "file:%s?mode=ro" % self.where, uri=True, timeout=10, isolation_level=None, check_same_thread=False
                )
            self.conn.execute("begin")
            try:
                return [self.conn.execute(sql, args).fetchall() for sql, args in statements]
            finally:
                self.conn.execute("commit")
        except sqlite3.Error:  # no file, or a recorder that has not made its tables yet
            self.close()
            return None

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:  # a connection already broken: nothing to give back
                pass
        self.conn = None


def read(where, statements):
    """Copy.read on `where`: a Copy (its connection kept), or the recorder's SQLite path or
    postgresql:// URL (a connection for this read alone)."""
    if isinstance(where, Copy):
        return where.read(statements)
    copy = Copy(where)
    try:
        return copy.read(statements)
    finally:
        copy.close()


def verdict(where, rec, seen=None):
    """(step, epoch, why) for `rec` (a messages.Input or TableConfig from the bus): `step`
    the table's newest board-erased step in the recorder's copy, `epoch` the record's (the
    stored one's when the recorder holds it, else `step`: the recorder stores it under
    that), `why` None when it is taken now, else one line saying why it waits for the
    recorder's copy. None when the copy cannot be read. `where`: a Copy, or its location.

    With `seen` (the ledger's), a progressive record also waits while the progressive
    record before it in its journal, which the recorder holds, is not taken: the bus can
    lose that one (a broker restarted before its save, a controller killed after
    acknowledging a record that waited) and bring this one, and a void must never come
    before its hit nor a wager before the hit it paid into. The catch-up takes both, in
    the journal's order."""
    journal = "from events where tbl = ? and board = ? and journal = ?"
    ident = (rec.table, rec.board, rec.journal)
    got = read(
        where,
        [
            ("select coalesce(max(id), 0) from erased where tbl = ?", (rec.table,)),
            (
                "select seq, link, hash, %s %s and seq in (?, ?)" % (EPOCH_OF_EVENT, journal),
                ident + (rec.seq - 1, rec.seq),
            ),
            ("select count(*) from (select 1 %s limit 1) j" % journal, ident),
            (
                "select seq, record, %s %s and seq < ? and kind in (%s) order by seq desc limit 1"
                % (EPOCH_OF_EVENT, journal, ",".join("?" * len(KINDS))),
                ident + (rec.seq,) + KINDS,
            ),
        ],
    )
    if got is None:
        return None
    step, epoch, why = _judged(rec, got)
    if why is None and seen is not None and isinstance(rec, messages.Input) and got[3]:
        seq, text, before = got[3][0]
        try:
            messages.from_record(rec.table, rec.board, rec.journal, json.loads(text))
        except ValueError:  # never taken (the recorder alerted on it): nothing to wait for
            return step, epoch, why
        if not seen(ident + (seq, int(before))):
            why = "record %s of journal %s of table %s comes after progressive record %d, not taken yet" % (
                rec.seq,
                rec.journal,
                rec.table,
                seq,
            )
    return step, epoch, why


def _judged(rec, got):
    """(step, epoch, why) from the copy's rows alone (verdict)."""
    step = int(got[0][0][0])
    held = {seq: (link, digest, epoch) for seq, link, digest, epoch in got[1]}
    where = "record %s of journal %s of table %s" % (rec.seq, rec.journal, rec.table)
    if rec.seq in held:
        if held[rec.seq][0] == rec.link:
            return step, int(held[rec.seq][2]), None
        return (
            step,
            step,
            "%s: the floor holds another record with its numbers (an erased board before its step?)" % where,
        )
    if rec.seq - 1 in held:
        if held[rec.seq - 1][1] == rec.prev:
            return step, step, None
        return (
            step,
            step,
            "%s does not continue the floor's record %d (an erased board before its step?)"
            % (
                where,
                rec.seq - 1,
            ),
        )
    if got[2][0][0]:
        return step, step, "%s is %s: taken once the recorder has stored it" % (where, PAST)
    return step, step, None
