"""The keypad's contract (docs/keys.md, docs/board.md), beyond test_keypad.py.

A held key counts once; releasing one of two held keys is not a new press of
the other; a key is read in its own row only, from the very first scan; a
contact shorter than the 30 ms debounce window does not count.
"""

import os

import pytest
from conftest import ROOT

from crapsboard.table import keypad
from crapsboard.table import layout as lay

DEBOUNCE_MS = 30  # docs/keys.md: keypad.debounce_ms, 30 ms
SCAN_MS = 10  # docs/board.md: a scan every 10 ms


class Row:
    """An open-drain row; `level` is what it drives (1 = released)."""

    def __init__(self, level):
        self.level = level

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v


class Col:
    """Pulled up; low while a held key joins it to a row driven low."""

    def __init__(self, rows, col, down):
        self.rows, self.col, self.down = rows, col, down

    def value(self, v=None):
        for r, row in enumerate(self.rows):
            if row.level == 0 and (r, self.col) in self.down:
                return 0
        return 1


class Level:
    def __init__(self, level):
        self.level = level

    def value(self, v=None):
        return self.level


def feed(debouncer, raw, start, stop, step=SCAN_MS):
    """update() every scan from start to stop (exclusive); the non-zero results as (t, bits)."""
    out = []
    for t in range(start, stop, step):
        bits = debouncer.update(raw, t)
        if bits:
            out.append((t, bits))
    return out


def test_the_shipped_board_debounces_30_ms_and_scans_every_10_ms():
    layout = lay.load(os.path.join(ROOT, "hardware", "board.json"))
    assert layout.debounce_ms == 30 and layout.scan_ms == 10


def test_rows_left_driven_at_power_up_do_not_ghost_a_held_key_on_the_first_scan():
    # Pins may come up driven low; the matrix must release them before scanning,
    # or a key held in row 2 reads in every row driven low with it.
    down = {(2, 1)}
    rows = [Row(0) for _ in range(4)]
    m = keypad.Matrix(rows, [Col(rows, c, down) for c in range(4)])
    assert [r.level for r in rows] == [1, 1, 1, 1]
    assert m.scan() == 1 << 9
    assert m.scan() == 1 << 9


def test_every_key_reads_as_its_own_bit():
    for r in range(4):
        for c in range(4):
            down = {(r, c)}
            rows = [Row(1) for _ in range(4)]
            m = keypad.Matrix(rows, [Col(rows, k, down) for k in range(4)])
            assert m.scan() == 1 << (4 * r + c)


def test_all_sixteen_keys_at_once():
    down = {(r, c) for r in range(4) for c in range(4)}
    rows = [Row(1) for _ in range(4)]
    assert keypad.Matrix(rows, [Col(rows, c, down) for c in range(4)]).scan() == 0xFFFF


@pytest.mark.parametrize("index", range(4))
@pytest.mark.parametrize("active_low", [True, False])
def test_each_button_is_its_own_bit_above_the_keypad(index, active_low):
    pressed_level = 0 if active_low else 1
    pins = [Level(1 - pressed_level) for _ in range(4)]
    pins[index] = Level(pressed_level)
    assert keypad.Buttons(pins, [active_low] * 4).read() == 1 << (16 + index)
    pins[index] = Level(1 - pressed_level)
    assert keypad.Buttons(pins, [active_low] * 4).read() == 0


def test_lowest_bit_of_every_input_bit():
    for i in range(20):
        assert keypad.lowest_bit(1 << i) == i
        assert keypad.lowest_bit((1 << 19) | (1 << i)) == i


def test_a_press_counts_at_exactly_the_debounce_window_not_a_scan_sooner():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert d.update(0b1000, 1000) == 0
    assert d.update(0b1000, 1000 + DEBOUNCE_MS - 1) == 0
    assert d.update(0b1000, 1000 + DEBOUNCE_MS) == 0b1000
    assert d.stable == 0b1000 and d.changed == 0b1000


def test_a_29_ms_contact_does_not_count_a_30_ms_one_does():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert feed(d, 1, 0, 30, 1) == [] and feed(d, 0, 30, 200) == []
    assert feed(d, 1, 200, 231, 1) == [(230, 1)]


def test_releasing_one_of_two_held_keys_is_not_a_press_of_the_other():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert feed(d, 0b11, 0, 100) == [(30, 0b11)]
    assert feed(d, 0b01, 100, 300) == []  # key 1 let go, key 0 still held
    assert d.stable == 0b01
    assert feed(d, 0, 300, 500) == []
    assert d.stable == 0


def test_a_release_is_reported_in_changed_but_not_as_a_press():
    d = keypad.Debouncer(DEBOUNCE_MS)
    feed(d, 0b110, 0, 100)
    releases = []
    for t in range(100, 300, SCAN_MS):
        assert d.update(0b010, t) == 0
        releases.append(d.changed)
    assert releases.count(0b100) == 1 and set(releases) == {0, 0b100}


def test_changed_is_cleared_by_the_next_raw_change():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert feed(d, 0b1, 0, 40) == [(30, 0b1)]
    assert d.changed == 0b1
    assert d.update(0b11, 40) == 0  # a second key starts bouncing in
    assert d.changed == 0
    assert d.update(0b11, 50) == 0 and d.changed == 0


def test_changed_is_cleared_on_a_quiet_scan():
    d = keypad.Debouncer(DEBOUNCE_MS)
    feed(d, 0b1, 0, 40)
    d.update(0b1, 40)
    assert d.changed == 0 and d.stable == 0b1


