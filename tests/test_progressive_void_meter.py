"""A hit voided at its table (kind 25 prog_void, docs/progressive.md "Corrections"),
the pure meter and the page's alert, against sequences worked by hand: the
money goes back to the cent (fractions, the cap, positional pays, the house's
seeds, wagers counted while PENDING), or does not move at all when the hit was
acknowledged or later hits rest on it; and what the shift manager reads."""

import json

import pytest
from progressive_floor import PARAMS

from host_tools.floor.base import topics
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.progressive import ledger, params
from host_tools.floor.progressive.meter import PENDING, Meter, Refused

MEA = params.check_game("MEA", PARAMS["MEA"])  # $1 unit, $1,000 base and reset, 10 cents and 2 hidden per wager
FUP = params.check_game("FUP", PARAMS["FUP"])  # $5 unit, $5,000 base and reset, 25 cents and 5 hidden, positional


def money(m):
    keys = ("amount", "amount_frac", "reserve", "reserve_frac", "overflow", "overflow_frac", "house", "paid")
    return {k: getattr(m, k) for k in keys}


def hit(m, table, seq, wagers):
    m.lock(table, "b" + table, 1, seq, wagers, seq)
    m.settle()


def test_a_pending_positional_hit_voided_gives_back_both_reseeds_and_keeps_wagers_counted_since():
    m = Meter(FUP)
    m.contribute("T1", 4)  # 4 x 25 = 100 cents to the meter, 4 x 5 = 20 to the reserve
    assert (m.amount, m.reserve) == (500_100, 20)
    hit(m, "T1", 2, 2)  # positional: 500,100 then the reseed's 500,000
    assert m.hits[0]["pays"] == [500_100, 500_000]
    assert m.hits[0]["reseeds"] == [[20, 499_980, 0], [0, 500_000, 0]]
    assert (m.amount, m.reserve, m.house, m.paid) == (500_000, 0, 1_499_980, 1_000_100)
    m.contribute("T2", 3)  # keyed before T2 heard PENDING: 75 cents and 15
    assert (m.amount, m.reserve) == (500_075, 15)

    assert m.void("T1", "bT1", 1, 3, 2, 2) == (1, True)
    # As if the hit never happened: 7 wagers on the seed, no seed from the house but the first.
    assert money(m) == {
        "amount": 500_175,
        "amount_frac": 0,
        "reserve": 35,
        "reserve_frac": 0,
        "overflow": 0,
        "overflow_frac": 0,
        "house": 500_000,
        "paid": 0,
    }
    assert m.wagers == 7 and m.state == PENDING and m.pending() == [1]
    money_in, held = m.balance()
    assert money_in == held
    m.acknowledge(1, "sam")
    assert m.state == "open" and m.amount == 500_175


def test_a_void_carries_the_fractions_and_the_cap_as_if_the_hit_never_was():
    p = params.check_game(
        "MEA",
        {
            "paytable": "PT-BJS-MEA-01",
            "base_unit": 100,
            "base": 100_000,
            "reset": 100_000,
            "increment_ppm": 333_333,  # 33.3333 cents a wager
            "reserve_ppm": 0,
            "reserve_ceiling": 200_000,
            "cap": 100_100,
        },
    )
    m = Meter(p)
    m.contribute("T1", 3)  # 100,000 + 99.9999
    assert (m.amount, m.amount_frac) == (100_099, 999_900)
    hit(m, "T1", 2, 1)  # pays 100,099; the 0.9999 stays; the house resets 100,000
    assert (m.amount, m.amount_frac, m.house, m.paid) == (100_000, 999_900, 200_000, 100_099)
    m.contribute("T1", 1)
    assert (m.amount, m.amount_frac) == (100_034, 333_200)
    m.void("T1", "bT1", 1, 4, 2, 1)
    # 4 wagers on the base: 100,133.3332 cents, capped at 100,100, 33.3332 to the overflow.
    assert money(m) == {
        "amount": 100_100,
        "amount_frac": 0,
        "reserve": 0,
        "reserve_frac": 0,
        "overflow": 33,
        "overflow_frac": 333_200,
        "house": 100_000,
        "paid": 0,
    }
    money_in, held = m.balance()
    assert money_in == held


