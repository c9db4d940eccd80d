"""firmware/main.py and crapsboard/board.py under the MicroPython VM, with
stand-in `machine` and `neopixel` modules: the real start-up path builds the
pins, strip and watchdog from board.json and runs the app's asyncio tasks."""

import os
import shutil
import subprocess

import pytest
from conftest import ROOT

from sim import runtime

FAKE_MACHINE = """
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
"""

FAKE_NEOPIXEL = """
LAST = None


class NeoPixel:
    def __init__(self, pin, n, bpp=3, timing=1):
        global LAST
        self.pin = pin
        self.buf = bytearray(n * bpp)
        self.writes = 0
        LAST = self

    def __setitem__(self, i, v):
        self.buf[3 * i] = v[1]
        self.buf[3 * i + 1] = v[0]
        self.buf[3 * i + 2] = v[2]

    def write(self):
        self.writes += 1
"""

FAKE_MICROPYTHON = """
# The unix port has no alloc_emergency_exception_buf (no hard interrupts).
import micropython as real

const = real.const
buffers = []


def alloc_emergency_exception_buf(size):
    buffers.append(size)
"""

RUNNER = """
import sys

import fake_micropython

sys.modules["micropython"] = fake_micropython

import machine
import neopixel

try:
    import main
except SystemExit:
    pass
P = machine.Pin.made
np = neopixel.LAST
print("emergency", fake_micropython.buffers[0])
print("wdt", machine.WDT.started, machine.WDT.feeds)
print("writes", np.writes)
print("status", " ".join([str(b) for b in np.buf[0:3]]))
print("rows", " ".join([str(P[p].mode) for p in (32, 33, 25, 26)]))
print("cols", " ".join([str(P[p].mode) + "/" + str(P[p].pull) for p in (16, 17, 18, 19)]))
print("strip", np.pin.id, len(np.buf))
"""


def boot(tmp_path, held=(), config=None):
    """Run main.py in a fresh 'flash' (tmp_path); the runner's report as a dict."""
    fakes = {"machine": FAKE_MACHINE, "neopixel": FAKE_NEOPIXEL, "fake_micropython": FAKE_MICROPYTHON, "runner": RUNNER}
    for name, text in fakes.items():
        (tmp_path / (name + ".py")).write_text(text)
    (tmp_path / "fake_setup.py").write_text("HELD = %r\n" % (tuple(held),))
    shutil.copy(os.path.join(ROOT, "firmware", "main.py"), tmp_path / "main.py")
    shutil.copy(os.path.join(ROOT, "hardware", "board.json"), tmp_path / "board.json")
    if config is not None:
        (tmp_path / "config.json").write_text(config)
    out = subprocess.run(
        runtime.micropython_command(str(tmp_path / "runner.py")),
        cwd=tmp_path,
        env=runtime.micropython_env([str(tmp_path)]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        report[key] = value
    return report


def test_main_builds_the_board_and_runs_the_app(tmp_path):
    report = boot(tmp_path)
    assert int(report["emergency"]) >= 100
    assert report["wdt"] == "1 3"  # started once, fed by the running tasks
    assert int(report["writes"]) >= 1
    assert report["status"] == "96 0 0"  # status lamp green (GRB), at the brightness cap
    assert report["rows"] == "7 7 7 7"  # open-drain
    assert report["cols"] == "1/2 1/2 1/2 1/2"  # inputs with pull-ups
    assert report["strip"] == "13 141"


def test_lamp_test_held_at_power_up_leaves_the_repl_alone(tmp_path):
    report = boot(tmp_path, held=[23])
    assert report["crapsboard:"].startswith("lamp test held")
    assert report["wdt"] == "0 0" and report["writes"] == "0"


@pytest.mark.parametrize("config", ['{"paytables": {"fire": "9"}}', "{not json"])
def test_a_bad_config_shows_a_fault_and_starts_no_watchdog(tmp_path, config):
    report = boot(tmp_path, config=config)
    assert report["crapsboard:"].startswith("config.json refused")
    assert report["wdt"] == "0 0"
    assert report["status"] == "0 64 0"  # steady red


def test_a_good_config_is_used(tmp_path):
    report = boot(tmp_path, config='{"offered": ["fire"]}')
    assert report["wdt"] == "1 3"
