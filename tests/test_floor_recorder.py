"""The floor recorder's rules, message by message (no broker: messages are
given to Recorder.handle directly; the broker-side proofs are in
tests/test_floor_proof.py and tests/test_floor_inputs.py). Records are built
with the firmware's own codec (journal_record.encode), as a board writes them."""

import json

import pytest

from crapsboard.journal import journal_record as jr
from host_tools.floor.base import floorkeys, topics
from host_tools.floor.recorder import service as rec
from host_tools.floor.recorder.store import Store

FLOOR = "main"
BOARD = "240ac4000001"
LINK_KEY = bytes(range(32))  # the board's link key; the floor holds only the journal key derived from it
JOURNAL_KEY = floorkeys.derive(LINK_KEY, "journal")


def chain(n, journal=1, t0=0, head=None, key=JOURNAL_KEY):
    """[(payload, record)] of records 1..n of a journal, each carrying the chain hash before it
    and its MAC under `key` (the board's journal key; None: no MAC, a format 1 record)."""
    mac = jr.Mac(key) if key else None
    head = head or jr.encode_head(bytes.fromhex(BOARD), journal, 7, mac.key_id() if mac else None)
    prev = jr.genesis(head)
    out = []
    for seq in range(1, n + 1):
        dice = [1 + seq % 6, 1 + (seq * 5) % 6]
        _, digest = jr.encode(prev, seq, t0 + 400 * seq, 1, dice[0] * 8 + dice[1], b"", b"", mac)
        record = {
            "seq": seq,
            "t": t0 + 400 * seq,
            "kind": "roll",
            "arg": dice[0] * 8 + dice[1],
            "dice": dice,
            "link": digest[:8].hex(),
        }
        if mac:
            record["mac"] = mac.tag(digest).hex()
        payload = topics.event_payload("T1", BOARD, journal, record, prev.hex(), head.hex() if seq == 1 else None)
        out.append((payload, record))
        prev = digest
    return out


@pytest.fixture
def recorder(tmp_path):
    store = Store(str(tmp_path / "recorder.sqlite"))
    sent = []
    r = rec.Recorder(
        store,
        FLOOR,
        publish=lambda topic, payload, retain: sent.append((topic, payload, retain)),
        keys=floorkeys.JournalKeys(given={"T1": JOURNAL_KEY}),
    )
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
    body = json.loads(payload)
    assert body.pop("hash") == recorder.store.stored("T1", BOARD, 1, 6)[1]  # the chain hash after record 6
    assert body == {"journal": {"board": BOARD, "id": 1}, "seq": 6, "table": "T1", "v": 1}  # no receipt key here


def test_records_arriving_out_of_order_after_a_republish_are_each_kept_and_checked(recorder):
    records = chain(5)
    # 3 came late: 4 and 5 wait (their MACs checked) and are stored once 3 closes the gap
    assert [event(recorder, records[i][0]) for i in (0, 1, 3, 4)] == ["stored", "stored", "waiting", "waiting"]
    assert stored(recorder) == [1, 2]
    assert event(recorder, records[4][0]) == "waiting"  # a copy of a waiting record waits once
    assert event(recorder, records[2][0]) == "stored"
    assert stored(recorder) == [1, 2, 3, 4, 5]
    assert recorder.store.db.execute("select count(*) from waiting").fetchone()[0] == 0
    assert recorder.store.alerts() == []
    assert [event(recorder, p) for p, _ in records] == ["duplicate"] * 5


def test_a_hole_while_the_table_is_offline_is_no_gap_until_its_grace_has_passed_online(recorder):
    """docs/floor.md, Recorder: the missing records of a table whose gateway is not
    heard are in its outbox; the 10 s grace runs only while the table is online."""
    heard = [0.0]
    recorder.clock = lambda: heard[0]
    recorder.judge.heard("T1", 0.0, False)  # the gateway's will: offline
    records = chain(5)
    for i in (0, 1, 4):
        event(recorder, records[i][0])
    recorder.tick(now=100.0)
    recorder.tick(now=100.0 + 3 * rec.GAP_GRACE_S)
    assert recorder.store.alerts() == []
    heard[0] = 50.0
    recorder.judge.heard("T1", 50.0, True, 4)  # back: the grace starts now
    recorder.tick(now=100.0 + 3 * rec.GAP_GRACE_S + rec.GAP_GRACE_S - 1)
    assert recorder.store.alerts() == []
    recorder.tick(now=100.0 + 4 * rec.GAP_GRACE_S)
    assert [a["kind"] for a in recorder.store.alerts()] == ["gap"]


