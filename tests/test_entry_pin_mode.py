"""Supervisor PIN entry and authorisation (docs/keys.md), beyond test_entry.py.

Written from the documented behaviour: while a PIN is being typed, undo and end
hand are `unexpected_key` (never an ENTER); `D` again starts the PIN over; a good
PIN authorises for 30 s, the keyswitch while it is on; three wrong PINs lock the
PIN key for 60 s. The tests hold under either reading of what digits mean
after a refused PIN (they never press a digit right after a refusal).
"""

import json

import pytest

from crapsboard.table import entry as en
from sim.pin_hash import config_entry
from sim.session import Session, lit

PIN = "4321"
AUTH_MS = 30_000  # docs/keys.md: a good PIN is good for 30 s
LOCK_MS = 60_000  # three wrong PINs lock the PIN key for 60 s
ERROR_MS = 2_000  # an error shows for 2 s
TYPE = [en.K_PIN, 4, 3, 2, 1]


def fresh(pin=PIN):
    return en.Entry(en.pin_record(pin, b"test salt", 3) if pin else None)


def press_all(e, codes, t, step=200):
    """Press each code `step` ms apart from t; (actions, time of the last press)."""
    out = []
    for code in codes:
        out.append(e.press(code, t))
        t += step
    return out, t - step


def authorise_by_pin(e, t):
    """Type the good PIN and # ; returns the time of the #."""
    actions, last = press_all(e, TYPE + [en.K_ENTER], t)
    assert actions == [en.ACT_NONE] * 5 + [en.ACT_AUTH_ON]
    return last


# ---- keys that are not part of a PIN ------------------------------------------------


@pytest.mark.parametrize("key", [en.K_UNDO, en.K_END_HAND])
def test_undo_or_end_hand_while_typing_a_pin_is_unexpected_not_enter(key):
    e = fresh()
    actions, last = press_all(e, TYPE + [key], 0)
    assert actions[-1] == en.ACT_ERROR and e.error == en.ERR_UNEXPECTED_KEY
    assert not e.authorised(last) and not e.authorised(last + 1000)
    assert e.status(last) == en.ST_ERROR
    # the PIN typed so far is gone; docs/rules.md: after an interrupted PIN entry the
    # keys up to # are dropped, so this # quietly ends the drop and authorises nothing
    assert e.press(en.K_ENTER, last + 3000) == en.ACT_NONE
    assert not e.authorised(last + 3000)


@pytest.mark.parametrize("keys", ["pin 2 4 6 8 undo", "pin 2 4 6 8 btn:undo", "pin 2 4 6 8 end", "pin 2 4 6 8 btn:end"])
def test_on_the_board_undo_during_pin_entry_takes_nothing_back(keys):
    s = Session(config_text=json.dumps({"supervisor_pin": config_entry("2468")}))
    s.send("2 2 3 3")  # point 4, then a 6
    state = s.send(keys)
    assert [(e["event"], e.get("reason")) for e in state["events"]] == [("error", "unexpected_key")]
    assert state["supervisor"] is False and state["hand"]["rolls"] == 2 and state["hand"]["point"] == 4
    state = s.send("enter")  # ends the dropped PIN: nothing happens
    assert state["events"] == []
    assert state["supervisor"] is False


def test_pressing_d_again_starts_the_pin_over_quietly():
    e = fresh()
    assert press_all(e, [en.K_PIN, 9, 9], 0)[0] == [en.ACT_NONE] * 3
    assert e.press(en.K_PIN, 600) == en.ACT_NONE
    assert e.status(700) == en.ST_PIN and not e.authorised(700)
    actions, last = press_all(e, [4, 3, 2, 1, en.K_ENTER], 800)
    assert actions == [en.ACT_NONE] * 4 + [en.ACT_AUTH_ON]
    assert e.authorised(last)


def test_on_the_board_d_again_logs_nothing_and_the_pin_then_works():
    s = Session(config_text=json.dumps({"supervisor_pin": config_entry("2468")}))
    state = s.send("pin 9 9 pin")
    assert state["events"] == [] and state["status"] == "pin"
    state = s.send("2 4 6 8 enter")
    assert [(e["event"], e.get("via")) for e in state["events"]] == [("supervisor_on", "pin")]


