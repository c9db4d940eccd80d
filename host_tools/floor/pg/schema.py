"""The floor's PostgreSQL schema: created and migrated by the project's own
command (`python -m host_tools floor db migrate --db postgresql://…`), never
by a service starting. Each migration is numbered and runs once, in one
transaction, under an advisory lock, so two machines migrating at once
migrate once; a service refuses a database whose schema is not this
version's (one line: run the command).

The exactly-once key of a record, (table, board, journal, seq), is the
events table's primary key: two recorders storing the same record store it
once whichever commits first (`insert … on conflict do nothing`).

The progressive controller's ledger lives in the schema `progressive` of the
same database (migration 4), so the recorder's store and the ledger share one
server and one migration command, and neither reads the other's tables.
"""

import sys
import time

from host_tools import EXIT_USAGE, HostToolError

SCHEMES = ("postgresql://", "postgres://")
_LOCK = 0x63726170  # the advisory lock every migration takes ("crap")

MIGRATIONS = [
    (
        1,
        """
        create table events (
            n bigserial not null unique,
            tbl text not null, board text not null, journal integer not null, seq integer not null,
            t bigint, kind text, link text not null, hash text not null, prev text not null,
            record text not null, received double precision not null,
            constraint events_once primary key (tbl, board, journal, seq));
        create table tables (tbl text primary key, presence text, state text, updated double precision);
        create table alerts (id bigserial primary key, at double precision, tbl text, kind text,
            text text, key text unique);
        """,
    ),
    (
        2,
        """
        create table waiting (
            tbl text not null, board text not null, journal integer not null, seq integer not null,
            hash text not null, prev text not null, record text not null, received double precision not null,
            constraint waiting_once primary key (tbl, board, journal, seq));
        """,
    ),
    (
        3,
        # A board erased (the technician's board-erased step): the step, and the
        # records of the board it archived, kept and exportable.
        """
        create table erased (
            id bigserial primary key, at double precision not null, tbl text not null, board text not null,
            technician text not null, signed_at bigint not null, nonce text not null unique,
            journal integer, seq integer, archived integer not null default 0);
        create table archived_events (
            erased bigint not null references erased (id),
            tbl text not null, board text not null, journal integer not null, seq integer not null,
            t bigint, kind text, link text not null, hash text not null, prev text not null,
            record text not null, received double precision not null,
            constraint archived_once primary key (erased, tbl, board, journal, seq));
        """,
    ),
    (
        4,
        # The progressive controller's ledger (host_tools/floor/progressive/ledger_pg.py), in a
        # schema of its own beside the recorder's tables: the same shape as its SQLite (ledger.py).
        """
        create schema progressive;
        create table progressive.params (game text primary key, body text not null);
        create table progressive.meters (game text primary key, body text not null);
        create table progressive.tables (tbl text primary key, body text not null);
        create table progressive.seen (
            tbl text not null, board text not null, journal bigint not null, seq bigint not null,
            epoch integer not null default 0, n bigint not null,
            constraint seen_once primary key (tbl, board, journal, seq, epoch));
        create table progressive.epochs (tbl text primary key, epoch integer not null);
        create table progressive.log (
            n bigserial primary key, at double precision not null, what text not null,
            game text, body text not null, outcome text not null);
        """,
    ),
]
VERSION = MIGRATIONS[-1][0]


def is_url(where):
    return isinstance(where, str) and where.startswith(SCHEMES)


def driver():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - requirements.txt pins it
        raise HostToolError("the psycopg package is not installed: make venv installs it", EXIT_USAGE)
    return psycopg


def redacted(url):
    """The URL without its password, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = "%s:***@%s%s" % (parts.username or "", host, ":%d" % parts.port if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def connect(url, timeout=5):
    """An autocommit connection; HostToolError (exit 2) with one line when the server cannot be reached."""
    psycopg = driver()
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=timeout)
    except psycopg.Error as e:
        raise HostToolError("cannot reach the database %s: %s" % (redacted(url), _first_line(e)), EXIT_USAGE)


def connect_watchful(url):
    """A driver connection (psycopg.Error when it cannot be made) that gives up on a
    silent server within ~2 s (tcp_user_timeout and keepalives) instead of waiting
    for the OS's hours: a lease holder or a ledger writer must know it lost the server."""
    return driver().connect(
        url,
        autocommit=True,
        connect_timeout=5,
        tcp_user_timeout=1000,
        keepalives=1,
        keepalives_idle=1,
        keepalives_interval=1,
        keepalives_count=2,
    )


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def version(conn):
    """The schema's version in the database: 0 when it has none."""
    row = conn.execute("select to_regclass('schema_version') is not null").fetchone()
    if not row[0]:
        return 0
    row = conn.execute("select max(version) from schema_version").fetchone()
    return row[0] or 0


def migrate(url):
    """Bring the database to VERSION; returns (version before, version after)."""
    conn = connect(url)
    try:
        with conn.transaction():
            conn.execute("select pg_advisory_xact_lock(%s)", (_LOCK,))
            conn.execute("create table if not exists schema_version (version integer primary key, at double precision)")
            before = version(conn)
            if before > VERSION:
                raise HostToolError(
                    "the database %s has schema version %d, newer than this program's %d"
                    % (redacted(url), before, VERSION),
                    EXIT_USAGE,
                )
            for number, sql in MIGRATIONS:
                if number > before:
                    conn.execute(sql)
                    conn.execute("insert into schema_version values (%s, %s)", (number, time.time()))
        return before, VERSION
    finally:
        conn.close()


def check(conn, url):
    """HostToolError (exit 2) unless the database holds this program's schema."""
    found = version(conn)
    if found != VERSION:
        raise HostToolError(
            "the database %s has schema version %d, this program needs %d: run python -m host_tools floor db "
            "migrate --db URL" % (redacted(url), found, VERSION),
            EXIT_USAGE,
        )


def log(text):
    print("%s database: %s" % (time.strftime("%H:%M:%S"), text), file=sys.stderr, flush=True)
