"""The documented times, pinned as numbers (docs/keys.md, docs/lamps.md, docs/board.md).

Never computed from the firmware's own constants: a test that adds HALF_MS to
a time passes whatever HALF_MS is. Here 10 s is 10_000 ms.
"""

import json
import os

import pytest
from conftest import ROOT

from crapsboard.rules.engine import Table
from crapsboard.table import app as app_mod
from crapsboard.table import entry as en
from crapsboard.table import lamps as lp
from crapsboard.table import layout as lay
from sim.pin_hash import config_entry
from sim.session import Session, lit

LAYOUT = lay.load(os.path.join(ROOT, "hardware", "board.json"))

HALF_ROLL_MS = 10_000  # a half-entered roll or a PIN left 10 s is refused
ERROR_MS = 2_000  # an error shows for 2 s, or until the next key
AUTH_MS = 30_000  # a good PIN is good for 30 s
LOCK_MS = 60_000  # three wrong PINs lock the PIN key for 60 s
PIN = "4321"


def status_pixel(status, now_ms):
    lamps = lp.Lamps(LAYOUT)
    lamps.render(Table(), status, now_ms)
    p = 3 * LAYOUT.pixels["status"]
    return bytes(lamps.frame[p : p + 3])


def pin_entry():
    return en.Entry(en.pin_record(PIN, b"test salt", 3))


def test_a_half_roll_is_refused_at_10_s_not_before():
    e = pin_entry()
    e.press(4, 5000)
    assert e.tick(5000 + HALF_ROLL_MS - 1) == en.ACT_NONE and e.first == 4
    assert e.tick(5000 + HALF_ROLL_MS) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    assert e.first == 0


def test_a_second_die_at_9999_ms_makes_the_roll():
    e = pin_entry()
    e.press(4, 0)
    assert e.press(3, 9_999) == en.ACT_ROLL and (e.die1, e.die2) == (4, 3)
    e.press(4, 20_000)
    assert e.press(3, 30_000) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT


def test_a_pin_left_10_s_after_its_last_key_is_refused():
    e = pin_entry()
    e.press(en.K_PIN, 0)
    e.press(4, 3_000)  # each PIN key restarts the 10 s
    assert e.tick(3_000 + 9_999) == en.ACT_NONE and e.status(12_999) == en.ST_PIN
    assert e.tick(13_000) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    assert e.status(13_000) == en.ST_ERROR


@pytest.mark.parametrize("gap, a_die", [(9_999, False), (10_000, True)])
def test_after_a_refused_pin_key_digits_are_dropped_until_10_s_without_a_key(gap, a_die):
    # docs/keys.md "No phantom rolls": dropped up to #, * or 10 s without a key; no tick() between.
    e = en.Entry()  # no PIN configured: D is refused (no_pin)
    assert e.press(en.K_PIN, 50_000) == en.ACT_ERROR and e.error == en.ERR_NO_PIN
    assert e.press(2, 51_000) == en.ACT_NONE and e.first == 0  # dropped; the 10 s start again
    assert e.press(3, 51_000 + gap) == en.ACT_NONE
    assert e.first == (3 if a_die else 0)
    assert e.status(51_000 + gap) == (en.ST_HALF if a_die else en.ST_PIN)


def test_after_a_refused_pin_key_every_digit_is_dropped_0_to_9():
    # docs/keys.md: the digits typed next are PIN digits and are dropped (0-9 are digits).
    e = en.Entry()
    e.press(en.K_PIN, 1_000)
    for i, digit in enumerate(range(10)):
        assert e.press(digit, 1_100 + i) == en.ACT_NONE, digit
    assert e.first == 0 and e.status(1_200) == en.ST_PIN


@pytest.mark.parametrize("key", [en.K_UNDO, en.K_END_HAND])
def test_undo_or_end_hand_while_refused_pin_digits_are_dropped_is_an_unexpected_key(key):
    # docs/keys.md, unexpected_key: "undo or end hand while typing a PIN (or while its digits are
    # being dropped)"; the digits after it are still dropped.
    e = en.Entry()
    e.press(en.K_PIN, 1_000)
    e.press(4, 1_100)
    assert e.press(key, 1_200) == en.ACT_ERROR and e.error == en.ERR_UNEXPECTED_KEY
    assert e.press(3, 1_300) == en.ACT_NONE and e.first == 0


