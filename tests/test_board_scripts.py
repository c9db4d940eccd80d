"""Key-script tests of the whole app on the simulated board (CPython).

Every script goes through the keypad matrix, the debouncer, entry, the engine
and the lamp renderer exactly as on the ESP32; only the pins, strip and clock
are simulated. tests/test_board_runtimes.py runs a selection under MicroPython.
"""

import json

import pytest

from sim.pin_hash import config_entry
from sim.session import KeyScriptError, Session, lit

PIN = "2468"
PIN_CONFIG = json.dumps({"supervisor_pin": config_entry(PIN, b"fixed salt 2468")})
WHITE, GREEN, ORANGE, YELLOW, RED = "#ffffff", "#00ff00", "#ff5000", "#ffc000", "#ff0000"
VIOLET, BLUE = "#a000ff", "#0040ff"


def group(state, prefix):
    return {name for name in lit(state) if name.startswith(prefix + ".")}


def events(state, kind=None):
    return [e for e in state["events"] if kind is None or e["event"] == kind]


def resolved(state):
    """(wager, level, pays) of every resolution in the state's roll/end events."""
    return [(r["wager"], r["level"], r["pays"]) for e in state["events"] for r in e.get("resolved", [])]


def without_status(state):
    return {name: s for name, s in state["lamps"].items() if name != "status"}


# ---- a whole hand ---------------------------------------------------------------


def test_a_hand_with_five_points_made_then_a_seven_out():
    s = Session()
    state = s.send("2 2")
    assert group(state, "point") == {"point.4"} and "fire.open" not in lit(state)
    state = s.send("2 2 1 4 1 4 3 3 3 3")  # 4, 5, 6 made
    assert group(state, "point") == {"point.off"}
    assert group(state, "fire") == {"fire.4", "fire.5", "fire.6"}
    assert lit(state)["fire.4"] == (ORANGE, False, None)
    assert not group(state, "alert")
    state = s.send("4 4 4 4")  # the 4th point: floor
    assert group(state, "alert") == {"alert.floor"}
    assert lit(state)["alert.floor"] == (YELLOW, True, None)
    state = s.send("4 5 4 5")  # the 5th: manager too
    assert group(state, "alert") == {"alert.floor", "alert.manager"}
    assert lit(state)["alert.manager"] == (RED, True, None)
    state = s.send("6 4")
    assert group(state, "point") == {"point.10"} and state["hand"]["fire_points"] == [4, 5, 6, 8, 9]
    state = s.send("1 6")  # seven-out
    assert ("fire", 5, 250) in resolved(state)
    assert state["hand"] == {"shooter": 2, "point": None, "fire_points": [], "rolls": 12}
    assert group(state, "point") == {"point.off"} and not group(state, "alert")
    # the win is celebrated: the points made flash white, the reopened window flashes with its green
    assert {n: v for n, v in lit(state).items() if n.startswith("fire.")} == {
        **{"fire.%d" % n: (WHITE, True, None) for n in (4, 5, 6, 8, 9)},
        "fire.open": (WHITE, True, GREEN),
    }
    state = s.advance(4000)
    assert group(state, "fire") == {"fire.open"} and lit(state)["fire.open"] == (GREEN, False, None)


def test_six_points_pay_at_once_and_close_the_fire_bet_for_the_shooter():
    s = Session()
    state = s.send("2 2 2 2 1 4 1 4 3 3 3 3 4 4 4 4 4 5 4 5 5 5 5 5")
    assert ("fire", 6, 1000) in resolved(state)
    assert group(state, "fire") == {"fire.%d" % n for n in (4, 5, 6, 8, 9, 10)} | {"fire.open"}
    assert lit(state)["fire.10"] == (WHITE, True, ORANGE)
    assert lit(state)["fire.open"] == (WHITE, True, None)  # closed: flashes white and dark in turn
    state = s.advance(5000)
    assert all(lit(state)["fire.%d" % n] == (ORANGE, False, None) for n in (4, 5, 6, 8, 9, 10))
    assert "fire.open" not in lit(state)
    state = s.send("2 2 1 6")  # seven-out: new shooter, the window opens again, nothing more to pay
    assert "fire" not in [w for w, _, _ in resolved(state)]
    assert group(state, "fire") == {"fire.open"}


# ---- Bonus Craps ------------------------------------------------------------------


