"""The pure entry state machine (crapsboard/table/entry.py): keys + now_ms in, actions out."""

import pytest

from crapsboard.table import entry as en

PIN = "4321"
# Times are the documented numbers (docs/keys.md), never the module's constants.


def fresh(pin=PIN):
    return en.Entry(en.pin_record(pin, b"test salt", 3) if pin else None)


def keys(e, codes, t=0, step=200):
    """Press each key code; the list of actions."""
    out = []
    for code in codes:
        out.append(e.press(code, t))
        t += step
    return out


def test_two_die_presses_make_one_roll():
    e = fresh()
    assert e.press(3, 0) == en.ACT_NONE
    assert e.status(10) == en.ST_HALF and e.first == 3
    assert e.press(4, 500) == en.ACT_ROLL
    assert (e.die1, e.die2) == (3, 4)
    assert e.status(600) == en.ST_READY and e.first == 0


@pytest.mark.parametrize("digit", [0, 7, 8, 9])
def test_a_digit_that_is_no_die_face_is_refused_and_drops_the_half_roll(digit):
    e = fresh()
    e.press(5, 0)
    assert e.press(digit, 100) == en.ACT_ERROR
    assert e.error == en.ERR_NOT_A_DIE
    assert e.status(200) == en.ST_ERROR and e.first == 0
    # the next two presses are a whole roll, not the dropped 5 plus one
    assert keys(e, [2, 6], 300) == [en.ACT_NONE, en.ACT_ROLL] and (e.die1, e.die2) == (2, 6)


def test_the_error_shows_for_two_seconds_or_until_the_next_key():
    e = fresh()
    e.press(9, 0)
    assert e.status(1_999) == en.ST_ERROR
    assert e.status(2000) == en.ST_READY
    e.press(9, 5000)
    e.press(2, 5100)
    assert e.status(5100) == en.ST_HALF


def test_a_half_roll_times_out_after_ten_seconds():
    e = fresh()
    e.press(4, 1000)
    assert e.tick(1000 + 10_000 - 1) == en.ACT_NONE and e.first == 4
    assert e.tick(1000 + 10_000) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    assert e.first == 0 and e.tick(1000 + 10_000 + 10) == en.ACT_NONE


def test_a_late_second_die_is_refused_even_without_a_tick():
    e = fresh()
    e.press(4, 0)
    assert e.press(3, 10_000 + 5) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    assert e.first == 0


def test_clear_drops_a_half_roll_quietly():
    e = fresh()
    e.press(6, 0)
    assert e.press(en.K_CLEAR, 100) == en.ACT_CLEAR and e.dropped == 6
    assert e.status(150) == en.ST_READY
    assert e.press(en.K_CLEAR, 200) == en.ACT_NONE


def test_two_keys_at_once_is_refused():
    e = fresh()
    e.press(2, 0)
    assert e.chord(100) == en.ACT_ERROR and e.error == en.ERR_TWO_KEYS and e.first == 0


@pytest.mark.parametrize("key", [en.K_UNDO, en.K_END_HAND])
def test_undo_and_end_hand_need_a_supervisor(key):
    e = fresh()
    assert e.press(key, 0) == en.ACT_ERROR and e.error == en.ERR_NOT_AUTHORISED
    assert e.keyswitch(True, 100) == en.ACT_AUTH_ON and e.via == en.VIA_KEY
    assert e.status(150) == en.ST_SUPERVISOR
    assert e.press(key, 200) == (en.ACT_UNDO if key == en.K_UNDO else en.ACT_END_HAND)
    assert e.via == en.VIA_KEY
    assert e.keyswitch(True, 250) == en.ACT_NONE
    assert e.keyswitch(False, 300) == en.ACT_AUTH_OFF
    assert e.press(key, 400) == en.ACT_ERROR and e.error == en.ERR_NOT_AUTHORISED


def test_undo_with_a_half_roll_pending_is_refused():
    e = fresh()
    e.keyswitch(True, 0)
    e.press(3, 100)
    assert e.press(en.K_UNDO, 200) == en.ACT_ERROR and e.error == en.ERR_ROLL_PENDING


def test_a_good_pin_authorises_for_a_while():
    e = fresh()
    assert keys(e, [en.K_PIN, 4, 3, 2, 1], 0) == [en.ACT_NONE] * 5
    assert e.status(900) == en.ST_PIN and not e.authorised(900)
    assert e.press(en.K_ENTER, 1000) == en.ACT_AUTH_ON and e.via == en.VIA_PIN
    assert e.status(1100) == en.ST_SUPERVISOR
    assert e.press(en.K_UNDO, 1200) == en.ACT_UNDO and e.via == en.VIA_PIN
    assert e.tick(1000 + 30_000 - 1) == en.ACT_NONE
    assert e.tick(1000 + 30_000) == en.ACT_AUTH_OFF and e.via == en.VIA_PIN
    assert e.press(en.K_UNDO, 1000 + 30_000 + 10) == en.ACT_ERROR


