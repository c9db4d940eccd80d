"""The progressive's controller against a real mosquitto: the tables' records in,
the meter out (retained, after the ledger's commit), near-simultaneous hits in
the ledger's order, a SIGKILL and restart back to the exact meter and the same
order, a copy of a hit refused, the shift manager's acknowledgement, the
controller's presence, and the broker refusing anyone else's meter."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from progressive_floor import ROOT, Floor

from host_tools.floor.base import topics
from host_tools.floor.progressive import ledger, messages

pytestmark = pytest.mark.timeout(180)
WAGER, HIT = messages.PROG_WAGER, messages.PROG_HIT


@pytest.fixture
def floor(tmp_path):
    f = Floor(tmp_path / "floor")
    yield f
    f.close()


def stored(floor):
    """The ledger's meters and log, read as another process would."""
    book = ledger.Ledger(os.path.join(floor.dir, "progressive.sqlite"), readonly=True)
    try:
        rows = book.log_rows()
        meters = book.meters(book.params())
        return {g: m.dump() for g, m in meters.items()}, rows, {g: m.dump() for g, m in ledger.replay(rows).items()}
    finally:
        book.close()


def hit_order(rows):
    return [
        (json.loads(body)["table"], json.loads(body)["seq"])
        for _, _, what, _, body, outcome in rows
        if what == "input" and '"prog_hit"' in body and outcome == "applied"
    ]


def test_contributions_hits_a_sigkill_and_the_same_meter_and_order_after_it(floor):
    floor.start_controller()
    assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
    assert floor.wait(lambda: "online" in floor.presence_words())
    # Six $1 MEA wagers at three tables: 60 cents to the meter, 12 to the reserve.
    floor.send("T1", WAGER, 3)
    floor.send("T2", WAGER, 2)
    floor.send("T3", WAGER, 1)
    # Two $5 FUP wagers: 2 x 500 x 5% = 50 cents, 10 to the reserve.
    floor.send("T1", WAGER, 2, game="FUP")
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_060 and floor.meters["MEA"]["reserve"] == 12)
    assert floor.wait(lambda: floor.meters["FUP"]["amount"] == 500_050)
    # Near-simultaneous hits at T3 and T2, each its gateway's own connection, back to back.
    floor.send("T3", HIT, 1)
    t2_hit, _ = floor.send("T2", HIT, 2)
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1, 2])
    _, rows, _ = stored(floor)
    order = hit_order(rows)
    assert sorted(order) == [("T2", 2), ("T3", 2)]  # each table's record 2
    # The first in the ledger's order takes the meter of 100,060; the second shares the reseed.
    meters, _, replayed = stored(floor)
    first, second = meters["MEA"]["hits"]
    assert (first["table"], first["pays"]) == (order[0][0], [100_060] if order[0][0] == "T3" else [50_030, 50_030])
    assert first["meter_at_hit"] == 100_060 and second["meter_at_hit"] == 100_000
    assert meters == replayed  # the ledger's meters are the fold of its log
    before = floor.meters["MEA"]
    assert before["state"] == "pending"

    floor.kill_controller(signal.SIGKILL)
    assert floor.wait(lambda: floor.presence_words()[-1] == "offline")  # the broker's last will, at once
    floor.send("T1", WAGER, 4)  # while it is away: queued by the broker for its session
    floor.start_controller()
    assert floor.wait(lambda: floor.presence_words()[-1] == "online")
    assert floor.wait(lambda: floor.meters["MEA"]["rev"] == before["rev"] + 1)
    after = floor.meters["MEA"]
    assert after["amount"] == before["amount"] + 40 and after["pending"] == [1, 2]
    meters_after, rows_after, replayed_after = stored(floor)
    assert hit_order(rows_after) == order  # the same order after the restart
    assert meters_after["MEA"]["hits"][:2] == meters["MEA"]["hits"]
    assert meters_after == replayed_after

    # T2's hit published again (a gateway reconnecting): refused, nothing changes.
    floor.republish("T2", t2_hit)
    floor.after_handling("refused: hit already claimed")
    assert floor.meters["MEA"]["rev"] == after["rev"]

    # A floor supervisor cannot acknowledge it; the shift manager can, hit by hit.
    floor.ack("bob", "prog-MEA-1")
    floor.ack("sam", "prog-MEA-%d" % 1, note="paid at T%s" % order[0][0][1])
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [2])
    floor.ack("sam", "prog-MEA-2")
    assert floor.wait(lambda: floor.meters["MEA"]["state"] == "open")
    meters_end, rows_end, replayed_end = stored(floor)
    assert [h["acked_by"] for h in meters_end["MEA"]["hits"]] == ["sam", "sam"]
    assert any("only a shift manager acknowledges" in outcome for *_, outcome in rows_end)
    assert meters_end == replayed_end