def test_a_key_pressed_after_a_long_idle_time_counts_once():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert feed(d, 0, 0, 5000) == []
    assert feed(d, 1 << 17, 5000, 5200) == [(5030, 1 << 17)]


def test_a_press_held_for_minutes_counts_once():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert feed(d, 1 << 4, 0, 180_000, 50) == [(50, 1 << 4)]


def test_a_fresh_debouncer_has_nothing_down_and_nothing_changed():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert d.stable == 0 and d.changed == 0
    assert d.update(0, 0) == 0 and d.stable == 0 and d.changed == 0


def test_a_ready_change_waits_for_a_change_begun_within_the_window_after_the_youngest_ready_one():
    # docs/keys.md: keys struck within 30 ms of each other arrive together.
    # A (bit 0) at 0 ms, B (bit 1) at 20 ms, C (bit 2) at 45 ms: B began within
    # 30 ms of A and C within 30 ms of B, so all three arrive as one chord once C
    # has been steady for 30 ms (at 75 ms), not A and B first at 50 ms.
    d = keypad.Debouncer(30)
    seen = []
    for t in range(0, 120, 5):
        raw = 1 | (2 if t >= 20 else 0) | (4 if t >= 45 else 0)
        seen.append((t, d.update(raw, t)))
    presses = [(t, bits) for t, bits in seen if bits]
    assert presses == [(75, 0b111)]


def test_a_change_long_after_the_ready_one_does_not_hold_it_but_one_close_behind_does():
    # A (bit 0) at 0 ms is ready at 30. D (bit 9) begins at 15 ms, within A's
    # window, so A waits for D (ready at 45). C (bit 5) begins at 38 ms: under
    # 30 ms after D, so the chord waits for C too (ready at 68), while at 40 ms,
    # checked against A alone, C began 38 ms after it and held nothing; D did.
    d = keypad.Debouncer(30)
    presses = []
    for t in range(0, 100, 1):
        raw = 1 | (1 << 9 if t >= 15 else 0) | (1 << 5 if t >= 38 else 0)
        bits = d.update(raw, t)
        if bits:
            presses.append((t, bits))
    assert presses == [(68, 1 | 1 << 5 | 1 << 9)]


def test_after_a_late_scan_a_new_key_does_not_hold_back_keys_already_steady():
    # The scan can run late (a flash erase blocks the loop for tens of ms). A and D
    # were steady long enough by the late scan at 60 ms; C is first seen there, more
    # than a window after D began, so it is a new press, not part of their chord.
    d = keypad.Debouncer(30)
    assert d.update(0b1, 0) == 0
    assert d.update(0b11, 25) == 0
    assert d.update(0b111, 60) == 0b11
    assert [d.update(0b111, t) for t in (70, 80, 90)] == [0, 0, 0b100]


# ---- keys held at power-up (Debouncer.hold: "already down and steady"; app.ignore_held_keys) ----


def presses(debouncer, readings):
    """The presses reported for (raw, now_ms) readings, as (now_ms, bits)."""
    out = []
    for raw, now in readings:
        got = debouncer.update(raw, now)
        if got:
            out.append((now, got))
    return out


KEY = 1 << 5
OTHER = 1 << 9


def test_a_held_key_counts_only_once_released_and_pressed_again():
    d = keypad.Debouncer(DEBOUNCE_MS)
    d.hold(KEY)
    assert presses(d, [(KEY, t) for t in range(0, 200, SCAN_MS)]) == []
    assert d.stable == KEY
    assert presses(d, [(0, t) for t in range(200, 300, SCAN_MS)]) == [] and d.stable == 0
    assert presses(d, [(KEY, t) for t in range(300, 400, SCAN_MS)]) == [(300 + DEBOUNCE_MS, KEY)]


@pytest.mark.parametrize("seen_before", [False, True])
def test_a_held_key_that_bounces_open_for_less_than_the_window_is_still_one_hold(seen_before):
    # docs/keys.md: a contact change shorter than the 30 ms window does not count, held keys too.
    d = keypad.Debouncer(DEBOUNCE_MS)
    if seen_before:
        d.update(KEY, 0)  # down at the first scan, not yet steady when the app holds it
    d.hold(KEY)
    readings = [(0, 1000), (KEY, 1010)] + [(KEY, t) for t in range(1020, 1200, SCAN_MS)]
    assert presses(d, readings) == []
    assert d.stable == KEY


def test_holding_keys_keeps_a_key_already_down_and_steady():
    d = keypad.Debouncer(DEBOUNCE_MS)
    assert presses(d, [(KEY, t) for t in range(0, 100, SCAN_MS)]) == [(DEBOUNCE_MS, KEY)]
    d.hold(KEY | OTHER)
    assert presses(d, [(KEY | OTHER, t) for t in range(100, 300, SCAN_MS)]) == []
    assert d.stable == KEY | OTHER


def test_a_key_struck_a_whole_window_after_another_does_not_hold_it_back():
    # Debouncer: a ready change waits only for changes that began *less than* debounce_ms
    # after it; one struck exactly 30 ms later arrives on its own, 30 ms after that.
    d = keypad.Debouncer(DEBOUNCE_MS)
    readings = [(KEY, t) for t in range(0, DEBOUNCE_MS, SCAN_MS)]
    readings += [(KEY | OTHER, t) for t in range(DEBOUNCE_MS, 100, SCAN_MS)]
    assert presses(d, readings) == [(DEBOUNCE_MS, KEY), (2 * DEBOUNCE_MS, OTHER)]
