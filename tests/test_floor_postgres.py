"""The floor's record on PostgreSQL: a real server (Debian's postgresql,
its own cluster in a temporary directory on a free loopback port), the
schema made by the project's command, the exactly-once key a constraint of
the database, and two recorders at once against it, each SIGKILLed and
started again while the tables publish: every record stored once, in order,
chain-verified."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from bench.floor import pgserver, record_feed
from bench.floor.localfloor import have_mosquitto
from bench.floor.progressive_feed import TableJournal, feed_link_key
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.bus import broker
from host_tools.floor.pg import schema
from host_tools.floor.pg.copy import PgRecordedCopy
from host_tools.floor.pg.store import PgStore
from host_tools.floor.progressive import catch_up, messages
from host_tools.floor.recorder import service as rec
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or "")

_databases = iter(range(1, 1000))


@pytest.fixture(scope="module")
def server():
    s = pgserver.Server().start()
    yield s
    s.remove()


@pytest.fixture
def url(server):
    return server.create("floor%d" % next(_databases))


def host_tools(*argv):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *argv], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def one_line_error(done, code, words):
    assert done.returncode == code, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr, done.stderr


def test_the_schema_is_made_by_the_command_once_and_the_key_is_a_constraint(url, server, tmp_path):
    floordir.new_floor(str(tmp_path / "floor"), "test", ["T1"], broker.free_port(), broker.free_port())
    refused = host_tools("recorder", "--dir", str(tmp_path / "floor"), "--db", url)  # before the schema: one line
    one_line_error(refused, 2, "floor db migrate")
    first = host_tools("floor", "db", "migrate", "--db", url)
    assert first.returncode == 0 and first.stdout.strip() == "schema version 0 -> %d" % schema.VERSION
    again = host_tools("floor", "db", "migrate", "--db", url)
    assert again.stdout.strip() == "schema version %d: nothing to do" % schema.VERSION
    assert "schema version %d" % schema.VERSION in host_tools("floor", "db", "version", "--db", url).stdout
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = ("T1", "b", 1, 1, 0, "roll", "aa", "bb", "cc", "{}", 0.0)
        sql = "insert into events (tbl, board, journal, seq, t, kind, link, hash, prev, record, received)"
        conn.execute(sql + " values (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)", row)
        with pytest.raises(psycopg.errors.UniqueViolation):  # the database itself refuses a second copy
            conn.execute(sql + " values (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)", row)
    gone = "postgresql://postgres@127.0.0.1:%d/floor" % broker.free_port()
    one_line_error(host_tools("floor", "db", "migrate", "--db", gone), 2, "cannot reach the database")
    one_line_error(host_tools("floor", "db", "migrate", "--db", str(tmp_path / "x.sqlite")), 2, "postgresql://")


def test_the_recorders_rules_hold_on_postgres(url):
    schema.migrate(url)
    store = PgStore(url)
    sent = []
    keys = floorkeys.JournalKeys(given={"T1": floorkeys.derive(feed_link_key("T1"), "journal")})
    r = rec.Recorder(store, "main", publish=lambda *m: sent.append(m), keys=keys)
    payloads = record_feed.journal("T1", 6)
    handle = [r.handle(topics.table("main", "T1", "event"), p) for p in payloads[:3] + payloads[4:] + payloads[3:4]]
    assert handle == ["stored"] * 3 + ["waiting"] * 2 + ["stored"]  # 5 and 6 wait for 4, MACs checked
    assert [r.handle(topics.table("main", "T1", "event"), p) for p in payloads[:2]] == ["duplicate"] * 2
    assert record_feed.check_store(store, "T1", 6) == []  # stored in order once 4 came
    assert store.waiting("T1", record_feed.board_id("T1"), 1, 5) is None  # no longer waiting
    forged = json.loads(payloads[5])
    forged["record"]["mac"] = "00" * 8
    assert r.handle(topics.table("main", "T1", "event"), json.dumps(forged).encode()) == "rejected"  # an alert
    other = record_feed.journal("T1", 7, t0=5)[6]  # record 7 of another chain: not after the floor's record 6
    assert r.handle(topics.table("main", "T1", "event"), other) == "rejected"
    assert [a["kind"] for a in store.alerts()] == ["record not written by the board", "chain broken"]
    r.tick(now=0.0)
    assert sent[-1][0] == "crapsfloor/v1/main/table/T1/recorded" and b'"seq":6' in sent[-1][1].replace(b" ", b"")
    store.close()


def test_a_record_below_the_first_one_held_waits_through_a_gap_check_on_postgres(url):
    """As on SQLite (tests/test_floor_recorder.py): records 4-5 held, 2 waits for 1;
    the gap check keeps it waiting and names record 1; record 1 then stores both."""
    schema.migrate(url)
    store = PgStore(url)
    keys = floorkeys.JournalKeys(given={"T2": floorkeys.derive(feed_link_key("T2"), "journal")})
    r = rec.Recorder(store, "main", publish=lambda *m: None, keys=keys)
    payloads = record_feed.journal("T2", 5)
    board = record_feed.board_id("T2")
    results = [r.handle(topics.table("main", "T2", "event"), payloads[i]) for i in (3, 4, 1)]
    assert results == ["stored", "stored", "waiting"]
    assert [g for g in store.gaps() if g[0] == "T2"] == [("T2", board, 1, 1, 1)]
    assert store.waiting("T2", board, 1, 2) is not None
    assert r.handle(topics.table("main", "T2", "event"), payloads[0]) == "stored"
    assert [row[3] for row in store.events("T2")] == [1, 2, 4, 5]
    store.close()


def _recorder(directory, url, instance, log):
    return subprocess.Popen(
        [sys.executable, "-m", "host_tools", "recorder", "--dir", directory, "--db", url, "--instance", instance],
        stdout=log,
        stderr=log,
        cwd=ROOT,
    )


@pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)")
def test_two_recorders_store_every_record_once_in_order_while_each_is_killed(url, tmp_path):
    """Two recorders on one database, each with its own session at the broker;
    while four tables publish, one or the other is SIGKILLed at random points
    and started again. The database holds each table's records exactly once,
    in publication order, each continuing its chain, and no alert."""
    tables, n = ["T1", "T2", "T3", "T4"], 300
    directory = str(tmp_path / "floor")
    floor = floordir.new_floor(directory, "test", tables, broker.free_port(), broker.free_port())
    broker.write_config(directory, floor)
    mosq = broker.Broker(directory).start()
    schema.migrate(url)
    url_store = PgStore(url, readonly=True)
    log = open(os.path.join(directory, "logs", "recorders.log"), "ab")
    recorders = {name: _recorder(directory, url, name, log) for name in ("a", "b")}
    feed = None
    try:
        # each recorder's session subscribed before the tables publish (a new session gets only what comes after)
        deadline = time.monotonic() + 30
        while open(log.name, "rb").read().count(b"connected to the broker") < 2:
            assert time.monotonic() < deadline, open(log.name, "rb").read()[-600:]
            time.sleep(0.05)
        feed = record_feed.Feed(directory, floor, "mqtt://127.0.0.1:%d" % floor["port"])
        journals = {t: record_feed.journal(t, n) for t in tables}
        rng = random.Random(31)
        sent = 0
        kills = 0

        def count():
            return url_store.db.execute("select count(*) from events").fetchone()[0]

        for start in range(0, n, 25):  # in slices, a recorder killed between some of them
            for t in tables:
                feed.publish(t, journals[t][start : start + 25], wait=False)
            sent += 25 * len(tables)
            if rng.random() < 0.5:
                name = rng.choice("ab")
                deadline = time.monotonic() + 20
                while count() < sent - rng.randint(20, 80) and time.monotonic() < deadline:
                    time.sleep(0.01)  # killed while records are still arriving
                recorders[name].send_signal(signal.SIGKILL)
                recorders[name].wait()
                kills += 1
                recorders[name] = _recorder(directory, url, name, log)
        deadline = time.monotonic() + 60
        while count() < n * len(tables):
            assert time.monotonic() < deadline, "stored %d of %d" % (count(), n * len(tables))
            time.sleep(0.05)
        assert kills >= 3
        for t in tables:
            assert record_feed.check_store(url_store, t, n) == []
        assert url_store.alerts() == []
        assert all(p.poll() is None for p in recorders.values())  # both alive at the end, both still storing
        listed = host_tools("floor", "events", "--dir", directory, "--table", "T2", "--db", url)
        assert [json.loads(line)["seq"] for line in listed.stdout.splitlines()] == list(range(1, n + 1))
        copy = PgRecordedCopy(url)  # the page's reads
        board = record_feed.board_id("T3")
        assert [r["seq"] for r, _ in copy.records("T3", board, 1, 10, 20)] == list(range(11, 21))
        assert len(copy.table_records("T4")) == n
        copy.close()
    finally:
        if feed:
            feed.stop()
        for p in recorders.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait(20)
        log.close()
        url_store.close()
        mosq.stop()


def test_the_progressive_takes_what_the_bus_lost_from_the_record_on_postgres(url):
    """The controller's catch-up (`floor progressive --db postgresql://…`) reads the same copy."""
    schema.migrate(url)
    store = PgStore(url)
    r = rec.Recorder(
        store, "main", keys=floorkeys.JournalKeys(given={"T1": floorkeys.derive(feed_link_key("T1"), "journal")})
    )
    journal = TableJournal("T1")
    for kind, count in ((messages.PROG_WAGER, 5), (messages.PROG_HIT, 1)):
        payload, _ = journal.record(kind, count, "MEA")
        assert r.handle(topics.table("main", "T1", "event"), payload) == "stored"
    found = catch_up.missed(url, lambda key: False)
    assert [(i.kind, i.game, i.count, i.table, i.seq) for i in found] == [
        (messages.PROG_WAGER, "MEA", 5, "T1", 1),
        (messages.PROG_HIT, "MEA", 1, "T1", 2),
    ]
    assert catch_up.missed(url, lambda key: key[3] == 1)[0].seq == 2  # what the ledger has seen is left out
    gone = "postgresql://postgres@127.0.0.1:%d/floor" % broker.free_port()
    assert catch_up.missed(gone, lambda key: False) == []  # the database away: nothing now, the next look later
    store.close()