def test_clear_while_typing_a_pin_leaves_pin_entry_quietly():
    e = fresh()
    press_all(e, [en.K_PIN, 4, 3], 0)
    assert e.press(en.K_CLEAR, 500) == en.ACT_NONE
    assert e.status(500) == en.ST_READY
    assert e.press(en.K_ENTER, 700) == en.ACT_NONE and e.status(700) == en.ST_HALF  # a progressive count, not a PIN


def test_the_pin_is_the_digits_typed_not_a_prefix_or_more():
    for digits in ([4, 3, 2], [4, 3, 2, 1, 1], [1, 2, 3, 4], []):
        e = fresh()
        actions, last = press_all(e, [en.K_PIN, *digits, en.K_ENTER], 0)
        assert actions[-1] == en.ACT_ERROR and e.error == en.ERR_WRONG_PIN, digits
        assert not e.authorised(last)


def test_eight_digits_are_a_pin_nine_are_too_long():
    e = en.Entry(en.pin_record("12345678", b"test salt", 3))
    actions, last = press_all(e, [en.K_PIN, 1, 2, 3, 4, 5, 6, 7, 8, en.K_ENTER], 0)
    assert actions[-1] == en.ACT_AUTH_ON
    e = en.Entry(en.pin_record("12345678", b"test salt", 3))
    actions, _ = press_all(e, [en.K_PIN, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0)
    assert actions == [en.ACT_NONE] * 9 + [en.ACT_ERROR] and e.error == en.ERR_PIN_TOO_LONG
    assert e.status(2000) == en.ST_ERROR


def test_a_pin_typed_after_a_wrong_one_starts_from_nothing():
    e = fresh()
    press_all(e, [en.K_PIN, 9, 9, 9, en.K_ENTER], 0)
    assert e.error == en.ERR_WRONG_PIN
    assert authorise_by_pin(e, 3000)


def test_a_die_half_entered_refuses_the_pin_key():
    e = fresh()
    e.press(3, 0)
    assert e.press(en.K_PIN, 100) == en.ACT_ERROR and e.error == en.ERR_ROLL_PENDING
    assert e.first == 0 and e.status(200) == en.ST_ERROR


# ---- which route is credited ---------------------------------------------------------------


def test_the_keyswitch_turned_on_during_a_pin_window_is_credited_to_the_key():
    e = fresh()
    t = authorise_by_pin(e, 0)
    assert e.via == en.VIA_PIN
    assert e.keyswitch(True, t + 100) == en.ACT_AUTH_ON and e.via == en.VIA_KEY
    assert e.press(en.K_UNDO, t + 300) == en.ACT_UNDO and e.via == en.VIA_KEY
    assert e.keyswitch(False, t + 500) == en.ACT_AUTH_OFF and e.via == en.VIA_KEY
    # the PIN's own 30 s still run: the next undo is the PIN's
    assert e.authorised(t + 600)
    assert e.press(en.K_UNDO, t + 700) == en.ACT_UNDO and e.via == en.VIA_PIN
    assert e.tick(t + AUTH_MS) == en.ACT_AUTH_OFF and e.via == en.VIA_PIN


def test_a_pin_typed_while_the_keyswitch_is_on_credits_the_key_for_undo():
    e = fresh()
    e.keyswitch(True, 0)
    t = authorise_by_pin(e, 100)
    assert e.via == en.VIA_PIN  # the PIN's own authorisation event
    assert e.press(en.K_END_HAND, t + 200) == en.ACT_END_HAND and e.via == en.VIA_KEY


def test_clear_ends_a_pin_window_credited_to_the_pin_even_after_a_key_turn():
    e = fresh()
    e.keyswitch(True, 0)
    e.keyswitch(False, 100)
    assert e.via == en.VIA_KEY
    t = authorise_by_pin(e, 200)
    e.keyswitch(True, t + 100)
    e.keyswitch(False, t + 200)
    assert e.via == en.VIA_KEY
    assert e.press(en.K_CLEAR, t + 300) == en.ACT_AUTH_OFF and e.via == en.VIA_PIN
    assert not e.authorised(t + 300)


def test_the_pin_window_running_out_is_credited_to_the_pin():
    e = fresh()
    t = authorise_by_pin(e, 0)
    e.keyswitch(True, t + 100)
    e.keyswitch(False, t + 200)
    assert e.tick(t + AUTH_MS) == en.ACT_AUTH_OFF and e.via == en.VIA_PIN


def test_on_the_board_events_name_the_route():
    s = Session(config_text=json.dumps({"supervisor_pin": config_entry("2468")}))
    s.send("2 2 3 3 5 5")
    state = s.send("pin 2 4 6 8 enter key:on undo key:off undo")
    assert [(e["event"], e.get("via")) for e in state["events"]] == [
        ("supervisor_on", "pin"),
        ("supervisor_on", "key"),
        ("undo", "key"),
        ("supervisor_off", "key"),
        ("undo", "pin"),
    ]
    assert state["supervisor"] is True and state["hand"]["rolls"] == 1


# ---- the exact ends of the windows, without a tick() in between --------------------------


def test_the_pin_authorises_for_exactly_30_s_without_any_tick():
    e = fresh()
    t = authorise_by_pin(e, 1000)
    assert e.authorised(t + AUTH_MS - 1) and e.status(t + AUTH_MS - 1) == en.ST_SUPERVISOR
    assert not e.authorised(t + AUTH_MS) and e.status(t + AUTH_MS) == en.ST_READY
    assert e.press(en.K_UNDO, t + AUTH_MS - 1) == en.ACT_UNDO
    assert e.press(en.K_UNDO, t + AUTH_MS) == en.ACT_ERROR and e.error == en.ERR_NOT_AUTHORISED


def test_an_undo_at_the_last_authorised_millisecond_is_taken():
    e = fresh()
    t = authorise_by_pin(e, 0)
    assert e.press(en.K_END_HAND, t + AUTH_MS - 1) == en.ACT_END_HAND and e.via == en.VIA_PIN


def test_the_pin_key_is_locked_for_exactly_60_s_from_the_third_wrong_pin():
    e = fresh()
    t = 0
    for _ in range(3):
        actions, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
        assert actions[-1] == en.ACT_ERROR and e.error == en.ERR_WRONG_PIN
        t = last + 3000
    locked_at = last
    assert e.press(en.K_PIN, locked_at + LOCK_MS - 1) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    assert e.press(en.K_PIN, locked_at + LOCK_MS) == en.ACT_NONE
    assert e.status(locked_at + LOCK_MS) == en.ST_PIN


def test_two_wrong_pins_do_not_lock_and_a_good_one_resets_the_count():
    e = fresh()
    for t in (0, 5000):
        press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
    good = authorise_by_pin(e, 10_000)
    for t in (good + 5000, good + 10_000):
        press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
    assert e.press(en.K_PIN, good + 15_000) == en.ACT_NONE  # two in a row since the good one: not locked


def test_the_lock_tick_does_not_end_it_early():
    e = fresh()
    t = 0
    for _ in range(3):
        _, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
        t = last + 3000
    assert e.tick(last + LOCK_MS - 1) == en.ACT_NONE
    assert e.press(en.K_PIN, last + LOCK_MS - 1) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED


# ---- the status lamp ------------------------------------------------------------------------


def test_a_fresh_entry_is_ready_not_showing_an_error():
    for pin in (PIN, None):
        e = fresh(pin)
        for t in (0, 1, 1000, ERROR_MS - 1, ERROR_MS):
            assert e.status(t) == en.ST_READY


def test_a_fresh_board_shows_a_steady_green_status():
    state = Session().send("wait:100")
    assert state["status"] == "ready" and lit(state)["status"] == ("#00ff00", False, None)


def test_pin_entry_shows_the_pin_status_until_enter():
    e = fresh()
    _, last = press_all(e, [en.K_PIN, 4, 3], 0)
    assert e.status(last) == en.ST_PIN and e.status(last + 9000) == en.ST_PIN


def test_after_a_lock_one_wrong_pin_does_not_lock_again():
    e = fresh()
    t = 0
    for _ in range(3):
        _, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
        t = last + 3000
    t = last + LOCK_MS
    _, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
    assert e.error == en.ERR_WRONG_PIN
    assert e.press(en.K_PIN, last + 3000) == en.ACT_NONE


def test_turning_the_keyswitch_ends_the_error_display():
    e = fresh()
    e.press(9, 0)
    assert e.status(100) == en.ST_ERROR
    assert e.keyswitch(True, 200) == en.ACT_AUTH_ON
    assert e.status(300) == en.ST_SUPERVISOR


def test_pressing_d_again_restarts_the_10_s():
    e = fresh()
    e.press(en.K_PIN, 0)
    assert e.press(en.K_PIN, 9_000) == en.ACT_NONE
    assert e.tick(10_000) == en.ACT_NONE and e.status(18_999) == en.ST_PIN
    assert e.tick(19_000) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT


# ---- the clock wraps at 2**30 ms (about 12.4 days): nothing comes back ---------------------------


def lock(e):
    t = 0
    for _ in range(3):
        _, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
        t = last + 3000
    return last


def test_an_ended_lock_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    locked_at = lock(e)
    for t in range(locked_at + 10, locked_at + LOCK_MS + 100, 10):  # the app ticks every scan
        e.tick(t)
    # 2**30 ms later the tick counter reads locked_at + 100 again
    assert e.press(en.K_PIN, locked_at + 100) == en.ACT_NONE


def test_a_lock_ended_by_a_press_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    locked_at = lock(e)
    assert e.press(en.K_PIN, locked_at + LOCK_MS) == en.ACT_NONE  # no tick() in between
    e.press(en.K_CLEAR, locked_at + LOCK_MS + 100)
    assert e.press(en.K_PIN, locked_at + 100) == en.ACT_NONE


def test_an_error_shown_and_over_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    e.press(9, 0)
    for t in range(10, 2_500, 10):
        e.tick(t)
    assert e.status(2_500) == en.ST_READY
    assert e.status(100) == en.ST_READY  # the same tick value 2**30 ms later


def test_a_pin_window_over_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    t = authorise_by_pin(e, 0)
    for now in range(t + 10, t + AUTH_MS + 100, 10):
        e.tick(now)
    assert not e.authorised(t + 100)


def wrong_pin(e, t):
    _, last = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t)
    assert e.error == en.ERR_WRONG_PIN
    return last