def test_bonus_craps_through_a_completion_and_a_seven():
    s = Session()
    state = s.send("1 1 1 2 2 2 2 3")  # 2, 3, 4 (point), 5
    assert group(state, "bonus") == {"bonus.2", "bonus.3", "bonus.4", "bonus.5"}
    assert all(lit(state)["bonus.%d" % n] == (YELLOW, False, None) for n in (2, 3, 4, 5))
    # bonus_window "after_seven": every Bonus Craps window closed at the first roll
    assert {"small.open", "tall.open", "all.open"}.isdisjoint(lit(state))
    state = s.send("3 3")  # 6: All Small wins 34 to 1
    assert ("all_small", 5, 34) in resolved(state)
    assert lit(state)["small.open"] == (WHITE, True, GREEN)
    assert all(lit(state)["bonus.%d" % n] == (WHITE, True, VIOLET) for n in (2, 3, 4, 5, 6))
    state = s.advance(4000)  # a new All Small cycle; Make 'Em All keeps 2-6
    assert lit(state)["small.open"] == (GREEN, False, None)
    assert all(lit(state)["bonus.%d" % n] == (VIOLET, False, None) for n in (2, 3, 4, 5, 6))
    state = s.send("1 2 5 6")  # 3 again (both cycles), 11 (tall + all)
    assert lit(state)["bonus.3"] == (YELLOW, False, None) and lit(state)["bonus.2"][0] == VIOLET
    assert lit(state)["bonus.11"] == (YELLOW, False, None)
    state = s.send("3 4")  # a 7 (seven-out of the 4): everything in action loses
    assert {w for w, _, p in resolved(state) if p == 0} >= {"all_small", "all_tall", "make_em_all"}
    assert not group(state, "bonus")
    assert {"small.open", "tall.open", "all.open", "mea.open"} <= set(lit(state))


def test_without_rebet_a_won_wager_stays_closed_until_a_seven():
    s = Session(config_text='{"rebet_after_win": false}')
    state = s.send("1 1 1 2 2 2 2 3 3 3 wait:4000")
    assert "small.open" not in lit(state) and lit(state)["bonus.2"][0] == VIOLET
    state = s.send("1 6")
    assert "small.open" in lit(state)


def test_ten_numbers_once_each_win_everything_but_the_fire_bet():
    s = Session()
    state = s.send("4 4 4 5 5 5 5 6 6 6 1 1 1 2 2 2 2 3 3 3")  # 8 9 10 11 12 2 3 4 5 6
    assert {(w, p) for w, _, p in resolved(state) if p} == {
        ("all_tall", 34),
        ("all_small", 34),
        ("make_em_all", 175),
        ("mea_progressive", "meter"),
        ("fired_up", "meter"),
    }
    assert lit(state)["all.open"] == (WHITE, True, GREEN)
    assert all(lit(state)["mea.%d" % n] == (WHITE, True, None) for n in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12))
    # Fired Up won at the 12 and the last roll, 6, starts a new sequence: fired.1 shows it
    assert lit(state)["fired.1"] == (WHITE, True, YELLOW)
    assert all(lit(state)["fired.%d" % i] == (WHITE, True, None) for i in range(2, 6))
    assert len(group(state, "bonus")) == 10
    state = s.advance(4000)
    assert not group(state, "bonus") and group(state, "mea") == {"mea.open"} and group(state, "fired") == {"fired.1"}
    # Small and All completed on the last roll: open again; Tall's new cycle has had 2-6
    assert {"small.open", "all.open"} <= set(lit(state)) and "tall.open" not in lit(state)


# ---- windows -------------------------------------------------------------------------


def test_windows_open_and_close():
    s = Session()
    opens = lambda st: {n for n in lit(st) if n.endswith(".open")}  # noqa: E731
    everything = {"fire.open", "small.open", "tall.open", "all.open", "mea.open", "fired.open"}
    assert opens(s.advance(100)) == everything
    state = s.send("1 1")  # come-out craps: Fire window stays open; Bonus Craps closes at its first roll
    assert opens(state) == {"fire.open", "fired.open"}
    state = s.send("3 3")  # point 6: Fire closes; 6 starts Fired Up
    assert opens(state) == set()
    state = s.send("2 3")  # 5: Fired Up 6-5 goes on
    assert opens(state) == set() and group(state, "fired") == {"fired.1", "fired.2"}
    state = s.send("1 1")  # a repeated 2 ends the MEA cycle; 2 breaks the Fired Up sequence
    assert opens(state) == {"mea.open", "fired.open"}
    state = s.send("3 4 wait:4000")  # seven-out: every window opens again
    assert opens(state) == everything


