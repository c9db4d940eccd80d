# Inputs as a bitmap: the 4x4 membrane keypad (matrix scan) and the buttons,
# then a pure debouncer that turns raw bitmaps into press edges.
#
# Pins are passed in: anything with `.value()` / `.value(v)` (machine.Pin on the
# board, simulated pins in sim/portable/simboard.py). Bit i of the bitmap is keypad key i
# (row * columns + col); the buttons follow from BUTTON_SHIFT in layout.BUTTONS
# order. Nothing here allocates per scan.
from micropython import const

from crapsboard.base import ticks

BUTTON_SHIFT = const(16)


def lowest_bit(x):
    """Index of the lowest set bit of x (x > 0)."""
    i = 0
    while not x & 1:
        x >>= 1
        i += 1
    return i


def _no_wait(us):
    pass


class Matrix:
    """Row pins are open-drain outputs (1 = released), column pins inputs with
    pull-ups: a pressed key pulls its column low while its row is driven low.

    After a row is driven low the columns need `settle_us` to settle: the pull-up
    and the cable's capacitance make a released column rise slowly, and reading
    at once would ghost the previous row's key into this one (board.json's
    keypad.settle_us, computed from the RC by hardware/). `sleep_us` is the
    board's delay (time.sleep_us on the ESP32)."""

    def __init__(self, rows, cols, settle_us=0, sleep_us=None):
        self.rows = rows
        self.cols = cols
        self._ncols = len(cols)
        self._settle_us = settle_us if sleep_us is not None else 0
        self._sleep_us = sleep_us if sleep_us is not None else _no_wait
        for row in rows:
            row.value(1)

    def scan(self):
        """Bitmap of the keys down now."""
        bits = 0
        ncols = self._ncols
        cols = self.cols
        base = 0
        settle_us = self._settle_us
        for row in self.rows:
            row.value(0)
            if settle_us:
                self._sleep_us(settle_us)
            for c in range(ncols):
                if not cols[c].value():
                    bits |= 1 << (base + c)
            row.value(1)
            base += ncols
        return bits


class Buttons:
    """Buttons and the supervisor keyswitch: pins (None for an absent one) and
    whether each is active low. `read()` gives their bits from BUTTON_SHIFT."""

    def __init__(self, pins, active_low):
        self.pins = pins
        self.active_low = active_low

    def read(self):
        bits = 0
        pins = self.pins
        for i in range(len(pins)):
            pin = pins[i]
            if pin is not None and (pin.value() == 0) == self.active_low[i]:
                bits |= 1 << (BUTTON_SHIFT + i)
        return bits


class Debouncer:
    """Each input is debounced on its own: a change of one bit is accepted once
    that bit has read the same for `debounce_ms`, whatever the other bits do,
    so one chattering contact cannot freeze the rest.

    Keys struck together still arrive together: a change that is ready waits
    for a change of another bit that began less than `debounce_ms` after it,
    until that one is ready too. A chattering bit keeps restarting its own
    clock, so it holds the others back by one window at most.

    `update(raw, now_ms)` returns the bits newly down in the accepted state;
    `stable` is the accepted state and `changed` the bits that changed in this
    update (0 when nothing was accepted)."""

    def __init__(self, debounce_ms, inputs=32):
        self.debounce_ms = debounce_ms
        self.stable = 0
        self.changed = 0
        self._raw = 0
        self._since = [0] * inputs  # when each bit's raw reading last changed

    def hold(self, bits):
        """Take `bits` as already down and steady: they report no press until
        released and pressed again (a power-up gesture's keys)."""
        self.stable |= bits
        self._raw |= bits

    def update(self, raw, now_ms):
        since = self._since
        moved = raw ^ self._raw
        self._raw = raw
        while moved:
            low = moved & -moved
            since[lowest_bit(low)] = now_ms
            moved ^= low
        self.changed = 0
        pending = raw ^ self.stable
        if not pending:
            return 0
        window = self.debounce_ms
        ready = 0
        youngest_ready = -1  # age of the most recent change among the ready bits
        bits = pending
        while bits:
            low = bits & -bits
            age = ticks.diff(now_ms, since[lowest_bit(low)])
            if age >= window:
                ready |= low
                if youngest_ready < 0 or age < youngest_ready:
                    youngest_ready = age
            bits ^= low
        if not ready:
            return 0
        bits = pending ^ ready
        while bits:  # a change that began within a window after the ready ones: wait for it
            low = bits & -bits
            if youngest_ready - ticks.diff(now_ms, since[lowest_bit(low)]) < window:
                return 0
            bits ^= low
        self.changed = ready
        self.stable ^= ready
        return raw & ready
