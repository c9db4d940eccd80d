"""What the recorder's `recorded` says of a table is what its store holds,
whether the recorder knew it (its head, carried forward by the records it
stored in order: no statement reads the journal) or asked the store: after
records in order, after copies of records another recorder on the same
database stored, after a record of another journal, and after a
board-erased step another recorder took. Two
recorders on one SQLite file, messages given to them directly."""

import json
import time

import pytest

from bench.floor import record_feed
from bench.floor.progressive_feed import feed_link_key
from host_tools.floor.base import erasure, floorkeys, topics
from host_tools.floor.recorder import service as rec
from host_tools.floor.recorder.store import Store

KEY = floorkeys.derive(feed_link_key("T1"), "journal")
JOURNAL_READS = ("max(seq)", "count(*)", "group by")  # last_journal's and contiguous()'s statements


def recorder(path):
    sent = []
    r = rec.Recorder(
        Store(path), "main", publish=lambda *m: sent.append(m), keys=floorkeys.JournalKeys(given={"T1": KEY})
    )
    r.sent = sent
    return r


@pytest.fixture
def two(tmp_path):
    path = str(tmp_path / "recorder.sqlite")
    a, b = recorder(path), recorder(path)
    yield a, b, path
    a.store.close()
    b.store.close()


def take(r, payloads):
    return r.handle_batch([(topics.table("main", "T1", "event"), p, False) for p in payloads])


def says(r):
    """The `recorded` body `r` publishes now, and the statements it ran to make it."""
    ran = []
    r.store.db.set_trace_callback(ran.append)
    r.dirty.add("T1")
    r.said.pop("T1", None)
    r.tick(now=time.monotonic())
    r.store.db.set_trace_callback(None)
    topic, payload, _ = r.sent[-1]
    assert topic.endswith("/T1/recorded")
    return json.loads(payload), ran


def asked(path):
    """What a recorder that knows nothing yet says: the store's own answer."""
    fresh = recorder(path)
    try:
        return says(fresh)[0]
    finally:
        fresh.store.close()


def reads_the_journal(statements):
    return [s for s in statements if any(w in s for w in JOURNAL_READS)]


def test_recorded_is_the_stores_answer_whether_the_recorder_knew_it_or_asked(two):
    a, b, path = two
    journal = record_feed.journal("T1", 15)
    assert take(a, journal[:5]) == ["stored"] * 5
    first, ran = says(a)
    assert first == asked(path) and first["seq"] == 5 and reads_the_journal(ran)  # learnt from the store
    assert take(a, journal[5:10]) == ["stored"] * 5
    known, ran = says(a)
    assert known == asked(path) and known["seq"] == 10 and not reads_the_journal(ran), ran  # carried forward

    second = record_feed.journal("T1", 3, journal_id=2)  # the board's next journal, its first records by b
    assert take(b, second[:2]) == ["stored"] * 2
    assert take(a, second[2:]) == ["stored"]  # continues b's record 2: not after a's head
    other, _ = says(a)
    assert other == asked(path) and (other["journal"]["id"], other["seq"]) == (2, 3)

    assert take(b, journal[10:15]) == ["stored"] * 5  # the other recorder stores first
    assert take(a, journal[10:13]) == ["duplicate"] * 3
    copies, ran = says(a)  # a copy: asked again
    assert copies == asked(path) and (copies["journal"]["id"], copies["seq"]) == (1, 15)
    assert reads_the_journal(ran)

    signed = erasure.sign(KEY, "T1", record_feed.board_id("T1"), "T. Tech", time.time())
    assert b.handle(topics.table("main", "T1", "erased"), topics.encode(signed)) == "erased"
    after, ran = says(a)  # a has not had the step yet: its head was learnt under no step
    assert after == asked(path) and (after["erased"], after["seq"]) == (1, 0) and reads_the_journal(ran)

    fresh = record_feed.journal("T1", 3, t0=7)  # the erased board's new journal 1
    assert take(a, fresh) == ["stored"] * 3
    new, _ = says(a)
    assert new == asked(path) and (new["erased"], new["seq"]) == (1, 3)