def test_clear_ends_the_pin_window_early():
    e = fresh()
    keys(e, [en.K_PIN, 4, 3, 2, 1, en.K_ENTER])
    assert e.press(en.K_CLEAR, 2000) == en.ACT_AUTH_OFF
    assert not e.authorised(2001)


def test_a_wrong_pin_is_refused_and_three_lock_the_pin_key():
    e = fresh()
    t = 0
    for _ in range(en.PIN_TRIES):
        assert keys(e, [en.K_PIN, 1, 2, 3, 4, en.K_ENTER], t)[-1] == en.ACT_ERROR
        assert e.error == en.ERR_WRONG_PIN and not e.authorised(t + 1500)
        t += 2000
    assert e.press(en.K_PIN, t) == en.ACT_ERROR and e.error == en.ERR_PIN_LOCKED
    # still locked with the right PIN until 60 s have passed
    assert keys(e, [en.K_PIN], t + 1000) == [en.ACT_ERROR]
    later = t + 60_000
    assert keys(e, [en.K_PIN, 4, 3, 2, 1, en.K_ENTER], later)[-1] == en.ACT_AUTH_ON


def test_pin_entry_limits_and_exits():
    e = fresh()
    out = keys(e, [en.K_PIN] + [1] * (en.PIN_DIGITS + 1))
    assert out[-1] == en.ACT_ERROR and e.error == en.ERR_PIN_TOO_LONG
    keys(e, [en.K_PIN, 4, 3], 5000)
    assert e.press(en.K_CLEAR, 6000) == en.ACT_NONE and e.status(6000) == en.ST_READY
    keys(e, [en.K_PIN, 4], 7000)
    assert e.tick(7200 + 10_000) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    keys(e, [en.K_PIN, 9, 9, en.K_PIN, 4, 3, 2, 1, en.K_ENTER], 30000)
    assert e.authorised(32000)  # D restarts the PIN


def test_without_a_configured_pin_only_the_keyswitch_works():
    e = fresh(None)
    assert e.press(en.K_PIN, 0) == en.ACT_ERROR and e.error == en.ERR_NO_PIN


def test_enter_outside_pin_entry_starts_a_progressive_count():
    # `#` game count `#` (docs/keys.md); `#` with no game or count is refused.
    e = fresh()
    assert e.press(en.K_ENTER, 0) == en.ACT_NONE and e.status(0) == en.ST_HALF
    assert e.press(en.K_ENTER, 200) == en.ACT_ERROR and e.error == en.ERR_PROG_COUNT
    assert [e.press(k, 400 + 200 * i) for i, k in enumerate([en.K_ENTER, 2, 4, 2, en.K_ENTER])] == [
        en.ACT_NONE,
        en.ACT_NONE,
        en.ACT_NONE,
        en.ACT_NONE,
        en.ACT_PROG_WAGER,
    ]
    assert (e.prog_game, e.prog_count) == (1, 42)
    assert e.press(en.K_ENTER, 2000) == en.ACT_NONE
    assert e.press(3, 2200) == en.ACT_ERROR and e.error == en.ERR_UNEXPECTED_KEY  # no game 3
    assert e.press(1, 2400) == en.ACT_NONE and e.press(en.K_ENTER, 2600) == en.ACT_NONE  # dropped up to `#`
    assert e.press(2, 2800) == en.ACT_NONE and e.first == 2  # dice again


def test_a_progressive_count_left_10_s_times_out_and_clear_drops_it():
    e = fresh()
    press_all_at = [(en.K_ENTER, 0), (1, 100), (5, 200)]
    for k, t in press_all_at:
        assert e.press(k, t) == en.ACT_NONE
    assert e.tick(10199) == en.ACT_NONE
    assert e.tick(10200) == en.ACT_ERROR and e.error == en.ERR_TIMEOUT
    assert e.press(3, 10300) == en.ACT_NONE and e.first == 3  # after a timeout the keys are dice
    e = fresh()
    for k, t in press_all_at:
        e.press(k, t)
    assert e.press(en.K_CLEAR, 300) == en.ACT_NONE and e.status(300) == en.ST_READY