def test_three_wrong_pins_in_a_row_lock_again_after_a_lock_and_after_a_good_pin():
    e = fresh()
    locked_at = lock(e)
    t = locked_at + LOCK_MS
    for _ in range(2):
        t = wrong_pin(e, t) + 3000
        assert e.press(en.K_PIN, t) == en.ACT_NONE  # two since the lock: not locked
        e.press(en.K_CLEAR, t + 100)
        t += 1000
    t = wrong_pin(e, t)
    assert e.press(en.K_PIN, t + 3000) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    e = fresh()
    t = authorise_by_pin(e, 0) + 1000
    for _ in range(2):
        t = wrong_pin(e, t) + 3000
    t = wrong_pin(e, t)
    assert e.press(en.K_PIN, t + 3000) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED


def test_a_lock_ended_by_a_tick_at_exactly_60_s_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    locked_at = lock(e)
    assert e.tick(locked_at + LOCK_MS) == en.ACT_NONE
    assert e.press(en.K_PIN, locked_at + 100) == en.ACT_NONE  # 2**30 ms later


def test_an_error_ended_by_a_tick_at_exactly_2_s_does_not_come_back_when_the_clock_wraps():
    e = fresh()
    e.press(9, 0)
    assert e.tick(ERROR_MS) == en.ACT_NONE
    assert e.status(100) == en.ST_READY  # 2**30 ms later