# ---- bad input changes nothing ---------------------------------------------------------


BAD = [
    ("7", "not_a_die"),
    ("0", "not_a_die"),
    ("9", "not_a_die"),
    ("3 8", "not_a_die"),
    ("3+4", "two_keys"),
    ("5 wait:10500", "timeout"),
    ("# #", "prog_count"),  # a progressive count with no game or count (docs/keys.md)
    ("# 2 5 #", "prog_closed"),  # Fired Up idle (4 and 2 start no sequence), but no floor heard: closed
    ("# 1 5 #", "prog_window"),  # MEA's cycle has begun (4, 2)
    ("undo", "not_authorised"),
    ("end", "not_authorised"),
    ("btn:undo", "not_authorised"),
    ("btn:end", "not_authorised"),
    ("pin", "no_pin"),
    ("hold:2:500 hold:2+6:300", "two_keys"),
]


@pytest.mark.parametrize("keys, reason", BAD, ids=[k for k, _ in BAD])
def test_bad_input_is_refused_shows_an_error_and_changes_nothing(keys, reason):
    s = Session()
    before = s.send("2 2 1 1 wait:4000")
    after = s.send(keys)
    assert [(e["event"], e.get("reason")) for e in after["events"]] == [("error", reason)]
    assert after["hand"] == before["hand"] and after["pending"] is None
    assert without_status(after) == without_status(before)
    assert after["status"] == "error" and lit(after)["status"] == (RED, True, None)
    # the next two die presses are a whole roll (after a refused PIN key, once # ends the PIN)
    state = s.send("wait:2000 " + ("enter " if reason == "no_pin" else "") + "1 2")
    assert [e["dice"] for e in events(state, "roll")] == [[1, 2]] and state["status"] == "ready"


@pytest.mark.parametrize(
    "config, keys, reason",
    [
        (PIN_CONFIG, "pin 1 2 3 4 enter", "wrong_pin"),
        (PIN_CONFIG, "pin 1 2 3 4 5 6 7 8 9", "pin_too_long"),
        (PIN_CONFIG, "pin 2 4 wait:10500", "timeout"),
        (None, "key:on 3 undo", "roll_pending"),
    ],
)
def test_bad_supervisor_input_changes_nothing(config, keys, reason):
    s = Session(config_text=config)
    before = s.send("4 4 wait:4000")
    after = s.send(keys)
    # only the error happened (and, for the roll_pending case, the keyswitch turning on)
    assert [(e["event"], e.get("reason")) for e in after["events"] if e["event"] != "supervisor_on"] == [
        ("error", reason)
    ]
    assert after["hand"] == before["hand"]
    assert without_status(after) == without_status(before)


def test_three_wrong_pins_lock_the_pin_key_for_a_minute():
    s = Session(config_text=PIN_CONFIG)
    state = s.send("pin 1 1 1 1 enter pin 1 1 1 1 enter pin 1 1 1 1 enter pin")
    assert [e["reason"] for e in events(state, "error")] == ["wrong_pin"] * 3 + ["pin_locked"]
    state = s.send("wait:60000 pin 2 4 6 8 enter")
    assert [e["event"] for e in state["events"]] == ["supervisor_on"] and state["supervisor"]


def test_nothing_to_undo_on_a_fresh_table():
    state = Session().send("key:on undo")
    assert [(e["event"], e.get("reason")) for e in state["events"]] == [
        ("supervisor_on", None),
        ("error", "nothing_to_undo"),
    ]


# ---- undo and end hand ---------------------------------------------------------------


def test_undo_with_the_keyswitch_restores_the_board():
    s = Session()
    fresh = s.advance(200)
    state = s.send("3 3 2 2")
    assert state["hand"]["point"] == 6
    state = s.send("key:on undo undo key:off")
    assert [(e["event"], e.get("via")) for e in state["events"]] == [
        ("supervisor_on", "key"),
        ("undo", "key"),
        ("undo", "key"),
        ("supervisor_off", "key"),
    ]
    assert state["hand"] == fresh["hand"] and without_status(state) == without_status(fresh)


