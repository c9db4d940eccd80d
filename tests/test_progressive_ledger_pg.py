"""The controller's ledger on PostgreSQL (host_tools/floor/progressive/ledger_pg.py),
on a real server in a temporary directory (bench/floor/pgserver.py): the same
inputs give the same ledger as on SQLite, row for row; the self-check replays it
and names a damaged meter; a maintenance's commit is seen by the controller, its
own commits are not; a write whose lease the server freed is refused and leaves
nothing; the recorder's copy is read through one connection however many
records are judged; and a floor's SQLite ledger is copied into PostgreSQL once
(`floor progressive-ledger-import`), a controller refusing to start on the
empty database beside it."""

import itertools
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from progressive_floor import PARAMS

from bench.floor import pgserver
from host_tools import HostToolError
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from host_tools.floor.pg import schema
from host_tools.floor.pg.lease import Lease
from host_tools.floor.progressive import floor_copy, integrity, ledger, messages, params
from host_tools.floor.progressive.controller import Controller
from host_tools.floor.progressive.ledger_pg import LeaseLost, PgLedger
from host_tools.floor.recorder.store import Store
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or "")
GAMES = {g: params.check_game(g, PARAMS[g]) for g in PARAMS}
_databases = itertools.count()


@pytest.fixture(scope="module")
def server():
    s = pgserver.Server().start()
    yield s
    s.remove()


def migrated(server):
    url = server.create("ledger%d" % next(_databases))
    schema.migrate(url)
    return url


def clock():
    """The same `at` for every row on both stores, so their logs compare row for row."""
    return 1_700_000_000.5


ops = st.lists(
    st.one_of(
        st.tuples(st.just("wager"), st.sampled_from(["T1", "T2"]), st.sampled_from(["MEA", "FUP"]), st.integers(1, 9)),
        st.tuples(st.just("hit"), st.sampled_from(["T1", "T2"]), st.sampled_from(["MEA", "FUP"]), st.integers(1, 3)),
        st.tuples(st.just("void"), st.sampled_from(["T1", "T2"]), st.integers(1, 3)),
        st.tuples(st.just("again"), st.integers(0, 30)),
        st.tuples(st.just("ack"), st.sampled_from(["MEA", "FUP"]), st.integers(1, 4), st.sampled_from(["sam", "bob"])),
        st.tuples(st.just("cap"), st.sampled_from(["MEA", "FUP"]), st.integers(100_000, 20_000_000)),
    ),
    max_size=25,
)


def play(c, steps):
    """The steps through controller `c`: [each outcome]."""
    sent, seqs, out = [], {"T1": 0, "T2": 0}, []
    for op in steps:
        if op[0] in ("wager", "hit", "void"):
            table = op[1]
            seqs[table] += 1
            if op[0] == "void":
                inp = messages.Input(messages.PROG_VOID, "MEA", 1, table, "b" + table, 1, seqs[table], hit=op[2])
            else:
                kind = messages.PROG_WAGER if op[0] == "wager" else messages.PROG_HIT
                inp = messages.Input(kind, op[2], op[3], table, "b" + table, 1, seqs[table])
            sent.append(inp)
            out.append(c.take(inp))
        elif op[0] == "again" and sent:
            out.append(c.take(sent[op[1] % len(sent)]))
        elif op[0] == "ack":
            role = "shift_manager" if op[3] == "sam" else "supervisor"
            out.append(c.acknowledge("prog-%s-%d" % (op[1], op[2]), op[3], role))
        elif op[0] == "cap":
            try:
                new = params.check_game(op[1], dict(GAMES[op[1]].to_dict(), cap=op[2]))
            except ValueError:
                continue
            out.append(c.change_params(new, "tom", "sam"))
    return out


def dumps(meters):
    return {g: m.dump() for g, m in meters.items()}


def contents(book):
    """Everything a ledger holds, in one comparable shape."""
    return {
        "log": [tuple(r) for r in book.log_rows()],
        "meters": dumps(book.meters(book.params())),
        "params": {g: p.to_dict() for g, p in book.params().items()},
        "tables": book.tables(),
        "epochs": book.epochs(),
    }