def test_a_board_erased_step_on_postgres_migrates_archives_once_and_takes_the_new_journal(url):
    import time

    import psycopg

    from host_tools.floor.base import erasure

    with psycopg.connect(url, autocommit=True) as conn:  # a floor's database at version 2, holding a record
        conn.execute("create table schema_version (version integer primary key, at double precision)")
        for number, sql in schema.MIGRATIONS[:2]:
            conn.execute(sql)
            conn.execute("insert into schema_version values (%s, 0)", (number,))
    migrated = host_tools("floor", "db", "migrate", "--db", url)
    assert migrated.returncode == 0 and migrated.stdout.strip() == "schema version 2 -> %d" % schema.VERSION
    journal_key = floorkeys.derive(feed_link_key("T1"), "journal")
    recorders = [
        rec.Recorder(
            PgStore(url), "main", publish=lambda *m: None, keys=floorkeys.JournalKeys(given={"T1": journal_key})
        )
        for _ in range(2)
    ]
    old = record_feed.journal("T1", 4)
    for p in old:
        assert recorders[0].handle(topics.table("main", "T1", "event"), p) == "stored"
    new = record_feed.journal("T1", 2, t0=5)  # the erased board's journal 1: another chain
    assert recorders[1].handle(topics.table("main", "T1", "event"), new[0]) == "rejected"
    board = record_feed.board_id("T1")
    signed = topics.encode(erasure.sign(journal_key, "T1", board, "T. Tech", time.time()))
    # both recorders on the one database take the step: it is taken once
    assert [r.handle(topics.table("main", "T1", "erased"), signed) for r in recorders] == ["erased", "duplicate"]
    for p in new:
        assert recorders[1].handle(topics.table("main", "T1", "event"), p) == "stored"
    store = recorders[0].store
    assert [row[4] for row in store.archived("T1")] == [1, 2, 3, 4]
    assert [row[3] for row in store.events("T1")] == [1, 2]
    [audit] = store.erasures("T1")
    assert (audit["step"], audit["by"], audit["journal"], audit["seq"], audit["archived"]) == (1, "T. Tech", 1, 4, 4)
    assert [a["kind"] for a in store.alerts()] == ["journal differs from the floor's copy", erasure.KIND]
    for r in recorders:
        r.store.close()
