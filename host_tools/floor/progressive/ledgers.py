"""Which ledger a location names: a `postgresql://` URL is the floor's
PostgreSQL (ledger_pg.py), anything else a SQLite file (ledger.py, the
default DIR/progressive.sqlite). The install record of the controller's code
stays in each machine's own floor directory either way (integrity.py)."""

import os

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.pg import schema
from host_tools.floor.progressive import params
from host_tools.floor.progressive.ledger import Ledger


def is_url(location):
    return schema.is_url(location)


def where(directory, given=None):
    """The ledger `--ledger` names, else the floor's SQLite file."""
    return given or params.ledger_path(directory)


def open_ledger(location, readonly=False, fence=None):
    """A Book on `location`; `fence` (the lease's backend pid, lock key) only matters on PostgreSQL."""
    if schema.is_url(location):
        from host_tools.floor.progressive.ledger_pg import PgLedger

        return PgLedger(location, readonly, fence)
    return Ledger(location, readonly)


def started(location):
    """Whether the ledger has been written (a SQLite file exists; PostgreSQL's log has a row).
    HostToolError (one line) when PostgreSQL cannot be reached or is not migrated."""
    if not schema.is_url(location):
        return os.path.exists(location)
    book = open_ledger(location, readonly=True)
    try:
        return book.last_n() > 0
    finally:
        book.close()


def shown(location):
    """The location for messages: a URL without its password."""
    return schema.redacted(location) if schema.is_url(location) else location


def check_not_split(directory, location):
    """HostToolError (exit 2, one line) when `location` is an empty ledger on PostgreSQL while
    the floor's SQLite ledger exists: a controller starting there would begin again from the
    parameters file, at the base amounts, beside the meters the floor holds."""
    old = params.ledger_path(directory)
    if not schema.is_url(location) or not os.path.exists(old) or started(location):
        return
    raise HostToolError(
        "the floor's ledger is %s and the one on %s is empty: copy it there first with python -m host_tools "
        "floor progressive-ledger-import --dir %s --ledger URL" % (old, shown(location), directory),
        EXIT_USAGE,
    )
