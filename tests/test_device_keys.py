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
