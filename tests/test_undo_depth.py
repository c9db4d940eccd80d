"""Undo has the same depth everywhere (RULES: Corrections): at least the last
16 events, wherever the engine's internal ring stands; an undo records what
it reversed."""

import random

import pytest
from engine_both import resolved, run_both

from crapsboard.rules import report
from crapsboard.rules.engine import Table
from sim.session import Session

RUNTIMES = ("cpython", "micropython")


def dice_stream(count, seed=9):
    rng = random.Random(seed)
    return ["%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(count)]


def test_17_rolls_then_2_undos_both_succeed():
    records = run_both(dice_stream(17) + ["undo", "undo"])
    assert [r["ok"] for r in records[-2:]] == [True, True]
    assert records[-1]["state"]["n"] == 15


def state_without_resolutions(table):
    record = report.roll_record(table)
    del record["resolved"]
    return record


@pytest.mark.parametrize("rolls", [16, 17, 18, 31, 32, 33, 47, 48, 49, 100])
def test_at_least_16_undos_after_any_number_of_rolls_each_landing_on_the_prior_state(rolls):
    stream = [tuple(int(x) for x in d.split()) for d in dice_stream(rolls, rolls)]
    table = Table()
    for d in stream:
        table.roll(*d)
    for k in range(1, 17):
        assert table.undo(), "undo %d after %d rolls" % (k, rolls)
        replayed = Table()
        for d in stream[: rolls - k]:
            replayed.roll(*d)
        assert state_without_resolutions(table) == state_without_resolutions(replayed)


def test_end_hands_count_as_events_and_undo_the_same_depth():
    table = Table()
    for i in range(40):
        if i % 5 == 4:
            table.end_hand()
        else:
            table.roll(1, 2)
    assert all(table.undo() for _ in range(16))


def test_an_undo_reports_the_resolutions_it_reversed():
    records = run_both(["1 1", "1 2", "2 2", "2 3", "3 3", "undo"])  # All Small wins 34 to 1, taken back
    undo = records[-1]
    assert undo["ok"] and undo["state"]["resolved"] == []
    small = resolved(undo, "reversed")["all_small"]
    assert (small["outcome"], small["returns"]) == ("win", 35)


# A shooter makes 4, 5, 6, 8, 9, 10: Fire pays 1000 for 1 on table 1 at the last point.
SIX_POINTS = "2 2 2 2 2 3 2 3 3 3 3 3 4 4 4 4 4 5 4 5 5 5 5 5"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_undo_event_names_the_event_and_the_1000_for_1_fire_pay_it_reversed(runtime):
    with Session(runtime) as s:
        state = s.send(SIX_POINTS + " key:on undo")
    rolls = [e for e in state["events"] if e["event"] == "roll"]
    (undo,) = [e for e in state["events"] if e["event"] == "undo"]
    last = rolls[-1]
    assert undo["undid"] == {"seq": last["seq"], "event": "roll", "dice": [5, 5], "total": 10}
    fire = [r for r in undo["reversed"] if r["wager"] == "fire"]
    assert [(r["level"], r["outcome"], r["returns"], r["unit"]) for r in fire] == [(6, "win", 1000, "for 1")]
    assert undo["rolls"] == 11 and undo["point"] == 10


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_undo_event_names_an_end_hand_it_took_back(runtime):
    with Session(runtime) as s:
        state = s.send("key:on end undo")
    end, undo = [e for e in state["events"] if e["event"] in ("end_hand", "undo")]
    assert undo["undid"] == {"seq": end["seq"], "event": "end_hand"}
    assert [(r["wager"], r["outcome"]) for r in undo["reversed"]] == [("fire", "returned")]
    assert undo["shooter"] == 1


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_board_undoes_16_after_40_rolls(runtime):
    keys = " ".join(dice_stream(40))
    with Session(runtime) as s:
        state = s.send(keys + " key:on " + "undo " * 17)
    undos = [e for e in state["events"] if e["event"] == "undo"]
    assert len(undos) >= 16
    assert state["hand"]["rolls"] == 40 - len(undos)


def test_the_engine_bit_constants_agree():
    from crapsboard.rules import engine

    assert engine._BONUS_BITS == engine._SMALL_BIT | engine._TALL_BIT | engine._ALL_BIT
    assert engine._RING == 2 * engine._HISTORY and engine._RING_MASK == engine._RING - 1
