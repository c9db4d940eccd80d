# Millisecond tick arithmetic shared by the pure modules (keypad, entry, lamps, app).
#
# Time always comes in as `now_ms`. On the board that is time.ticks_ms(), which
# wraps at 2**30, so intervals are measured with `diff`, the same arithmetic as
# time.ticks_diff; the simulator's clock wraps the same way.
from micropython import const

PERIOD = const(0x40000000)  # 2**30, MicroPython's TICKS_PERIOD
MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)


def diff(new, old):
    """Signed milliseconds from `old` to `new` (like time.ticks_diff)."""
    return ((new - old + _HALF) & MASK) - _HALF


def add(ticks, delta):
    """`ticks` moved on by `delta` milliseconds, wrapped (like time.ticks_add)."""
    return (ticks + delta) & MASK