def test_a_hit_of_no_wagers_and_a_broken_record_change_nothing(floor):
    floor.start_controller()
    assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
    floor.send("T1", WAGER, 1)
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_010)
    rev = floor.meters["MEA"]["rev"]
    floor.send("T1", HIT, 0)  # a top award with no winning wager
    payload, rec = floor.journals["T2"].record(WAGER, 5, "MEA")
    forged = json.loads(payload)
    forged["record"]["arg"] = 50  # a count changed on the way: its link no longer matches
    floor.republish("T2", topics.encode(forged))
    floor.after_handling("record 2 of journal 1: a count of 0 wagers (1-99)", "its link does not match its fields")
    assert floor.meters["MEA"]["amount"] == 100_010 and floor.meters["MEA"]["rev"] == rev


def test_a_strangers_meter_is_refused_by_the_broker(floor):
    floor.start_controller()
    assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
    fake = topics.encode({"game": "MEA", "amount": 1, "state": "open"})
    meter_topic = topics.meter("main", "MEA")
    for user in ("gateway-T1", "page", "recorder", "floorctl"):
        floor.client(user).publish(meter_topic, fake, qos=1, retain=True).wait_for_publish(5)
    floor.client("sam", "sam's long password").publish(meter_topic, fake, qos=1, retain=True).wait_for_publish(5)
    floor.after_handling()  # the controller's next heartbeats come after the strangers' meters
    assert all(json.loads(p).get("amount") != 1 for t, p in floor.seen if t == meter_topic)
    # A new subscriber gets the controller's retained meter, not the stranger's.
    late = []
    c = floor.client("floorctl", name="late")
    c.on_message = lambda client, u, m: late.append(json.loads(m.payload))
    c.subscribe(meter_topic, qos=1)
    end = time.monotonic() + 5
    while not late and time.monotonic() < end:
        time.sleep(0.05)
    assert late and late[0]["amount"] == 100_000
    # A table's gateway reads the meters (to show them on its board): the ACL lets it.
    heard = []
    g = floor.client("gateway-T3", name="gateway-T3-reader")
    g.on_message = lambda client, u, m: heard.append(m.topic)
    g.subscribe([(meter_topic, 1), (messages.presence_topic("main"), 1)])
    end = time.monotonic() + 5
    while len(set(heard)) < 2 and time.monotonic() < end:
        time.sleep(0.05)
    assert set(heard) == {meter_topic, messages.presence_topic("main")}
    # Nor can a stranger say the controller is there when it is not.
    floor.kill_controller(signal.SIGTERM)
    assert floor.wait(lambda: floor.presence_words()[-1] == "offline")
    stranger = floor.client("gateway-T2")
    stranger.publish(messages.presence_topic("main"), b"online", qos=1, retain=True).wait_for_publish(5)
    # Bounded by what the same client publishes next where it may: the broker
    # handles one client's messages in order, so the word was dropped by then.
    marks, subscribed = [], []
    marker = floor.client("floorctl", name="marker")
    marker.on_message = lambda client, u, m: marks.append(m.payload)
    marker.on_subscribe = lambda client, u, mid, codes, properties: subscribed.append(mid)
    state_topic = topics.table("main", "T2", "state")
    assert floor.wait(lambda: marker.is_connected(), 5)
    marker.subscribe(state_topic, qos=1)
    assert floor.wait(lambda: subscribed, 5)
    stranger.publish(state_topic, b'{"table": "T2", "mark": 1}', qos=1).wait_for_publish(5)
    assert floor.wait(lambda: b'{"table": "T2", "mark": 1}' in marks, 10)
    assert floor.presence_words()[-1] == "offline"


def test_a_bad_parameters_file_is_refused_with_one_line_and_no_ledger(tmp_path):
    f = Floor(tmp_path / "floor", with_people=False)
    try:
        with open(os.path.join(f.dir, "progressive.json"), "w") as out:
            json.dump(
                {
                    "MEA": {
                        "paytable": "PT-BJS-MEA-01",
                        "base_unit": 100,
                        "base": 100_000,
                        "reset": 100_000,
                        "increment_ppm": -5,
                        "reserve_ppm": 0,
                        "reserve_ceiling": 200_000,
                        "cap": 5_000_000,
                    }
                },
                out,
            )
        done = subprocess.run(
            [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", f.dir],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == ["host_tools floor: MEA increment_ppm: -5 is below 1000"]
        assert not os.path.exists(os.path.join(f.dir, "progressive.sqlite"))
    finally:
        f.close()