def test_a_hole_that_stays_open_is_a_gap_alert_once(recorder):
    records = chain(5)
    for i in (0, 1, 4):
        event(recorder, records[i][0])
    recorder.tick(now=100.0)
    assert recorder.store.alerts() == []  # a republish may still fill it
    recorder.tick(now=100.0 + rec.GAP_GRACE_S)
    recorder.tick(now=200.0)
    alerts = recorder.store.alerts()
    assert [(a["kind"], a["text"]) for a in alerts] == [
        ("gap", "table T1 journal 1: records 3-4 never arrived (the later ones wait, their MACs checked)")
    ]
    alert_topics = [t for t, _, _ in recorder.sent if "/alert/" in t]
    assert alert_topics == ["crapsfloor/v1/main/alert/a1"]
    assert stored(recorder) == [1, 2]  # 5 waits, not lost
    assert [event(recorder, records[i][0]) for i in (3, 2)] == ["waiting", "stored"]
    assert stored(recorder) == [1, 2, 3, 4, 5]


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
    assert alert["text"] == (
        "table T1's board came back with journal 1 ending at record 3; the floor recorded up to 5"
        + rec.erased_step("T1", BOARD)
    )
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


def forged(payload, **record_fields):
    obj = json.loads(payload)
    obj["record"].update(record_fields)
    return json.dumps(obj).encode()


@pytest.mark.parametrize(
    "how",
    ["a MAC of zeros", "a MAC under another key", "no MAC", "the public chain recomputed, MAC under another key"],
)
def test_a_record_the_board_did_not_write_is_stored_nowhere_and_the_genuine_one_still_is(recorder, how):
    genuine = chain(4)
    for p, _ in genuine[:2]:
        event(recorder, p)
    if how == "a MAC of zeros":
        fake = forged(genuine[2][0], mac="00" * 8)
    elif how == "no MAC":
        fake = chain(4, key=None)[2][0]  # a format 1 record: the public chain alone
    elif how == "a MAC under another key":
        fake = chain(4, key=bytes(32))[2][0]
    else:  # a seven made a twelve, its link made to match: every key the gateway host holds is no journal key
        obj = json.loads(genuine[2][0])
        prev = bytes.fromhex(obj["prev"])
        other = jr.Mac(floorkeys.derive(LINK_KEY, "gateway"))
        _, digest = jr.encode(prev, 3, obj["record"]["t"], 1, 6 * 8 + 6, b"", b"", other)
        fake = forged(genuine[2][0], arg=54, dice=[6, 6], link=digest[:8].hex(), mac=other.tag(digest).hex())
    assert event(recorder, fake) == "rejected"
    assert stored(recorder) == [1, 2]
    assert recorder.store.db.execute("select count(*) from waiting").fetchone()[0] == 0
    [alert] = recorder.store.alerts()
    assert alert["kind"] == rec.NOT_THE_BOARDS
    assert "a record T1's board did not write came from gateway-T1: record 3 of journal 1" in alert["text"]
    assert [t for t, _, _ in recorder.sent if "/alert/" in t] == ["crapsfloor/v1/main/alert/a1"]
    # the genuine record 3, arriving after the forgery, takes its place
    assert [event(recorder, p) for p, _ in genuine[2:]] == ["stored", "stored"]
    assert stored(recorder) == [1, 2, 3, 4]


def test_a_forged_record_after_a_gap_does_not_wait_and_the_genuine_one_closes_it(recorder):
    genuine = chain(6)
    event(recorder, genuine[0][0])
    assert event(recorder, forged(genuine[4][0], mac="11" * 8)) == "rejected"  # a forged 5 cannot wait
    assert recorder.store.db.execute("select count(*) from waiting").fetchone()[0] == 0
    assert [event(recorder, genuine[i][0]) for i in (4, 5, 1, 2, 3)] == ["waiting"] * 2 + ["stored"] * 3
    assert stored(recorder) == [1, 2, 3, 4, 5, 6]


