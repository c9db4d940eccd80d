"""Kind 25 prog_void through the controller's process on a real mosquitto
(docs/progressive.md, "Corrections"): a PENDING hit voided at its table is
reversed to the cent and stays PENDING for the shift manager, also when the
void reaches a controller SIGKILLed meanwhile and after a second SIGKILL; a
void of an acknowledged hit moves no money and the page alerts the shift
manager and surveillance; a void of no known hit, with another count, or
malformed is refused with its reason, and a copy of a void is a duplicate.
The ledger's replay equals its meters throughout."""

import json
import signal

import pytest
from progressive_floor import Floor
from test_progressive_controller import stored

from host_tools.floor.base import topics
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.progressive import ledger, messages

pytestmark = pytest.mark.timeout(180)
WAGER, HIT = messages.PROG_WAGER, messages.PROG_HIT
MONEY = ("amount", "amount_frac", "reserve", "reserve_frac", "house", "paid")


@pytest.fixture
def floor(tmp_path):
    f = Floor(tmp_path / "floor")
    f.start_controller()
    assert f.wait(lambda: f.meters.get("MEA", {}).get("amount") == 100_000)
    yield f
    f.close()


def void(floor, table, hit_seq, count, game="MEA", by_name=False):
    """Table `table`'s board voids its record `hit_seq`, published as its gateway does."""
    payload, rec = floor.journals[table].void(hit_seq, count, game)
    if by_name:  # as the firmware's link names the kind; the chain link is over the number
        obj = json.loads(payload)
        obj["record"]["kind"] = "prog_void"
        payload = topics.encode(obj)
    floor.republish(table, payload)
    return payload


def money(floor, game="MEA"):
    meters, _, _ = stored(floor)
    return {k: meters[game][k] for k in MONEY}


def page_alerts(floor):
    """The pit page's alerts after the meter messages the floor carried, in order."""
    view = FloorView("main", list(floor.journals), clock=lambda: 100.0)
    for topic, payload in list(floor.seen):
        view.message(topic, payload)
    return view.book.alerts


def test_a_pending_hit_voided_is_reversed_to_the_cent_and_survives_sigkills(floor):
    floor.send("T1", WAGER, 5)  # 50 cents to the meter, 10 to the reserve
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_050 and floor.meters["MEA"]["reserve"] == 10)
    before_hit = money(floor)
    assert before_hit == {
        "amount": 100_050,
        "amount_frac": 0,
        "reserve": 10,
        "reserve_frac": 0,
        "house": 100_000,
        "paid": 0,
    }
    floor.send("T1", HIT, 2)  # record 2: 50,025 each; the reseed 10 from the reserve, 99,990 from the house
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1])
    assert money(floor) == {
        "amount": 100_000,
        "amount_frac": 0,
        "reserve": 0,
        "reserve_frac": 0,
        "house": 199_990,
        "paid": 100_050,
    }
    assert page_alerts(floor)["prog-MEA-1"].kind == "progressive_pending"

    # The controller is away when the void comes: the broker queues it for its session.
    floor.kill_controller(signal.SIGKILL)
    assert floor.wait(lambda: floor.presence_words()[-1] == "offline")
    void(floor, "T1", 2, 2, by_name=True)
    floor.start_controller()
    assert floor.wait(lambda: floor.meters["MEA"].get("voided") == [1])
    shown = floor.meters["MEA"]
    assert (shown["amount"], shown["reserve"], shown["state"], shown["pending"]) == (100_050, 10, "pending", [1])
    assert money(floor) == before_hit
    meters, rows, replayed = stored(floor)
    assert meters == replayed
    assert rows[-1][2:4] == ("input", "MEA") and rows[-1][5] == "applied"
    assert json.loads(rows[-1][4])["reversed"] is True
    assert "MEA hit 1 at T1 voided by its table (record 3 undid the roll): reversed, meter 100050 cents" in (
        floor.controller_log()
    )
    alert = page_alerts(floor)["prog-MEA-1"]
    assert alert.kind == "progressive_voided" and "VOIDED at the table" in alert.detail

    # SIGKILLed again: it comes back to the same meter, and a copy of the void is a duplicate.
    floor.kill_controller(signal.SIGKILL)
    rev = shown["rev"]
    floor.start_controller()
    assert floor.wait(lambda: floor.presence_words()[-1] == "online")
    assert floor.wait(lambda: floor.meters["MEA"]["at"] > shown["at"])
    assert {k: floor.meters["MEA"][k] for k in ("amount", "reserve", "state", "pending", "voided", "rev")} == {
        "amount": 100_050,
        "reserve": 10,
        "state": "pending",
        "pending": [1],
        "voided": [1],
        "rev": rev,
    }
    assert stored(floor)[0] == meters
    floor.republish("T1", void(floor, "T1", 2, 2))  # record 4, a second void of the same hit, then a copy of it
    floor.after_handling("hit 1 was voided already, by record 3")
    assert floor.meters["MEA"]["rev"] == rev
    _, rows, _ = stored(floor)
    assert rows[-1][5] == "refused: hit 1 was voided already, by record 3"
    assert sum(1 for r in rows if json.loads(r[4]).get("seq") == 4) == 1  # the copy: dropped, no row

    # The shift manager still acknowledges; the meter opens at the amount before the hit.
    floor.ack("sam", "prog-MEA-1", note="roll undone at T1")
    assert floor.wait(lambda: floor.meters["MEA"]["state"] == "open")
    assert floor.meters["MEA"]["amount"] == 100_050
    meters, _, replayed = stored(floor)
    assert meters == replayed and meters["MEA"]["hits"][0]["acked_by"] == "sam"