def test_voids_newest_first_go_back_hit_by_hit_and_an_older_one_first_moves_nothing():
    m = Meter(MEA)
    m.contribute("T1", 5)  # 100,050, reserve 10
    hit(m, "T1", 2, 1)  # pays 100,050; reseed 10 from the reserve, 99,990 from the house
    hit(m, "T2", 1, 1)  # pays 100,000; reseed 100,000 from the house
    assert (m.amount, m.reserve, m.house, m.paid) == (100_000, 0, 299_990, 200_050)
    after_both = money(m)

    older = Meter.load(MEA, json.loads(json.dumps(m.dump())))  # as the ledger stores it
    assert older.void("T1", "bT1", 1, 3, 2, 1) == (1, False)  # hit 2 rests on the meter hit 1 left
    assert money(older) == after_both and older.pending() == [1, 2]
    assert [h["n"] for h in older.voided_unreversed()] == [1]

    assert m.void("T2", "bT2", 1, 2, 1, 1) == (2, True)
    assert (m.amount, m.reserve, m.house, m.paid) == (100_000, 0, 199_990, 100_050)
    assert m.void("T1", "bT1", 1, 3, 2, 1) == (1, True)  # now nothing rests on it
    assert money(m) == {
        "amount": 100_050,
        "amount_frac": 0,
        "reserve": 10,
        "reserve_frac": 0,
        "overflow": 0,
        "overflow_frac": 0,
        "house": 100_000,
        "paid": 0,
    }
    assert m.view()["voided"] == [1, 2] and m.view()["state"] == "pending"


def test_an_acknowledged_hit_voided_moves_no_money():
    m = Meter(MEA)
    m.contribute("T1", 3)
    hit(m, "T1", 2, 1)
    m.acknowledge(1, "sam")
    before = money(m)
    assert m.void("T1", "bT1", 1, 3, 2, 1) == (1, False)
    assert money(m) == before and m.state == "open"
    view = m.view()
    assert view["voided"] == []
    assert view["voids_not_reversed"] == [
        {
            "n": 1,
            "table": "T1",
            "wagers": 1,
            "pays": [100_030],
            "meter_at_hit": 100_030,
            "acked_by": "sam",
            "void": {"seq": 3, "reversed": False},
        }
    ]


@pytest.mark.parametrize(
    "void, reason",
    [
        (("T1", "bT1", 1, 3, 1, 1), "no hit on the MEA meter is table T1 journal 1 record 1"),  # a wager record
        (("T2", "bT2", 1, 3, 2, 1), "no hit on the MEA meter is table T2 journal 1 record 2"),  # another table's
        (("T1", "bT1", 2, 3, 2, 1), "no hit on the MEA meter is table T1 journal 2 record 2"),  # another journal
        (("T1", "bT1", 1, 3, 2, 2), "the void counts 2 winning wagers; hit 1 had 1"),
        (("T1", "bT1", 1, 3, 2, True), "the void counts True winning wagers; hit 1 had 1"),
    ],
)
def test_a_void_of_no_known_hit_or_another_count_is_refused_and_changes_nothing(void, reason):
    m = Meter(MEA)
    m.contribute("T1", 3)
    hit(m, "T1", 2, 1)
    before = m.dump()
    with pytest.raises(Refused) as e:
        m.void(*void)
    assert str(e.value) == reason
    assert m.dump() == before


def test_a_hit_voided_twice_is_refused_the_second_time():
    m = Meter(MEA)
    hit(m, "T1", 1, 1)
    m.void("T1", "bT1", 1, 2, 1, 1)
    before = m.dump()
    with pytest.raises(Refused, match="hit 1 was voided already, by record 2"):
        m.void("T1", "bT1", 1, 3, 1, 1)
    assert m.dump() == before


