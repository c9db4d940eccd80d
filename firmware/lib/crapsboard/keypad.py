# Inputs as a bitmap: the 4x4 membrane keypad (matrix scan) and the buttons,
# then a pure debouncer that turns raw bitmaps into press edges.
#
# Pins are passed in: anything with `.value()` / `.value(v)` (machine.Pin on the
# board, simulated pins in sim/simboard.py). Bit i of the bitmap is keypad key i
# (row * columns + col); the buttons follow from BUTTON_SHIFT in layout.BUTTONS
# order. Nothing here allocates per scan.
from micropython import const

from crapsboard import ticks

BUTTON_SHIFT = const(16)


def lowest_bit(x):
    """Index of the lowest set bit of x (x > 0)."""
    i = 0
    while not x & 1:
        x >>= 1
        i += 1
    return i


class Matrix:
    """Row pins are open-drain outputs (1 = released), column pins inputs with
    pull-ups: a pressed key pulls its column low while its row is driven low."""

    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols
        self._ncols = len(cols)
        for row in rows:
            row.value(1)

    def scan(self):
        """Bitmap of the keys down now."""
        bits = 0
        ncols = self._ncols
        cols = self.cols
        base = 0
        for row in self.rows:
            row.value(0)
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
    """A bitmap is accepted once it has read the same for `debounce_ms`.

    `update(raw, now_ms)` returns the bits newly down in the accepted state;
    `stable` is the accepted state and `changed` the bits that changed in this
    update. Keys that change together within the window change together in
    `stable`, so two keys struck at once arrive as one update with both bits."""

    def __init__(self, debounce_ms):
        self.debounce_ms = debounce_ms
        self.stable = 0
        self.changed = 0
        self._raw = 0
        self._since = 0

    def update(self, raw, now_ms):
        if raw != self._raw:
            self._raw = raw
            self._since = now_ms
            self.changed = 0
            return 0
        if raw == self.stable or ticks.diff(now_ms, self._since) < self.debounce_ms:
            self.changed = 0
            return 0
        self.changed = raw ^ self.stable
        self.stable = raw
        return raw & self.changed
