"""Keypad matrix scan, buttons and the debouncer (crapsboard/table/keypad.py)."""

from crapsboard.base import ticks
from crapsboard.table import keypad


class Row:
    def __init__(self):
        self.level = 1
        self.writes = 0

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v
        self.writes += 1


class Col:
    """Pulled up; low while a pressed key joins it to a row driven low."""

    def __init__(self, rows, col, down):
        self.rows, self.col, self.down = rows, col, down

    def value(self, v=None):
        return 0 if any(self.rows[r].level == 0 and (r, self.col) in self.down for r in range(len(self.rows))) else 1


class Level:
    def __init__(self, level):
        self.level = level

    def value(self, v=None):
        return self.level


def matrix(down):
    rows = [Row() for _ in range(4)]
    cols = [Col(rows, c, down) for c in range(4)]
    return keypad.Matrix(rows, cols), rows


def test_scan_gives_one_bit_per_key_row_major():
    down = set()
    m, rows = matrix(down)
    assert m.scan() == 0
    down.add((2, 1))  # row 2, column 1: key index 9
    assert m.scan() == 1 << 9
    down.add((0, 3))
    assert m.scan() == (1 << 9) | (1 << 3)


def test_scan_releases_every_row_afterwards():
    down = {(1, 1), (3, 0)}
    m, rows = matrix(down)
    m.scan()
    assert all(r.level == 1 for r in rows)
    assert all(r.writes >= 3 for r in rows)  # released at start, driven, released


def test_buttons_respect_active_level_and_absent_pins():
    b = keypad.Buttons([Level(0), Level(1), None, Level(1)], [True, True, True, False])
    bits = b.read()
    assert bits == (1 << keypad.BUTTON_SHIFT) | (1 << (keypad.BUTTON_SHIFT + 3))


def test_a_bounce_shorter_than_the_window_is_ignored():
    d = keypad.Debouncer(30)
    assert d.update(0b100, 0) == 0
    assert d.update(0b100, 20) == 0
    assert d.update(0, 25) == 0  # released before 30 ms of steady reading
    for t in range(30, 200, 10):
        assert d.update(0, t) == 0
    assert d.stable == 0


def test_a_press_is_reported_once_after_the_window():
    d = keypad.Debouncer(30)
    presses = [d.update(0b100, t) for t in range(0, 200, 10)]
    assert presses.count(0b100) == 1
    assert presses.index(0b100) == 3  # seen at 0, steady through 30
    assert d.stable == 0b100
    d.update(0, 200)
    assert [d.update(0, t) for t in range(210, 300, 10)] == [0] * 9
    assert d.stable == 0 and d.changed == 0


def test_keys_struck_together_arrive_together():
    d = keypad.Debouncer(30)
    d.update(0b01, 0)
    d.update(0b11, 5)  # second key 5 ms later: still inside the window
    out = [d.update(0b11, t) for t in range(10, 100, 10)]
    assert 0b11 in out and 0b01 not in out


def test_debounce_across_the_tick_wrap():
    d = keypad.Debouncer(30)
    start = ticks.PERIOD - 15
    pressed = [d.update(1, ticks.add(start, t)) for t in range(0, 60, 10)]
    assert pressed.count(1) == 1 and pressed.index(1) == 3


def test_lowest_bit():
    assert keypad.lowest_bit(1 << 18) == 18 and keypad.lowest_bit(0b1100) == 2 and keypad.lowest_bit(1) == 0