def test_a_hit_stored_before_voids_existed_is_not_reversed():
    m = Meter(MEA)
    hit(m, "T1", 1, 1)
    old = m.dump()
    for h in old["hits"]:  # a ledger written before the meter kept what a void returns to
        del h["before"], h["void"]
    m = Meter.load(MEA, old)
    assert m.void("T1", "bT1", 1, 2, 1, 1) == (1, False)
    assert m.amount == 100_000 and m.paid == 100_000


def test_replay_folds_voids_to_the_same_meter():
    m = Meter(MEA)
    rows = [(1, 0, "params", "MEA", json.dumps({"params": MEA.to_dict()}), "applied")]

    def row(body, outcome="applied"):
        rows.append((len(rows) + 1, 0, "input", "MEA", json.dumps(body), outcome))

    base = {"table": "T1", "board": "bT1", "journal": 1}
    m.contribute("T1", 5)
    row(dict(base, kind="prog_wager", seq=1, count=5))
    m.lock("T1", "bT1", 1, 2, 2, 2)
    row(dict(base, kind="prog_hit", seq=2, count=2, arrival=2))
    m.settle()
    rows.append((len(rows) + 1, 0, "settle", "MEA", "{}", "applied"))
    m.void("T1", "bT1", 1, 3, 2, 2)
    row(dict(base, kind="prog_void", seq=3, count=2, hit=2))
    row(dict(base, kind="prog_void", seq=4, count=2, hit=2), "refused: hit 1 was voided already, by record 3")
    assert ledger.replay(rows)["MEA"].dump() == m.dump()
    assert m.amount == 100_050


def meter_message(m):
    return topics.meter("main", m.params.game), topics.encode(dict(m.view(), at=1.0))


def test_the_page_replaces_the_pending_alert_and_alerts_shift_manager_and_surveillance_on_a_kept_void():
    view = FloorView("main", ["T1", "T2"], clock=lambda: 100.0)
    m = Meter(MEA)
    m.contribute("T1", 5)
    hit(m, "T1", 2, 2)
    view.message(*meter_message(m))
    alert = view.book.alerts["prog-MEA-1"]
    assert alert.kind == "progressive_pending" and alert.detail.startswith("MEA hit 1 at T1: 2 winning wagers paid")

    m.void("T1", "bT1", 1, 3, 2, 2)
    view.message(*meter_message(m))
    alert = view.book.alerts["prog-MEA-1"]
    assert alert.kind == "progressive_voided" and alert.required == ("shift_manager",)
    assert alert.title == "progressive hit VOIDED at the table: reversed, PENDING"
    assert alert.detail == (
        "MEA hit 1 at T1 VOIDED at the table: a supervisor's undo reversed its roll, nothing is owed on it "
        "and the meter is back to its amount at the hit, $1,000.50. PENDING until a shift manager acknowledges"
    )
    assert view.book.audit[-1]["action"] == "replaced"

    m.acknowledge(1, "sam")
    hit(m, "T2", 1, 1)  # pays 100,050
    m.acknowledge(2, "sam")
    m.void("T2", "bT2", 1, 2, 1, 1)
    view.message(*meter_message(m))
    kept = view.book.alerts["prog-MEA-2-void"]
    assert kept.kind == "progressive_void_kept" and kept.missing() == ["shift_manager", "surveillance"]
    assert kept.detail == (
        "MEA hit 2 at T2 was voided at the table after it was acknowledged (paid) by sam: no money moved; "
        "its $1,000.50 stays paid and the meter stands. Check the pay-out against the undone roll"
    )
    view.message(*meter_message(m))  # the controller's heartbeat: the same alerts, none raised again
    assert sum(1 for a in view.book.audit if a["alert"] == "prog-MEA-2-void") == 1
