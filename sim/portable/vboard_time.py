# The ESP32's `time` on the virtual board (`python -m sim device`): the unix
# port's own, except that the tick counters start at the chip's reset, as the
# ESP32's do. The unix port counts from the host's start, so the firmware's
# uptime (hello's `uptime_ms`) was the host's. vboard.py installs this as
# sys.modules["time"] before anything of the board imports time; the offset
# (ms since the last power-on or hard reset: a soft reboot does not restart
# the counter) comes from the CPython side. Nothing here allocates.
import time as _unix
from time import *  # noqa: F403  (everything else is the unix port's)

_MASK = (1 << 30) - 1  # ticks wrap at 2**30, as MicroPython's ticks do on every port
_ms_at_reset = [0]
_us_at_reset = [0]


def setup(uptime_ms):
    """The chip has run `uptime_ms` before this VM started (0 after a reset)."""
    _ms_at_reset[0] = (_unix.ticks_ms() - uptime_ms) & _MASK
    _us_at_reset[0] = (_unix.ticks_us() - uptime_ms * 1000) & _MASK


def ticks_ms():
    return (_unix.ticks_ms() - _ms_at_reset[0]) & _MASK


def ticks_us():
    return (_unix.ticks_us() - _us_at_reset[0]) & _MASK
