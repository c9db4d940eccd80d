"""`floor progressive-ledger-import`: a floor's SQLite ledger copied into an
empty ledger on PostgreSQL, once, when a floor moves its controller to the
database (docs/progressive.md, "Where the ledger lives"). The SQLite ledger is
checked against its replay first (a damaged one is never copied); every row
of every table is copied as it is, the log's numbers kept, in one transaction
under the ledger's write lock; the copy is then checked against its own
replay, and must give the same figures. The SQLite file is left as it was."""

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.progressive import integrity
from host_tools.floor.progressive.ledger import Ledger
from host_tools.floor.progressive.ledger_pg import PgLedger

_TABLES = (
    ("params", "game, body"),
    ("meters", "game, body"),
    ("tables", "tbl, body"),
    ("epochs", "tbl, epoch"),
    ("seen", "tbl, board, journal, seq, epoch, n"),
    ("log", "n, at, what, game, body, outcome"),
)


def copy(path, url):
    """The SQLite ledger at `path` into the empty PostgreSQL ledger at `url`: the number of log rows."""
    src = Ledger(path, readonly=True)
    try:
        before = integrity.check_ledger(src)
        if not before["ok"]:
            raise HostToolError("%s: %s; nothing copied" % (path, before["reason"]), EXIT_FAILED)
        rows = {table: src._all("select %s from %s" % (cols, table)) for table, cols in _TABLES}
        meters = {g: m.dump() for g, m in src.meters(src.params()).items()}
    finally:
        src.close()
    dst = PgLedger(url)
    try:
        with dst.lock, dst.transaction():
            held = dst.last_n()
            if held:
                raise HostToolError(
                    "the ledger on the database already holds %d log rows: nothing copied" % held, EXIT_USAGE
                )
            for table, cols in _TABLES:
                marks = ", ".join("?" * len(cols.split(", ")))
                for row in rows[table]:
                    dst._exec("insert into %s (%s) values (%s)" % (table, cols, marks), tuple(row))
            if dst.last_n():  # the next row numbered after the copied ones
                dst._exec("select setval(pg_get_serial_sequence('progressive.log', 'n'), ?)", (dst.last_n(),))
            after = integrity.check_ledger(dst)  # before the commit: a copy that differs is rolled back
            copied = {g: m.dump() for g, m in dst.meters(dst.params()).items()}
            if not after["ok"] or after["rows"] != before["rows"] or copied != meters:
                raise HostToolError(
                    "the copy does not replay to the SQLite ledger's figures (%s); nothing copied" % after["reason"],
                    EXIT_FAILED,
                )
    finally:
        dst.close()
    return after["rows"]
