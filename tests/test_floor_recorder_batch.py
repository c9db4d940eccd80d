"""The recorder stores the messages that arrived together in one
transaction and acknowledges them only once it is committed: on SQLite and
on a real PostgreSQL (its own cluster, bench/floor/pgserver.py), with real mosquitto
and recorder processes (tests/recorder_faults.py) for the deaths around the
commit. A record the database or the checks refuse costs the others of its
batch nothing; a recorder that dies after the commit gets the batch again
and keeps none of it twice; one that dies before it gets it again and
stores it."""

import json
import os
import subprocess
import sys
import time

import pytest

from bench.floor import pgserver, record_feed
from bench.floor.localfloor import have_mosquitto
from bench.floor.progressive_feed import feed_link_key
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.bus import broker
from host_tools.floor.pg import schema
from host_tools.floor.pg.store import PgStore
from host_tools.floor.recorder import inbox
from host_tools.floor.recorder import service as rec
from host_tools.floor.recorder.store import Store
from sim.paths import ROOT

needs_postgresql = pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or "")

_databases = iter(range(1, 1000))


@pytest.fixture(scope="module")
def server():
    s = pgserver.Server().start()
    yield s
    s.remove()


@pytest.fixture
def url(server):
    u = server.create("batch%d" % next(_databases))
    schema.migrate(u)
    return u


def event(table, payload):
    return (topics.table("main", table, "event"), payload, False)


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, tmp_path):
    if request.param == "sqlite":
        store = Store(str(tmp_path / "r.sqlite"))
    else:
        if pgserver.why_not() is not None:
            pytest.skip(pgserver.why_not())
        store = PgStore(request.getfixturevalue("url"))
    yield store
    store.close()


def test_a_bad_message_in_a_batch_costs_the_others_nothing_and_its_alerts_are_said_once_committed(any_store):
    said = []
    keys = floorkeys.JournalKeys(given={"T1": floorkeys.derive(feed_link_key("T1"), "journal")})
    r = rec.Recorder(any_store, "main", publish=lambda topic, payload, retain: said.append(topic), keys=keys)
    good = record_feed.journal("T1", 4)
    refused = json.loads(good[1])
    refused["journal"]["id"] = 2**70  # the checks pass (the MAC is the record's); no database column holds it
    forged = json.loads(good[2])
    forged["record"]["mac"] = "00" * 8
    batch = [good[0], json.dumps(refused).encode(), good[1], json.dumps(forged).encode(), good[2], good[3]]
    results = r.handle_batch([event("T1", p) for p in batch])
    assert results == ["stored", "rejected", "stored", "rejected", "stored", "stored"]
    assert record_feed.check_store(any_store, "T1", 4) == []
    kinds = [(a["kind"], "the database refused it" in a["text"]) for a in any_store.alerts()]
    assert sorted(kinds) == [("bad message", True), (rec.NOT_THE_BOARDS, False)]
    assert len(said) == 2  # each alert said once, though the batch ran twice (whole, then one by one)


@needs_postgresql
def test_a_batch_is_one_transaction_and_a_record_after_it_one_more(url):
    store = PgStore(url)
    keys = floorkeys.JournalKeys(given={t: floorkeys.derive(feed_link_key(t), "journal") for t in ("T1", "T2")})
    r = rec.Recorder(store, "main", keys=keys)
    t1, t2 = record_feed.journal("T1", 11), record_feed.journal("T2", 10)
    batch = [event(t, p) for pair in zip(t1, t2) for t, p in zip(("T1", "T2"), pair)]
    assert r.handle_batch(batch) == ["stored"] * 20
    assert r.handle(*event("T1", t1[10])) == "stored"
    # rows inserted by one transaction carry its id (xmin): the batch's 20 share one, the lone record has its own
    rows = store.db.execute("select xmin::text, count(*) from events group by xmin::text order by count(*)")
    assert [n for _, n in rows] == [1, 20]
    store.close()


def _notes(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def _recorder(directory, db, notes, mode):
    log = open(os.path.join(directory, "logs", "recorder.log"), "ab")
    p = subprocess.Popen(
        [sys.executable, "tests/recorder_faults.py", directory, db, notes, mode], stdout=log, stderr=log, cwd=ROOT
    )
    log.close()
    return p


def _wait(predicate, what, timeout=30):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@needs_postgresql
@pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)")
@pytest.mark.parametrize("dies", ["after-commit", "before-commit"])
def test_a_recorder_dying_around_its_commit_loses_nothing_and_doubles_nothing(url, tmp_path, dies):
    """A backlog waits at the broker for the recorder's session; the recorder takes it in
    batches and dies at its first batch of two records or more, after committing it (nothing
    acknowledged) or before. Started again, it gets that batch again: after the commit every
    record of it is a copy the key drops, before it they are stored now. Every record once,
    in order."""
    tables, n = ["T1", "T2"], 60
    directory = str(tmp_path / "floor")
    floor = floordir.new_floor(directory, "main", tables, broker.free_port(), broker.free_port())
    broker.write_config(directory, floor)
    mosq = broker.Broker(directory).start()
    log = os.path.join(directory, "logs", "recorder.log")
    stop = os.path.join(directory, "stop-recorder")
    first, second = str(tmp_path / "first.jsonl"), str(tmp_path / "second.jsonl")
    feed = None
    readonly = PgStore(url, readonly=True)
    try:
        feed = record_feed.Feed(directory, floor, "mqtt://127.0.0.1:%d" % floor["port"])
        p = _recorder(directory, url, str(tmp_path / "subscribe.jsonl"), "run")  # its session subscribed
        _wait(lambda: os.path.exists(log) and b"connected to the broker" in open(log, "rb").read(), "no broker")
        open(stop, "w").close()
        assert p.wait(20) == 0
        os.remove(stop)
        feed.publish_all({t: record_feed.journal(t, n) for t in tables})  # queued for the recorder's session

        assert _recorder(directory, url, first, dies).wait(60) == 9
        died = _notes(first)
        stored_before = readonly.db.execute("select count(*) from events").fetchone()[0]
        assert stored_before == sum(1 for b in died for _, _, r in b if r == "stored")  # nothing more committed

        p = _recorder(directory, url, second, "run")
        total = len(tables) * n
        _wait(lambda: readonly.db.execute("select count(*) from events").fetchone()[0] == total, "not all stored")
        open(stop, "w").close()
        assert p.wait(20) == 0
        again = _notes(second)
        for t in tables:
            assert record_feed.check_store(readonly, t, n) == []
        assert readonly.alerts() == []
        copies = {(t, s) for b in again for t, s, r in b if r == "duplicate"}
        if dies == "after-commit":
            last = died[-1]
            assert len(last) >= 2 and {r for _, _, r in last} == {"stored"}
            assert {(t, s) for t, s, _ in last} <= copies  # committed, never acknowledged: all sent again
        else:
            assert all(r in ("stored", "duplicate") for b in again for _, _, r in b)
        sizes = [len(b) for b in died + again]
        assert max(sizes) <= inbox.MOST and max(sizes) > 1, sizes
    finally:
        if feed:
            feed.stop()
        readonly.close()
        mosq.stop()