# ---- the PIN rule as the journal restores it (docs/journal.md, docs/keys.md) ---------


@pytest.mark.parametrize("left", [1, 20_000, LOCK_MS])
def test_a_restored_lockout_runs_exactly_the_time_it_had_left(left):
    e = fresh()
    e.restore_pin(0, left, 5_000)
    assert e.press(en.K_PIN, 5_000) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    assert e.press(en.K_PIN, 5_000 + left - 1) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    assert e.press(en.K_PIN, 5_000 + left) == en.ACT_NONE and e.status(5_000 + left) == en.ST_PIN


def test_no_lockout_restored_leaves_the_pin_key_free():
    e = fresh()
    e.restore_pin(0, 0, 5_000)
    assert e.press(en.K_PIN, 5_000) == en.ACT_NONE and e.status(5_000) == en.ST_PIN


@pytest.mark.parametrize("fails", [0, 1, 2])
def test_wrong_pins_before_a_restart_count_towards_the_three(fails):
    e = fresh()
    e.restore_pin(fails, 0, 0)
    t = 0
    for _ in range(3 - fails):  # the wrong PINs that make three
        actions, t = press_all(e, [en.K_PIN, 1, 1, 1, 1, en.K_ENTER], t + 3_000)
        assert actions[-1] == en.ACT_ERROR and e.error == en.ERR_WRONG_PIN
    assert e.press(en.K_PIN, t + 3_000) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