def test_an_acknowledged_hit_voided_moves_no_money_and_alerts_the_shift_manager_and_surveillance(floor):
    floor.send("T2", WAGER, 3)
    floor.send("T2", HIT, 1)  # record 2: pays 100,030
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1])
    floor.ack("sam", "prog-MEA-1")
    assert floor.wait(lambda: floor.meters["MEA"]["state"] == "open")
    paid_out = money(floor)
    assert paid_out["paid"] == 100_030
    void(floor, "T2", 2, 1)
    assert floor.wait(lambda: floor.meters["MEA"].get("voids_not_reversed"))
    assert money(floor) == paid_out
    shown = floor.meters["MEA"]
    assert (shown["amount"], shown["state"], shown["voided"]) == (100_000, "open", [])
    assert "NOT reversed, acknowledged (paid) by sam; 100030 cents stay paid" in floor.controller_log()
    alert = page_alerts(floor)["prog-MEA-1-void"]
    assert alert.kind == "progressive_void_kept" and alert.missing() == ["shift_manager", "surveillance"]
    assert "after it was acknowledged (paid) by sam: no money moved; its $1,000.30 stays paid" in alert.detail
    meters, _, replayed = stored(floor)
    assert meters == replayed


def test_voids_of_no_known_hit_another_count_or_malformed_are_refused_and_change_nothing(floor):
    floor.send("T1", WAGER, 2)  # record 1
    floor.send("T1", HIT, 1)  # record 2
    floor.send("T3", HIT, 2, game="FUP")  # T3's record 1: positional, 500,000 then 500,000
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1] and floor.meters["FUP"]["pending"] == [1])
    before = stored(floor)[0]
    revs = {g: floor.meters[g]["rev"] for g in ("MEA", "FUP")}
    void(floor, "T1", 1, 2)  # record 3 names a wager record
    void(floor, "T1", 2, 3)  # record 4: hit 1 had 1 winning wager
    void(floor, "T1", 2, 1, game="FUP")  # record 5: T1 has no FUP hit
    void(floor, "T2", 2, 1)  # T2's record 1 names a record its journal does not have
    void(floor, "T3", 3, 2, game="FUP")  # T3's record 2 names a later record
    refused = "refused: prog_void MEA x%d from T1 journal 1 record %d (of record %d): "
    floor.after_handling(
        refused % (2, 3, 1),
        refused % (3, 4, 2),
        "record 5 (of record 2)",
        "record 1 of journal 1: a void of record 2, not an earlier record",
        "record 2 of journal 1: a void of record 3, not an earlier record",
    )
    log = floor.controller_log()
    assert refused % (2, 3, 1) + "no hit on the MEA meter is table T1 journal 1 record 1" in log
    assert refused % (3, 4, 2) + "the void counts 3 winning wagers; hit 1 had 1" in log
    assert "record 5 (of record 2): no hit on the FUP meter is table T1 journal 1 record 2" in log
    assert "record 1 of journal 1: a void of record 2, not an earlier record" in log
    assert "record 2 of journal 1: a void of record 3, not an earlier record" in log
    meters, rows, replayed = stored(floor)
    assert {g: floor.meters[g]["rev"] for g in revs} == revs
    assert meters == before == replayed
    assert [r[5].split(":")[0] for r in rows if json.loads(r[4]).get("kind") == "prog_void"] == ["refused"] * 3

    # The voids are of T1's hit and T3's, now right: both reversed, each game to its amount before.
    void(floor, "T1", 2, 1)
    void(floor, "T3", 1, 2, game="FUP")
    assert floor.wait(lambda: floor.meters["MEA"]["voided"] == [1] and floor.meters["FUP"]["voided"] == [1])
    assert (floor.meters["MEA"]["amount"], floor.meters["MEA"]["reserve"]) == (100_020, 4)
    assert (floor.meters["FUP"]["amount"], floor.meters["FUP"]["reserve"]) == (500_000, 0)
    meters, rows, _ = stored(floor)
    assert meters["FUP"]["house"] == 500_000 and meters["FUP"]["paid"] == 0
    assert {g: m.dump() for g, m in ledger.replay(rows).items()} == meters