def test_a_table_whose_journal_key_the_floor_lacks_stores_nothing(recorder):
    obj = json.loads(chain(1)[0][0])
    obj["table"] = "T2"
    payload = json.dumps(obj).encode()
    assert recorder.handle(topics.table(FLOOR, "T2", "event"), payload) == "rejected"
    [alert] = recorder.store.alerts()
    assert alert["kind"] == rec.NOT_THE_BOARDS and "no journal key for table T2" in alert["text"]


def test_waiting_records_outlast_a_restart_of_the_recorder(tmp_path):
    path = str(tmp_path / "r.sqlite")
    keys = floorkeys.JournalKeys(given={"T1": JOURNAL_KEY})
    records = chain(4)
    first = rec.Recorder(Store(path), FLOOR, keys=keys)
    assert [event(first, records[i][0]) for i in (0, 2, 3)] == ["stored", "waiting", "waiting"]
    first.store.close()
    again = rec.Recorder(Store(path), FLOOR, keys=keys)
    assert event(again, records[1][0]) == "stored"
    assert stored(again) == [1, 2, 3, 4]
    again.store.close()


def test_recorded_carries_the_recorders_receipt_the_board_checks(tmp_path):
    import hashlib
    import hmac

    floorkeys.provision(str(tmp_path), "T1", LINK_KEY, ("journal", "receipt"))
    sent = []
    r = rec.Recorder(
        Store(str(tmp_path / "r.sqlite")),
        FLOOR,
        publish=lambda topic, payload, retain: sent.append((topic, payload)),
        keys=floorkeys.JournalKeys(str(tmp_path)),
    )
    for p, _ in chain(4):
        assert event(r, p) == "stored"
    r.tick(now=0.0)
    body = json.loads(sent[-1][1])
    assert body["seq"] == 4 and body["hash"] == r.store.stored("T1", BOARD, 1, 4)[1]
    # what the board computes (crapsboard/link/link_admin.py): HMAC(HMAC(link key, the receipt label), text)
    receipt_key = hmac.new(LINK_KEY, b"crapsboard role receipt", hashlib.sha256).digest()
    text = ("crapsboard receipt %s 1 4 %s" % (BOARD, body["hash"])).encode()
    assert body["receipt"] == hmac.new(receipt_key, text, hashlib.sha256).hexdigest()
    r.store.close()


def test_a_waiting_record_stored_meanwhile_is_no_gap(recorder):
    """Two recorders on one database: a record one of them holds waiting may be
    stored by the other. Once the floor holds it, it waits no longer and makes
    no hole: no gap alert however long it sat there."""
    records = chain(3)
    for payload, _ in records:
        event(recorder, payload)
    store = recorder.store
    digest = bytes(32)
    store.add_waiting("T1", BOARD, 1, records[1][1], digest, "00" * 32)  # seq 2, stored already
    assert store.gaps() == []
    assert store.waiting("T1", BOARD, 1, 2) is None
    recorder.tick(now=0.0)
    recorder.tick(now=10 * rec.GAP_GRACE_S)
    assert store.alerts() == []


def step(recorder, fields, table="T1"):
    return recorder.handle(topics.table(FLOOR, table, "erased"), topics.encode(fields))