@pytest.mark.parametrize("gap, a_die", [(9_999, False), (10_000, True)])
def test_after_a_pin_entry_cut_short_the_10_s_count_from_the_key_that_cut_it(gap, a_die):
    # docs/keys.md: a PIN entry cut short by an error (unexpected_key): digits dropped up to
    # 10 s without a key; the refused key is a key.
    e = pin_entry()
    e.press(en.K_PIN, 0)
    e.press(1, 1_000)
    assert e.press(en.K_UNDO, 5_000) == en.ACT_ERROR and e.error == en.ERR_UNEXPECTED_KEY
    assert e.press(3, 5_000 + gap) == en.ACT_NONE
    assert e.first == (3 if a_die else 0)


def test_an_error_shows_for_2_s():
    e = pin_entry()
    assert e.press(9, 1_000) == en.ACT_ERROR
    assert e.status(1_000) == en.ST_ERROR and e.status(1_000 + 1_999) == en.ST_ERROR
    assert e.status(1_000 + ERROR_MS) == en.ST_READY
    assert e.tick(1_000 + 1_999) == en.ACT_NONE and e.status(1_000 + 1_999) == en.ST_ERROR


def test_an_error_shown_after_a_half_roll_gives_way_to_ready_at_2_s():
    e = pin_entry()
    e.press(4, 0)
    e.tick(10_000)  # the timeout
    assert e.status(11_999) == en.ST_ERROR and e.status(12_000) == en.ST_READY


def test_a_pin_authorises_for_30_s():
    e = pin_entry()
    for i, code in enumerate([en.K_PIN, 4, 3, 2, 1]):
        e.press(code, i * 100)
    assert e.press(en.K_ENTER, 1_000) == en.ACT_AUTH_ON
    assert e.tick(1_000 + 29_999) == en.ACT_NONE and e.authorised(30_999)
    assert e.tick(1_000 + AUTH_MS) == en.ACT_AUTH_OFF and not e.authorised(31_000)


def test_three_wrong_pins_lock_for_60_s():
    e = pin_entry()
    for start in (0, 2_000, 4_000):
        for i, code in enumerate([en.K_PIN, 1, en.K_ENTER]):
            e.press(code, start + i * 100)
    locked_at = 4_200
    assert e.press(en.K_PIN, locked_at + 59_999) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    assert e.press(en.K_PIN, locked_at + LOCK_MS) == en.ACT_NONE


def test_pin_limits_are_8_digits_and_3_tries():
    assert en.PIN_DIGITS == 8 and en.PIN_TRIES == 3


def test_the_app_renders_every_50_ms():
    assert app_mod.RENDER_MS == 50


# ---- the same times on the simulated board ------------------------------------------------------


def test_on_the_board_a_half_roll_times_out_at_10_s():
    s = Session()
    state = s.send("3")  # the die counts at about 30 ms into its 80 ms press
    assert state["status"] == "half" and state["events"] == []
    state = s.advance(9_500)
    assert state["status"] == "half" and state["pending"] == 3
    state = s.advance(600)
    assert [(e["event"], e["reason"]) for e in state["events"]] == [("error", "timeout")]
    assert state["pending"] is None and state["status"] == "error"
    state = s.advance(1_700)
    assert state["status"] == "error"
    state = s.advance(300)
    assert state["status"] == "ready"


def test_on_the_board_the_pin_window_closes_at_30_s():
    s = Session(config_text=json.dumps({"supervisor_pin": config_entry(PIN)}))
    state = s.send("pin 4 3 2 1 enter")
    assert state["supervisor"] is True
    state = s.advance(29_500)
    assert state["supervisor"] is True and state["events"] == []
    state = s.advance(600)
    assert state["supervisor"] is False
    assert [(e["event"], e["via"]) for e in state["events"]] == [("supervisor_off", "pin")]


@pytest.mark.parametrize(
    "ms, blinking_off",
    [(0, False), (511, False), (512, True), (1023, True), (1024, False)],
)
def test_slow_blink_is_512_ms_on_512_off(ms, blinking_off):
    frame = status_pixel(en.ST_HALF, ms)
    assert (frame == bytes(3)) is blinking_off


@pytest.mark.parametrize(
    "ms, blinking_off",
    [(0, False), (127, False), (128, True), (255, True), (256, False)],
)
def test_fast_blink_is_128_ms_on_128_off(ms, blinking_off):
    frame = status_pixel(en.ST_ERROR, ms)
    assert (frame == bytes(3)) is blinking_off


def test_a_win_is_celebrated_for_4_s_then_shows_the_state():
    s = Session()
    state = s.send("1 1 1 2 2 2 2 3 3 3")  # All Small completes on the 6
    assert lit(state)["small.open"][1] is True
    state = s.advance(3_700)
    assert lit(state)["small.open"][1] is True
    state = s.advance(400)
    assert lit(state)["small.open"] == ("#00ff00", False, None)