def test_lamp_test_leaves_a_half_roll_alone():
    e = fresh()
    e.press(2, 0)
    assert e.press(en.K_LAMP_TEST, 100) == en.ACT_LAMP_TEST
    assert e.press(5, 200) == en.ACT_ROLL and (e.die1, e.die2) == (2, 5)


def test_key_codes_from_board_roles():
    assert en.key_code("die", "4") == 4 and en.key_code("digit", "0") == 0
    assert en.key_code("supervisor_pin", "D") == en.K_PIN and en.key_code("clear", "*") == en.K_CLEAR


def test_pin_record_is_pbkdf2_hmac_sha256_of_the_digits():
    # RFC 7914 section 11's PBKDF2-HMAC-SHA256 vector (P "passwd", S "salt", c 1), first 32 bytes.
    salt, iterations, digest = en.pin_record("passwd", b"salt", 1)
    assert (salt, iterations) == (b"salt", 1)
    assert digest.hex() == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"


@pytest.mark.parametrize("code", [16, 31, 255])
def test_a_key_code_no_key_has_is_refused_as_unexpected(code):
    # a keypad has 16 keys at most (codes 0-15): anything else is no input the
    # entry knows, refused with the error shown (with a die pending it is that
    # error, roll_pending, as for any key but a die or clear)
    e = fresh()
    assert e.press(code, 0) == en.ACT_ERROR
    assert e.error == en.ERR_UNEXPECTED_KEY and e.status(100) == en.ST_ERROR
    assert keys(e, [2, 6], 300) == [en.ACT_NONE, en.ACT_ROLL] and (e.die1, e.die2) == (2, 6)


def test_a_third_digit_in_a_progressive_count_is_refused_at_once():
    # docs/keys.md: `#`, the game (1 or 2), one or two digits, `#`; the count's
    # digits after an error are dropped, never dice
    e = fresh()
    assert keys(e, [en.K_ENTER, 1, 4, 2]) == [en.ACT_NONE] * 4
    assert e.press(7, 1000) == en.ACT_ERROR and e.error == en.ERR_PROG_COUNT
    assert keys(e, [5, 5], 1200) == [en.ACT_NONE, en.ACT_NONE] and e.first == 0  # dropped
    e = fresh()
    assert keys(e, [en.K_ENTER, 2, 9, 9, en.K_ENTER]) == [en.ACT_NONE] * 4 + [en.ACT_PROG_WAGER]
    assert (e.prog_game, e.prog_count) == (1, 99)


@pytest.mark.parametrize("digits, count", [((), None), ((0,), None), ((0, 0), None), ((1,), 1), ((0, 1), 1)], ids=str)
def test_a_progressive_count_is_1_to_99_and_no_count_is_refused(digits, count):
    # docs/keys.md: `#`, the game, the count (1-99), `#`; a game with no count, or a
    # count of 0, is the prog_count error; one wager is a count like any other.
    e = fresh()
    assert keys(e, [en.K_ENTER, 1, *digits]) == [en.ACT_NONE] * (2 + len(digits))
    if count is None:
        assert e.press(en.K_ENTER, 1000) == en.ACT_ERROR and e.error == en.ERR_PROG_COUNT
    else:
        assert e.press(en.K_ENTER, 1000) == en.ACT_PROG_WAGER and (e.prog_game, e.prog_count) == (0, count)


@pytest.mark.parametrize("key", [en.K_UNDO, en.K_END_HAND, en.K_PIN])
def test_undo_end_hand_or_the_pin_key_inside_a_progressive_count_is_unexpected(key):
    # docs/keys.md, errors: `unexpected_key`, undo or end hand while typing a
    # progressive count; the count is dropped, not taken
    e = fresh()
    e.key_on = True  # even for a supervisor
    assert keys(e, [en.K_ENTER, 1, 5]) == [en.ACT_NONE] * 3
    assert e.press(key, 1000) == en.ACT_ERROR and e.error == en.ERR_UNEXPECTED_KEY
    assert e.press(en.K_ENTER, 1200) == en.ACT_NONE  # `#` ends the dropped digits; no count taken


def test_each_progressive_count_has_its_own_two_digits():
    # docs/keys.md: COUNT is one or two digits, each count afresh: a two-digit
    # count keyed after another is taken whole, not refused at its first digit.
    e = fresh()
    assert keys(e, [en.K_ENTER, 1, 1, 2, en.K_ENTER]) == [en.ACT_NONE] * 4 + [en.ACT_PROG_WAGER]
    assert keys(e, [en.K_ENTER, 2, 3, 4, en.K_ENTER], 2000) == [en.ACT_NONE] * 4 + [en.ACT_PROG_WAGER]
    assert (e.prog_game, e.prog_count) == (1, 34)