@settings(max_examples=12, deadline=None)
@given(ops)
def test_the_same_inputs_give_the_same_ledger_on_postgresql_as_on_sqlite(server, tmp_path_factory, steps):
    url = migrated(server)
    path = str(tmp_path_factory.mktemp("ledger") / "progressive.sqlite")
    on_pg, on_sqlite = Controller(url, GAMES, clock=clock), Controller(path, GAMES, clock=clock)
    try:
        assert play(on_pg, steps) == play(on_sqlite, steps)
        assert dumps(on_pg.meters) == dumps(on_sqlite.meters)
        assert contents(on_pg.ledger) == contents(on_sqlite.ledger)
        assert dumps(ledger.replay(on_pg.ledger.log_rows())) == dumps(on_pg.meters)
    finally:
        on_pg.close()
        on_sqlite.close()
    again = Controller(url, GAMES)  # a standby opening the same ledger: the same meters
    try:
        assert dumps(again.meters) == dumps(ledger.replay(again.ledger.log_rows()))
    finally:
        again.close()


def test_the_self_check_replays_the_ledger_on_postgresql_and_names_a_damaged_meter(server, tmp_path):
    integrity.install(str(tmp_path))
    url = server.create("ledger%d" % next(_databases))
    unmigrated = integrity.check(str(tmp_path), url)
    assert unmigrated["ok"] is False and "run python -m host_tools floor db migrate" in unmigrated["ledger"]["reason"]
    schema.migrate(url)
    first = integrity.check(str(tmp_path), url)  # migrated, empty: the first start
    assert first["ok"] is True and first["ledger"]["reason"] == "no ledger yet: the first start"
    c = Controller(url, GAMES)
    for seq, (kind, count) in enumerate([(messages.PROG_WAGER, 4), (messages.PROG_HIT, 2)], 1):
        assert c.take(messages.Input(kind, "MEA", count, "T1", "b1", 1, seq)) == "applied"
    c.close()
    good = integrity.check(str(tmp_path), url)
    assert good["ok"] is True and good["ledger"]["reason"] == "ledger replay matches (5 log rows)", good
    with schema.driver().connect(url, autocommit=True) as conn:  # a meter changed behind the log's back
        conn.execute(
            "update progressive.meters set body = jsonb_set(body::jsonb, '{amount}', to_jsonb(1))::text"
            " where game = 'MEA'"
        )
    bad = integrity.check(str(tmp_path), url)
    assert bad["ok"] is False and bad["ledger"]["reason"].startswith("the ledger's stored MEA amount differs"), bad


def test_a_maintenance_commit_is_seen_by_the_controller_and_its_own_are_not(server):
    url = migrated(server)
    c = Controller(url, GAMES)
    other = Controller(url, {})
    try:
        assert c.take(messages.Input(messages.PROG_WAGER, "MEA", 3, "T1", "b1", 1, 1)) == "applied"
        assert c.fresh() is False  # its own commit
        new = params.check_game("MEA", dict(GAMES["MEA"].to_dict(), cap=GAMES["MEA"].cap + 100))
        assert other.change_params(new, "tom", "sam") == "applied"
        assert c.take(messages.Input(messages.PROG_WAGER, "MEA", 1, "T1", "b1", 1, 2)) == "applied"  # fresh() first
        assert c.meters["MEA"].params.cap == new.cap  # reloaded before the wager
        assert dumps(ledger.replay(c.ledger.log_rows())) == dumps(c.meters)
    finally:
        other.close()
        c.close()


