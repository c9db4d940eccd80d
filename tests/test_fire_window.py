"""Fire Bet window (RULES: base game, Fire Bet), on both runtimes.

An end hand while the shooter has not yet established a point returns the
Fire Bets (never a loss); once a point is established the end hand settles
them by points made. `fire_window` decides when bets are accepted:
"until_point" (seed 000, default: "If a new shooter rolls a 2, 3, 7, 11, or
12, the players can still make Fire Bets before the next roll"; a Fire Bet
cannot be "called off" once the new shooter has established the initial point)
or "first_roll" (seed 001: "only ... before the first 'Come Out' roll of a new
shooter"). Under either window, an end hand before any point returns the bets:
RULES defines the window for this purpose as "this shooter has not yet
established a point"."""

import json

import pytest
from engine_both import resolved, run_both

from sim.session import Session, lit

RUNTIMES = ("cpython", "micropython")


def test_an_end_hand_on_a_fresh_table_returns_the_fire_bets():
    (end,) = run_both(["end"])
    fire = resolved(end)["fire"]
    assert (fire["level"], fire["outcome"], fire["returns"], fire["pays"]) == (0, "returned", 1, None)
    assert end["state"]["shooter"] == 2


def test_an_end_hand_after_come_out_craps_and_naturals_returns_the_fire_bets():
    records = run_both(["1 1", "5 6", "3 4", "end"])  # 2, 11, come-out 7: still no point
    assert resolved(records[-1])["fire"]["outcome"] == "returned"


def test_an_end_hand_after_a_point_settles_fire_by_points_made():
    # point 4 made, point 6 on: one point made, table 1 pays nothing below 4 points
    records = run_both(["2 2", "2 2", "3 3", "end"])
    fire = resolved(records[-1])["fire"]
    assert (fire["level"], fire["outcome"], fire["returns"]) == (1, "loss", 0)


def test_an_end_hand_with_the_point_on_and_none_made_is_a_loss():
    records = run_both(["2 2", "end"])
    assert resolved(records[-1])["fire"]["outcome"] == "loss"


def test_until_point_keeps_the_window_open_through_the_come_out_rolls():
    records = run_both(["5 6", "1 1", "3 4", "2 2"])
    assert [r["state"]["open"]["fire"] for r in records] == [True, True, True, False]


def test_first_roll_closes_the_window_at_the_shooters_first_roll():
    records = run_both(["5 6", "1 1", "2 2", "2 5", "3 4", "end"], {"fire_window": "first_roll"})
    # 11, 2, point 4, seven-out (new shooter: open again), come-out 7, end hand
    assert [r["state"]["open"]["fire"] for r in records] == [False, False, False, True, False, True]
    # the second shooter rolled a 7 on the come-out and left: no point, so returned
    assert resolved(records[-1])["fire"]["outcome"] == "returned"


def test_first_roll_bets_are_in_action_after_the_first_roll_so_the_paytable_is_fixed():
    records = run_both(["5 6", 'config {"paytables": {"fire": "3"}}'], {"fire_window": "first_roll"})
    assert (records[1]["ok"], records[1]["error"]) == (False, "paytables.fire")
    records = run_both(["5 6", 'config {"paytables": {"fire": "3"}}'])  # until_point: still open
    assert records[1]["ok"]


def test_a_bad_fire_window_is_refused():
    (record,) = run_both(['config {"fire_window": "forever"}'])
    assert (record["ok"], record["error"]) == (False, "fire_window")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_fire_open_lamp_follows_the_option(runtime):
    for option, lamp_after_11 in (("until_point", True), ("first_roll", False)):
        with Session(runtime, config_text=json.dumps({"fire_window": option})) as s:
            assert "fire.open" in lit(s.advance(100))
            assert ("fire.open" in lit(s.send("5 6"))) == lamp_after_11
            assert "fire.open" not in lit(s.send("2 2"))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_board_reports_an_end_hand_in_the_window_as_returned(runtime):
    with Session(runtime) as s:
        state = s.send("5 6 key:on end key:off")
    (end,) = [e for e in state["events"] if e["event"] == "end_hand"]
    assert [(r["wager"], r["outcome"], r["returns"]) for r in end["resolved"]] == [("fire", "returned", 1)]


def test_the_terminal_board_states_both_windows():
    from crapsboard.rules import config as cfg
    from sim.tui import text as tui_text

    assert tui_text.windows_text(None) == "Fire bets: until a point\nBonus bets: after a 7 only"
    config = cfg.loads('{"fire_window": "first_roll", "bonus_window": "idle"}')
    assert tui_text.windows_text(config) == "Fire bets: before the first roll\nBonus bets: while unmarked"
