"""The floor recorder's rules, message by message (no broker: messages are
given to Recorder.handle directly; the broker-side proofs are in
tests/test_floor_proof.py and tests/test_floor_inputs.py). Records are built
with the firmware's own codec (journal_record.encode), as a board writes them."""

import json

import pytest

from crapsboard.journal import journal_record as jr
from host_tools.floor.base import topics
from host_tools.floor.recorder import service as rec
from host_tools.floor.recorder.store import Store

FLOOR = "main"
BOARD = "240ac4000001"


def chain(n, journal=1, t0=0, head=None):
    """[(payload, record)] of records 1..n of a journal, each carrying the chain hash before it."""
    head = head or jr.encode_head(bytes.fromhex(BOARD), journal, 7)
    prev = jr.genesis(head)
    out = []
    for seq in range(1, n + 1):
        dice = [1 + seq % 6, 1 + (seq * 5) % 6]
        _, digest = jr.encode(prev, seq, t0 + 400 * seq, 1, dice[0] * 8 + dice[1])
        record = {
            "seq": seq,
            "t": t0 + 400 * seq,
            "kind": "roll",
            "arg": dice[0] * 8 + dice[1],
            "dice": dice,
            "link": digest[:8].hex(),
        }
        payload = topics.event_payload("T1", BOARD, journal, record, prev.hex(), head.hex() if seq == 1 else None)
        out.append((payload, record))
        prev = digest
    return out


@pytest.fixture
def recorder(tmp_path):
    store = Store(str(tmp_path / "recorder.sqlite"))
    sent = []
    r = rec.Recorder(store, FLOOR, publish=lambda topic, payload, retain: sent.append((topic, payload, retain)))
    r.sent = sent
    yield r
    store.close()


def event(r, payload, table="T1"):
    return r.handle(topics.table(FLOOR, table, "event"), payload)


def stored(r, table="T1"):
    return [row[0] for row in r.store.db.execute("select seq from events where tbl=? order by seq", (table,))]


def test_each_record_is_stored_once_in_order_and_copies_are_dropped(recorder):
    records = chain(6)
    assert [event(recorder, p) for p, _ in records] == ["stored"] * 6
    assert [event(recorder, p) for p, _ in records[2:5]] == ["duplicate"] * 3
    assert stored(recorder) == [1, 2, 3, 4, 5, 6]
    assert recorder.duplicates == 3
    assert recorder.store.alerts() == []
    recorder.tick(now=0.0)  # `recorded` goes out, retained: the gateways republish from there
    topic, payload, retain = recorder.sent[-1]
    assert topic == "crapsfloor/v1/main/table/T1/recorded" and retain
    assert json.loads(payload) == {"journal": {"board": BOARD, "id": 1}, "seq": 6, "table": "T1", "v": 1}


def test_records_arriving_out_of_order_after_a_republish_are_each_kept_and_checked(recorder):
    records = chain(5)
    for i in (0, 1, 3, 4, 2):  # 3 came late
        assert event(recorder, records[i][0]) == "stored"
    assert stored(recorder) == [1, 2, 3, 4, 5]
    assert recorder.store.alerts() == []


def test_a_hole_that_stays_open_is_a_gap_alert_once(recorder):
    records = chain(5)
    for i in (0, 1, 4):
        event(recorder, records[i][0])
    recorder.tick(now=100.0)
    assert recorder.store.alerts() == []  # a republish may still fill it
    recorder.tick(now=100.0 + rec.GAP_GRACE_S)
    recorder.tick(now=200.0)
    alerts = recorder.store.alerts()
    assert [(a["kind"], a["text"]) for a in alerts] == [("gap", "table T1 journal 1: records 3-4 never arrived")]
    alert_topics = [t for t, _, _ in recorder.sent if "/alert/" in t]
    assert alert_topics == ["crapsfloor/v1/main/alert/a1"]


def test_a_record_the_floor_holds_with_another_link_is_not_stored_and_is_an_alert(recorder):
    for p, _ in chain(4):
        event(recorder, p)
    rewritten = chain(4, t0=5)  # the same journal rewritten: other times, other links
    assert event(recorder, rewritten[2][0]) == "rejected"
    assert stored(recorder) == [1, 2, 3, 4]
    [alert] = recorder.store.alerts()
    assert alert["kind"] == "journal differs from the floor's copy"
    assert "record 3 of journal 1 differs" in alert["text"]