def test_end_hand_with_the_keyswitch_button():
    s = Session()
    state = s.send("2 2 2 2 1 4 key:on btn:end key:off")
    end = events(state, "end_hand")
    assert len(end) == 1 and end[0]["via"] == "key" and end[0]["shooter"] == 2
    assert [(r["wager"], r["level"]) for r in end[0]["resolved"]] == [("fire", 1)]
    assert state["hand"] == {"shooter": 2, "point": None, "fire_points": [], "rolls": 3}
    assert group(state, "point") == {"point.off"} and group(state, "fire") == {"fire.open"}
    assert group(state, "bonus") == {"bonus.4", "bonus.5"}  # no 7 was rolled: cycles carry on


def test_undo_and_end_hand_with_the_pin_then_the_window_closes():
    s = Session(config_text=PIN_CONFIG)
    state = s.send("3 3 2 2 pin 2 4 6 8 enter")
    assert state["supervisor"] and state["status"] == "supervisor"
    assert lit(state)["status"] == (BLUE, False, None)
    state = s.send("undo end")
    assert [(e["event"], e["via"]) for e in state["events"]] == [("undo", "pin"), ("end_hand", "pin")]
    assert state["hand"]["shooter"] == 2 and state["hand"]["rolls"] == 1
    state = s.send("wait:30000")
    assert [(e["event"], e["via"]) for e in state["events"]] == [("supervisor_off", "pin")]
    state = s.send("undo")
    assert [e["reason"] for e in events(state, "error")] == ["not_authorised"]


def test_clear_ends_the_pin_window():
    s = Session(config_text=PIN_CONFIG)
    state = s.send("pin 2 4 6 8 enter clear undo")
    assert [e["event"] for e in state["events"]] == ["supervisor_on", "supervisor_off", "error"]


# ---- entry details --------------------------------------------------------------------


def test_half_entered_roll_shows_and_clear_drops_it():
    s = Session()
    state = s.send("3")
    assert state["status"] == "half" and state["pending"] == 3
    assert lit(state)["status"] == (YELLOW, True, None)
    state = s.send("clear")
    assert state["status"] == "ready" and [e["event"] for e in state["events"]] == ["clear"]
    state = s.send("4 4")
    assert [e["dice"] for e in events(state, "roll")] == [[4, 4]]


def test_a_held_key_counts_once_and_a_blip_not_at_all():
    s = Session()
    state = s.send("hold:3:3000 4")
    assert [e["dice"] for e in events(state, "roll")] == [[3, 4]]
    state = s.send("hold:5:20")  # shorter than the debounce window
    assert state["pending"] is None and state["events"] == []


def test_keys_and_aliases_name_the_same_keys():
    a = Session().send("key:on 2 2 A B C")
    b = Session().send("key:on 2 2 undo end test")
    assert [e["event"] for e in a["events"]] == ["supervisor_on", "roll", "undo", "end_hand", "lamp_test"]
    assert a == b


def test_time_wraps_like_ticks_ms():
    s = Session(start_ms=(1 << 30) - 700)
    state = s.send("3 3 2 2 5")
    assert state["t"] < 1000 and state["hand"]["point"] == 6 and state["pending"] == 5
    state = s.send("wait:10000")
    assert [e["reason"] for e in events(state, "error")] == ["timeout"]


# ---- lamp test -----------------------------------------------------------------------------


def test_lamp_test_lights_everything_then_gives_the_board_back():
    s = Session(config_text='{"offered": ["fire"]}')
    before = s.send("2 2")
    state = s.send("test")
    assert [e["event"] for e in state["events"]] == ["lamp_test"]
    assert {v["color"] for v in state["lamps"].values()} == {RED} and len(lit(state)) == 47
    assert {v["color"] for v in s.send("wait:500")["lamps"].values()} == {GREEN}
    state = s.send("wait:1500")
    assert state["lamps"] == before["lamps"] and state["hand"] == before["hand"]
    state = s.send("btn:test")
    assert len(lit(state)) == 47


# ---- scripts --------------------------------------------------------------------------------


@pytest.mark.parametrize("keys", ["x", "E", "3++4", "wait:", "wait:abc", "hold:3", "key:maybe", "btn:nope", "3+3"])
def test_a_bad_token_runs_nothing(keys):
    s = Session()
    with pytest.raises(KeyScriptError, match="token"):
        s.send("2 2 " + keys)
    assert s.send("")["hand"]["rolls"] == 0
