"""The virtual board's keys (`python -m sim device --keys/--key-feed`): the
dealer's hands live on the CPython side (sim/keyfeed.py) and reach the board
through its machine.Pin stand-in, as a live feed appended to while the board
runs. The board is the real MicroPython VM on a pseudo-terminal."""

import json
import os

import pytest
from test_device import Device, image_with, open_port, read_until

from crapsboard.table import layout as lay
from sim.paths import BOARD_JSON


def watcher(ms=20000):
    """A main.py that prints every press of keypad key 1 and of the UNDO button
    (wired as hardware/board.json says), and stops at the first UNDO."""
    with open(BOARD_JSON, encoding="utf-8") as f:
        layout = lay.Layout(json.load(f))
    index = layout.key_index("1")
    row, col = layout.rows[index // len(layout.cols)], layout.cols[index % len(layout.cols)]
    undo = layout.button_pins[lay.BUTTONS.index("undo")]
    low = 1 if layout.button_active_low[lay.BUTTONS.index("undo")] else 0
    return (
        """import machine, time
row = machine.Pin(%d, machine.Pin.OPEN_DRAIN, value=0)
col = machine.Pin(%d, machine.Pin.IN, machine.Pin.PULL_UP)
undo = machine.Pin(%d, machine.Pin.IN, machine.Pin.PULL_UP)
dog = machine.WDT(timeout=8000)
keys = 0
was_key, was_undo = 1, 1 - %d
t0 = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), t0) < %d:
    dog.feed()
    k = col.value()
    u = undo.value() == 1 - %d
    if k == 0 and was_key == 1:
        keys += 1
        print('press key', keys)
    if u and not was_undo:
        print('undo after', keys, 'keys')
        break
    was_key, was_undo = k, u
    time.sleep_ms(5)
"""
        % (row, col, undo, low, ms, low)
    ).encode()


@pytest.fixture
def started(tmp_path):
    devices = []

    def start(*args):
        flash = tmp_path / "flash.img"
        image_with(flash, {"main.py": watcher()})
        dev = Device(flash, *args)
        devices.append(dev)
        return dev

    yield start
    for dev in devices:
        dev.stop()


def test_a_key_feed_presses_lines_as_they_are_appended(started, tmp_path):
    feed = tmp_path / "keys.txt"  # not there yet: nothing to press
    dev = started("--key-feed", str(feed))
    dev.wait_line(r"^sim device: keys: started$")
    with open_port(dev.port) as port:  # what main.py printed before is dropped: only presses from here
        with open(feed, "a") as f:
            f.write("1\n")
        assert read_until(port, b"\n").strip() == b"press key 1"
        with open(feed, "a") as f:
            f.write("nokey 1\n")  # a bad line: nothing of it pressed, the feed goes on
        dev.wait_line(r"^sim device: keys: .*keys\.txt line 2: token 'nokey': .*nothing of it pressed$")
        with open(feed, "a") as f:
            f.write("btn:undo")  # half a line: not pressed until it ends
            f.flush()
            port.timeout = 0.5
            assert port.read(100) == b""
            port.timeout = 0.1
            f.write("\n")
        assert read_until(port, b"\n").strip() == b"undo after 1 keys"


def test_keys_then_a_feed_play_in_order(started, tmp_path):
    feed = tmp_path / "keys.txt"
    feed.write_text("btn:undo\n")  # already there: pressed after the script
    dev = started("--keys", "wait:1500 1 1", "--key-feed", str(feed))
    dev.wait_line(r"^sim device: keys: started$")
    with open_port(dev.port) as port:  # opened within the first wait
        out = read_until(port, b" keys\n")
    assert out.endswith(b"press key 1\npress key 2\nundo after 2 keys\n")


def test_a_key_feed_that_is_a_directory_is_refused(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-m", "sim", "device", "--flash", str(tmp_path / "f.img"), "--key-feed", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "sim device: --key-feed %s is a directory\n" % tmp_path
    assert not os.path.exists(tmp_path / "f.img")


def test_a_feed_line_is_logged_pressed_once_its_last_key_is_released(tmp_path):
    """A rig that must know a line has been played (a count the board refuses
    leaves nothing else to see) waits for this log line, not for time to pass."""
    from sim import keyfeed

    with open(BOARD_JSON, encoding="utf-8") as f:
        layout = lay.Layout(json.load(f))
    feed = tmp_path / "keys.txt"
    feed.write_text("1 1\n2\n")
    now = [0.0]
    said = []  # (when, line)
    hands = keyfeed.Hands(
        layout, feed_path=str(feed), log=lambda line: said.append((now[0], line)), clock=lambda: now[0]
    )
    hands.start(0.0)
    releases = []
    while now[0] < 5.0 and len(said) < 2:
        if hands.advance(now[0]) and hands.held == hands.base:
            releases.append(now[0])
        now[0] = round(now[0] + 0.001, 3)
    assert [line for _, line in said] == ["keys: %s line 1 pressed" % feed, "keys: %s line 2 pressed" % feed]
    assert len(releases) == 3  # 1, 1, then 2
    (line1, _), (line2, _) = said
    assert releases[1] < line1 < releases[2] < line2  # each after its line's last release, before the next line's


def test_presses_whose_times_passed_while_the_device_was_held_up_are_each_sent(tmp_path):
    """The device's own process held up (a loaded machine) past three presses and
    their releases: all six changes go to the VM in order, one word each, not
    only the last state (which is the idle one: the presses would be lost)."""
    from sim import keyfeed

    with open(BOARD_JSON, encoding="utf-8") as f:
        layout = lay.Layout(json.load(f))
    hands = keyfeed.Hands(layout, steps=keyfeed.script_steps("1 2 1", layout))
    hands.start(0.0)
    assert hands.advance(10.0) is True  # every press and release is long past
    words = [keyfeed.WORD.unpack_from(hands.unsent, at) for at in range(0, len(hands.unsent), keyfeed.WORD.size)]
    key1 = hands.base | 1 << layout.key_index("1")
    key2 = hands.base | 1 << layout.key_index("2")
    # Each with the ms after the change before, as the dealer made it (keys.md: 80 ms down, 120 ms up).
    assert words == [(key1, 0), (hands.base, 80), (key2, 120), (hands.base, 80), (key1, 120), (hands.base, 80)]
    assert hands.held == hands.base
    assert hands.advance(11.0) is False  # nothing new: nothing more to send


def test_presses_made_while_the_vm_was_held_up_are_each_seen(started, tmp_path):
    """A VM held up (here SIGSTOP, as a loaded machine does for longer than a
    press) gets the changes it missed one at a time, each held long enough
    for the keypad's debounce (sim/portable/vboard_machine.py), not only the
    last: three presses made meanwhile are three presses."""
    import signal
    import subprocess

    feed = tmp_path / "keys.txt"
    dev = started("--key-feed", str(feed))
    dev.wait_line(r"^sim device: keys: started$")
    vm = int(subprocess.run(["pgrep", "-P", str(dev.proc.pid)], capture_output=True, text=True).stdout.split()[0])
    with open_port(dev.port) as port:
        os.kill(vm, signal.SIGSTOP)
        try:
            with open(feed, "a") as f:
                f.write("1 1 1\n")
            dev.wait_line(r"^sim device: keys: .*keys\.txt line 1 pressed$")  # all three made and released
        finally:
            os.kill(vm, signal.SIGCONT)
        got = [read_until(port, b"\n").strip() for _ in range(3)]
    assert got == [b"press key 1", b"press key 2", b"press key 3"]


class _Clock:
    """time.ticks_* for vboard_machine under CPython: a VM clock the test moves."""

    def __init__(self):
        self.ms = 1000

    def ticks_ms(self):
        return self.ms

    def ticks_diff(self, a, b):
        return a - b


class _Pipe:
    """The key pipe's reading end: what the CPython side wrote and the VM has not read."""

    def __init__(self):
        self.data = bytearray()

    def readinto(self, buf):
        n = min(len(buf), len(self.data))
        if not n:
            return None
        buf[:n] = self.data[:n]
        del self.data[:n]
        return n


@pytest.fixture
def vm_keys():
    """sim/portable/vboard_machine.py's key reading, on a clock and pipe the test drives."""
    import importlib.util

    from sim import keyfeed
    from sim.paths import ROOT

    path = os.path.join(ROOT, "sim", "portable", "vboard_machine.py")
    spec = importlib.util.spec_from_file_location("vboard_machine_under_test", path)
    machine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(machine)
    clock, pipe = _Clock(), _Pipe()
    machine.time = clock
    machine._keys_in[0] = pipe

    def write(held, after_ms):
        pipe.data += keyfeed.WORD.pack(held, after_ms)

    def look_at(ms):
        clock.ms = ms
        return machine._held()

    return write, look_at


def changes(look_at, start, end, every=1):
    """[(ms, held)] at each change the VM's looks saw, looking every `every` ms of [start, end)."""
    found, before = [], None
    for ms in range(start, end, every):
        held = look_at(ms)
        if held != before:
            found.append((ms, held))
        before = held
    return found


def test_a_press_whose_release_came_while_the_vm_was_held_up_is_still_seen(vm_keys):
    """The press is shown at once; the VM is then held up past its release: the
    first look after the stall shows the press once more (at an age the keypad's
    30 ms debounce takes), and the release comes 5 ms later, so the press counts."""
    write, look_at = vm_keys
    write(0, 0)
    assert changes(look_at, 1000, 2000, every=10) == [(1000, 0)]  # idle, the keypad scanned every 10 ms
    write(1, 3000)
    assert look_at(2000) == 1  # as it comes
    write(0, 80)  # released 80 ms later, but the VM looks again only 200 ms later
    assert changes(look_at, 2200, 2300) == [(2200, 1), (2205, 0)]  # shown once more, for the rest of that scan


def test_presses_that_reach_a_held_up_vm_together_are_each_held_50_ms(vm_keys):
    write, look_at = vm_keys
    write(0, 0)
    changes(look_at, 1000, 2000, every=10)
    for _ in range(2):
        write(1, 120)
        write(0, 80)
    # A look every ms from the end of the stall: each word is shown 50 ms, then 5 ms more.
    assert changes(look_at, 2000, 2300) == [(2000, 1), (2055, 0), (2110, 1), (2165, 0)]


def test_a_contact_bounce_that_reaches_a_held_up_vm_stays_short(vm_keys):
    """A change the dealer made sooner than 50 ms after the one before is applied
    as it comes: a bounce of 20 ms is not stretched into a press."""
    write, look_at = vm_keys
    write(0, 0)
    changes(look_at, 1000, 2000, every=10)
    write(1, 500)
    write(0, 20)
    assert changes(look_at, 2000, 2100) == [(2000, 1), (2001, 0)]


def test_a_vm_that_keeps_up_gets_each_change_as_it_comes(vm_keys):
    write, look_at = vm_keys
    write(0, 0)
    changes(look_at, 1000, 2000, every=10)
    write(1, 1000)
    assert look_at(2000) == 1
    assert changes(look_at, 2001, 2080) == [(2001, 1)]
    write(0, 80)
    assert look_at(2080) == 0  # 80 ms down, as the dealer held it