def test_a_write_after_the_lease_is_gone_is_refused_and_leaves_nothing(server):
    url = migrated(server)
    lease = Lease(url, "progressive:test")
    assert lease.acquire()
    c = Controller(url, GAMES, fence=(lease.conn.info.backend_pid, lease.key))
    try:
        assert c.take(messages.Input(messages.PROG_WAGER, "MEA", 3, "T1", "b1", 1, 1)) == "applied"
        rows = c.ledger.log_rows()
        lease.release()  # the lease's session ends: the server frees the lock
        with pytest.raises(LeaseLost):
            c.take(messages.Input(messages.PROG_WAGER, "MEA", 2, "T1", "b1", 1, 2))
        assert c.ledger.log_rows() == rows and not c.ledger.seen(("T1", "b1", 1, 2))
        assert c.meters["MEA"].dump() == ledger.replay(rows)["MEA"].dump()  # the meter back to the ledger's
    finally:
        c.close()
    with pytest.raises(HostToolError, match="schema version 0"):  # never made by a controller starting
        PgLedger(server.create("ledger%d" % next(_databases)))


def test_the_recorders_copy_is_read_through_one_connection(server, tmp_path):
    url = migrated(server)
    Store(str(tmp_path / "recorder.sqlite")).db.close()  # a recorder's SQLite with no record yet
    backend = [("select pg_backend_pid()", ())]
    for where in (url, str(tmp_path / "recorder.sqlite")):
        copy = floor_copy.Copy(where)
        first = copy.read(backend) if where == url else None
        kept = None
        for seq in range(1, 41):
            inp = messages.Input(messages.PROG_WAGER, "MEA", 1, "T1", "b1", 1, seq)
            assert floor_copy.verdict(copy, inp) == (0, 0, None)  # a journal new to the floor: taken
            kept = kept or copy.conn
            assert copy.conn is kept is not None  # the same connection for every record
        if where == url:
            assert copy.read(backend) == first  # the same server session throughout
            with schema.driver().connect(url, autocommit=True) as conn:  # its session ended by the server
                conn.execute("select pg_terminate_backend(%s)", (first[0][0][0],))
            assert floor_copy.verdict(copy, inp) == (0, 0, None)  # read again on a new connection
            assert copy.read(backend) != first
        copy.close()


def host_tools(*argv, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *argv], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def test_a_floors_sqlite_ledger_is_copied_once_into_postgresql_and_never_left_behind(server, tmp_path):
    directory = str(tmp_path / "floor")
    floor_init.init(directory, 1, "test", broker.free_port(), broker.free_port())
    c = Controller(params.ledger_path(directory), GAMES)
    play(c, [("wager", "T1", "MEA", 4), ("hit", "T1", "MEA", 2), ("wager", "T2", "FUP", 3), ("void", "T1", 2)])
    c.learn_epoch("T2", 1)
    before = contents(c.ledger)
    c.close()
    url = migrated(server)
    # the controller on the empty database while the floor's ledger is its SQLite: refused, one line
    split = host_tools("floor", "progressive", "--dir", directory, "--ledger", url)
    assert split.returncode == 2 and len(split.stderr.splitlines()) == 1, split.stderr
    assert "copy it there first with python -m host_tools floor progressive-ledger-import" in split.stderr
    up = host_tools("floor", "up", "--dir", directory, "--tables", "1", "--db", url)  # make floor DB=…: the same
    assert up.returncode == 2 and len(up.stderr.splitlines()) == 1 and "copy it there first" in up.stderr, up.stderr
    assert not os.path.exists(os.path.join(directory, "logs", "supervisor.log"))  # refused before anything started
    done = host_tools("floor", "progressive-ledger-import", "--dir", directory, "--ledger", url)
    assert done.returncode == 0, done.stderr
    rows = len(before["log"])
    assert done.stdout == "copied %s into %s: %d log rows, the same meters\n" % (
        params.ledger_path(directory),
        url,
        rows,
    )
    again = host_tools("floor", "progressive-ledger-import", "--dir", directory, "--ledger", url)
    assert again.returncode == 2 and again.stderr.strip().endswith(
        "the ledger on the database already holds %d log rows: nothing copied" % rows
    )
    moved = Controller(url, {})
    try:
        assert contents(moved.ledger) == before
        assert moved.take(messages.Input(messages.PROG_WAGER, "MEA", 1, "T1", "bT1", 1, 9)) == "applied"
        assert moved.ledger.last_n() == rows + 1  # numbered on after the copied rows
        assert integrity.check(directory, url)["ledger"]["ok"] is True
    finally:
        moved.close()
