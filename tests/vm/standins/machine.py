# Stand-in for the ESP32 `machine` module: pins read from fake_setup.HELD
# (written by the test), a watchdog that ends the run after its third feed,
# and reset() that ends the run too, counted.
import sys

import fake_setup


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
            return 0 if self.id in fake_setup.HELD else self.level
        self.level = v


class WDT:
    started = 0
    feeds = 0

    def __init__(self, timeout=5000):
        WDT.started += 1
        WDT.timeout = timeout

    def feed(self):
        WDT.feeds += 1
        if WDT.feeds == 3:
            sys.exit(0)


RESETS = []
PWRON_RESET = 1


def unique_id():
    return b"\x24\x0a\xc4\x00\x00\x01"


def reset_cause():
    return fake_setup.RESET_CAUSE


def reset():
    RESETS.append(1)
    sys.exit(0)
