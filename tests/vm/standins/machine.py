# Stand-in for the ESP32 `machine` module: pins read from fake_setup.HELD
# (written by the test), a watchdog that ends the run after its third feed
# (fake_setup.FEEDS, if set), and reset() that ends the run too, counted.
# fake_setup.KEYS, if set, presses keypad keys once the watchdog starts (the
# app is running): (row pin, column pin, from ms, to ms) each, in order; a
# column reads low while one of its keys is down and that key's row is driven
# low. A press begins at the first read at or after its `from` (and after the
# previous press ended) and lasts `to - from` from then, so a VM the machine
# left waiting (a loaded CI host) still sees every press whole.
import sys
import time

import fake_setup

KEYS = getattr(fake_setup, "KEYS", ())
FEEDS = getattr(fake_setup, "FEEDS", 3)
_started_ms = [None]
_press = [0, None, 0]  # the key pressed or next, when its press began, when the last one ended


def _key_down(row, col):
    t0 = _started_ms[0]
    if t0 is None:
        return False
    t = time.ticks_diff(time.ticks_ms(), t0)
    while _press[0] < len(KEYS):
        key = KEYS[_press[0]]
        began = _press[1]
        if began is None:
            if t < key[2] or t < _press[2] + key[2] - (KEYS[_press[0] - 1][3] if _press[0] else 0):
                return False
            began = _press[1] = t
        if t < began + key[3] - key[2]:
            return key[0] == row and key[1] == col
        _press[0] += 1
        _press[1] = None
        _press[2] = began + key[3] - key[2]
    return False


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 2
    PULL_DOWN = 1
    made = {}

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 1 if value is None else value
        Pin.made[id] = self

    def value(self, v=None):
        if v is None:
            if self.id in fake_setup.HELD:
                return 0
            if self.mode == Pin.IN and KEYS:
                for row, pin in Pin.made.items():
                    if pin.mode == Pin.OPEN_DRAIN and pin.level == 0 and _key_down(row, self.id):
                        return 0
            return self.level
        self.level = v


class WDT:
    started = 0
    feeds = 0

    def __init__(self, timeout=5000):
        WDT.started += 1
        WDT.timeout = timeout
        _started_ms[0] = time.ticks_ms()

    def feed(self):
        WDT.feeds += 1
        if WDT.feeds == FEEDS:
            sys.exit(0)


RESETS = []
PWRON_RESET = 1


def unique_id():
    return b"\x24\x0a\xc4\x00\x00\x01"


def reset_cause():
    return fake_setup.RESET_CAUSE


def reset():
    RESETS.append(time.ticks_ms())  # when: boot_report's held_ms
    sys.exit(0)