def test_a_record_whose_link_does_not_match_its_fields_is_chain_broken(recorder):
    payload, record = chain(3)[2]
    forged = json.loads(payload)
    forged["record"]["dice"] = [6, 6]
    forged["record"]["arg"] = 54  # a seven made into a twelve, its link left as it was
    for p, _ in chain(2):
        event(recorder, p)
    assert event(recorder, json.dumps(forged).encode()) == "rejected"
    assert stored(recorder) == [1, 2]
    assert [a["kind"] for a in recorder.store.alerts()] == ["chain broken"]


def test_a_record_that_does_not_continue_the_floors_chain_is_chain_broken(recorder):
    for p, _ in chain(3):
        event(recorder, p)
    other = chain(5, head=jr.encode_head(bytes.fromhex(BOARD), 1, 99))  # another head: another chain
    assert event(recorder, other[3][0]) == "rejected"  # record 4, but its prev is not the floor's record 3
    assert stored(recorder) == [1, 2, 3]
    assert [a["kind"] for a in recorder.store.alerts()] == ["chain broken"]


def test_a_stranger_message_on_a_tables_topic_stores_nothing_and_raises_an_alert(recorder):
    payload, _ = chain(1)[0]
    cases = [
        (topics.table(FLOOR, "T2", "event"), payload),  # T1's record on T2's topic
        (topics.table(FLOOR, "T1", "event"), b"rolls: 3 4"),
        (topics.table(FLOOR, "T1", "event"), json.dumps({"v": 2, "table": "T1"}).encode()),
        (topics.table(FLOOR, "T1", "event"), json.dumps({"v": 1, "table": "T1", "record": {}}).encode()),
        (topics.table(FLOOR, "T1", "presence"), b"maybe"),
    ]
    assert [recorder.handle(t, p) for t, p in cases] == ["rejected"] * len(cases)
    assert recorder.store.db.execute("select count(*) from events").fetchone()[0] == 0
    assert [a["kind"] for a in recorder.store.alerts()] == ["bad message"] * len(cases)


def test_a_board_back_with_fewer_records_than_the_floor_holds_is_an_alert(recorder):
    for p, _ in chain(5):
        event(recorder, p)
    topic = topics.table(FLOOR, "T1", "state")
    journal = {"board": BOARD, "id": 1, "seq": 3}
    # a state that only says seq 3 (one resent after a reconnect may be older than the records): no finding
    assert recorder.handle(topic, topics.encode({"table": "T1", "journal": journal, "status": {}})) == "state"
    assert recorder.store.alerts() == []
    # the gateway's finding: the board came back at record 3, the floor had 5
    short = {"journal": 1, "board_seq": 3, "floor_seq": 5}
    state = topics.encode({"table": "T1", "journal": journal, "status": {}, "short": short})
    assert recorder.handle(topic, state, retained=True) == "state"
    [alert] = recorder.store.alerts()
    assert alert["kind"] == "journal differs from the floor's copy"
    assert alert["text"] == "table T1's board came back with journal 1 ending at record 3; the floor recorded up to 5"
    recorder.handle(topic, state)
    assert len(recorder.store.alerts()) == 1  # the same finding is raised once
    # a finding the floor's copy does not bear out raises nothing
    short = {"journal": 1, "board_seq": 6, "floor_seq": 7}
    recorder.handle(topic, topics.encode({"table": "T1", "journal": journal, "status": {}, "short": short}))
    assert len(recorder.store.alerts()) == 1


def test_record_one_must_start_from_the_journals_head(recorder):
    payload, _ = chain(1)[0]
    obj = json.loads(payload)
    obj["head"] = jr.encode_head(bytes.fromhex(BOARD), 1, 8).hex()  # another head than the chain's
    assert event(recorder, json.dumps(obj).encode()) == "rejected"
    assert [a["kind"] for a in recorder.store.alerts()] == ["chain broken"]