def test_a_board_erased_step_archives_the_old_journal_and_takes_the_new_one_from_record_1(recorder):
    import time

    from host_tools.floor.base import erasure

    for p, _ in chain(5):
        assert event(recorder, p) == "stored"
    other_head = jr.encode_head(bytes.fromhex(BOARD), 1, 99, jr.Mac(JOURNAL_KEY).key_id())
    fresh = chain(3, head=other_head)  # the erased board's new journal 1
    assert event(recorder, fresh[0][0]) == "rejected"
    [differs] = recorder.store.alerts()
    assert differs["text"].endswith(rec.erased_step("T1", BOARD))
    signed = erasure.sign(JOURNAL_KEY, "T1", BOARD, "T. Tech", time.time())
    assert step(recorder, signed) == "erased"
    assert step(recorder, signed) == "duplicate"  # the same step again (a second recorder's copy): once
    notice = recorder.store.alerts()[-1]
    assert notice["kind"] == erasure.KIND and notice["text"].endswith(
        ", by technician T. Tech; the old journal 1 received up to record 5 (its records archived, step 1)"
    )
    recorder.tick(now=0.0)
    recorded = json.loads(recorder.sent[-1][1])
    assert (recorded["erased"], recorded["seq"], recorded["journal"]) == (1, 0, {"board": BOARD, "id": 0})
    for p, _ in fresh:
        assert event(recorder, p) == "stored"
    assert stored(recorder) == [1, 2, 3]
    assert [r[4] for r in recorder.store.archived("T1")] == [1, 2, 3, 4, 5]
    recorder.tick(now=1.0)
    assert json.loads(recorder.sent[-1][1])["erased"] == 1
    assert json.loads(recorder.sent[-1][1])["seq"] == 3


def test_a_record_of_the_new_journal_published_before_the_gateway_heard_the_step_loses_no_record(recorder):
    """The gateway read a record of the erased board's new journal just before the
    step and publishes it after the recorder took the step; it then hears the step
    and publishes the new journal from record 1. Every record is stored: the early
    ones do not wait behind the one that came first, and none is dropped."""
    import time

    from host_tools.floor.base import erasure

    for p, _ in chain(5):
        event(recorder, p)
    fresh = chain(4, head=jr.encode_head(bytes.fromhex(BOARD), 1, 99, jr.Mac(JOURNAL_KEY).key_id()))
    assert step(recorder, erasure.sign(JOURNAL_KEY, "T1", BOARD, "T. Tech", time.time())) == "erased"
    assert event(recorder, fresh[3][0]) == "stored"  # record 4, the floor holding none of this journal
    assert [event(recorder, p) for p, _ in fresh] == ["stored", "stored", "stored", "duplicate"]
    assert stored(recorder) == [1, 2, 3, 4]
    recorder.tick(now=0.0)
    recorder.tick(now=10 * rec.GAP_GRACE_S)
    assert stored(recorder) == [1, 2, 3, 4]
    assert recorder.store.db.execute("select count(*) from waiting").fetchone()[0] == 0
    assert [a["kind"] for a in recorder.store.alerts()] == [erasure.KIND]
    assert json.loads(recorder.sent[-1][1])["seq"] == 4


def test_a_record_below_the_first_one_held_still_waits_after_a_gap_check(recorder):
    """The floor holds records 4-5 of a journal (the first it heard); 2 comes and
    waits for 1. Checking for gaps keeps it waiting (it is not stored), and 1
    then stores both."""
    records = chain(5)
    for i in (3, 4):
        event(recorder, records[i][0])
    assert event(recorder, records[1][0]) == "waiting"
    assert recorder.store.gaps() == [("T1", BOARD, 1, 1, 1)]  # record 1 missing before the one waiting
    assert recorder.store.waiting("T1", BOARD, 1, 2) is not None
    assert event(recorder, records[0][0]) == "stored"
    assert stored(recorder) == [1, 2, 4, 5]


def test_a_board_erased_step_not_under_the_journal_key_archives_nothing(recorder):
    import time

    from host_tools.floor.base import erasure

    for p, _ in chain(2):
        event(recorder, p)
    for fields in (
        erasure.sign(floorkeys.derive(LINK_KEY, "gateway"), "T1", BOARD, "mallory", time.time()),
        erasure.sign(JOURNAL_KEY, "T1", BOARD, "mallory", time.time() - 3600),
        erasure.sign(JOURNAL_KEY, "T2", BOARD, "mallory", time.time()),
        {"table": "T1"},
        erasure.sign(JOURNAL_KEY, "T1", "240ac4ffffff", "T. Tech", time.time()),  # a board id mistyped
    ):
        assert step(recorder, fields) == "rejected"
    kinds = [a["kind"] for a in recorder.store.alerts()]
    assert kinds == [erasure.REFUSED] * 5
    assert recorder.store.alerts()[-1]["text"].endswith("the floor holds no record of board 240ac4ffffff at table T1")
    assert stored(recorder) == [1, 2] and recorder.store.erasures() == []
