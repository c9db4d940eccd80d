"""When All Small, All Tall and Make 'Em All accept bets (RULES: Bonus Craps),
on both runtimes. `bonus_window` "after_seven" (default, seed 002: "Bonus
Craps wagers can only be made if the previous roll was a 7 and/or if all the
required numbers have been rolled without a 7"): only before the first roll of
a cycle (after a 7, at the start, or after that wager completed with
rebet_after_win); "idle" (seed 003: "if the particular wager does not have any
active wagers", read by a board that cannot see chips): whenever the wager has
no numbers marked. A wager whose window closed is in action until it resolves."""

import json

import pytest
from engine_both import resolved, run_both

from sim.session import Session, lit

RUNTIMES = ("cpython", "micropython")
BONUS = ("all_small", "all_tall", "make_em_all")


def opens(record):
    return tuple(record["state"]["open"][w] for w in BONUS)


def test_after_seven_all_small_is_closed_after_7_then_8():
    seven, eight = run_both(["3 4", "4 4"])
    assert opens(seven) == (True, True, True)
    assert opens(eight) == (False, False, False)  # 8 was the cycle's first roll: every window closed


def test_idle_all_small_is_open_after_7_then_8():
    seven, eight = run_both(["3 4", "4 4"], {"bonus_window": "idle"})
    assert opens(seven) == (True, True, True)
    assert opens(eight) == (True, False, False)  # All Small has nothing marked


def test_the_table_opens_every_window_before_its_first_roll():
    records = run_both(["config {}"])
    assert opens(records[0]) == (True, True, True)


def test_after_seven_a_completed_wager_reopens_for_one_roll_with_rebet():
    records = run_both(["1 1", "1 2", "2 2", "2 3", "3 3", "4 4"])
    assert resolved(records[4])["all_small"]["outcome"] == "win"
    assert opens(records[4]) == (True, False, False)  # only All Small's cycle begins afresh
    assert opens(records[5]) == (False, False, False)


def test_without_rebet_a_completed_wager_waits_for_a_7_under_either_option():
    for window in ("after_seven", "idle"):
        records = run_both(
            ["1 1", "1 2", "2 2", "2 3", "3 3", "3 4"], {"bonus_window": window, "rebet_after_win": False}
        )
        assert opens(records[4])[0] is False
        assert opens(records[5]) == (True, True, True)


def test_a_closed_wager_with_nothing_marked_is_in_action_its_paytable_fixed():
    change = 'config {"paytables": {"all_small": "PT2"}}'
    after_seven = run_both(["3 4", "4 4", change, "3 4"])
    assert (after_seven[2]["ok"], after_seven[2]["error"]) == (False, "paytables.all_small")
    # ... and it loses at the next 7 with nothing marked
    assert resolved(after_seven[3])["all_small"]["level"] == 0
    idle = run_both(["3 4", "4 4", change], {"bonus_window": "idle"})
    assert idle[2]["ok"]


def test_a_bad_bonus_window_is_refused():
    (record,) = run_both(['config {"bonus_window": "always"}'])
    assert (record["ok"], record["error"]) == (False, "bonus_window")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_open_lamps_follow_the_option(runtime):
    for option, small_open in (("after_seven", False), ("idle", True)):
        with Session(runtime, config_text=json.dumps({"bonus_window": option})) as s:
            state = s.send("3 4 4 4")
            assert ("small.open" in lit(state)) == small_open
            assert "tall.open" not in lit(state) and "all.open" not in lit(state)
