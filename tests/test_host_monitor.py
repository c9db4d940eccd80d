"""`host_tools monitor` for people: it says it is listening and to which
board, and shows each event as the terminal simulator's event pane does (the
roll, the point, the seven-out, what resolved), following the table with the
firmware's engine from the journal. The virtual board (real VM, real
firmware, real mpremote and pyserial), its keys fed live."""

import subprocess
import sys
import time

from pty_link import PtyLink
from test_host_device import BOARD, Device, hello
from test_host_link import board

from host_tools import deploy
from sim.paths import ROOT


def test_monitor_shows_what_each_roll_did_on_a_live_table(tmp_path, monkeypatch):
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(tmp_path / "board-keys"))  # deploy's key: kept here, not in ~
    feed = tmp_path / "key-feed"
    feed.write_text("")
    device = Device(tmp_path / "flash.img", "--key-feed", str(feed))
    try:
        deploy.deploy(device.port, quiet=True)
        before = hello(device.port)["journal"]["seq"]
        with open(feed, "a") as f:
            f.write("3 4\n")  # before the monitor: the copy of the table must start from it
        deadline = time.monotonic() + 30
        while hello(device.port)["journal"]["seq"] == before:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "monitor", "--port", device.port, "--count", "3", "--seconds", "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        first = proc.stdout.readline()  # said before any event: it listens
        with open(feed, "a") as f:
            f.write("4 4 6 6 3 4\n")  # point 8, a 12, seven-out
        out, err = proc.communicate(timeout=60)
    finally:
        device.stop()
    assert proc.returncode == 0, err
    assert first.startswith("listening to board %s on %s (journal 1, record " % (BOARD, device.port))
    assert first.rstrip().endswith("table: shooter 1, point OFF, roll 1. Ctrl-C to stop.")
    said = [line[9:] for line in out.splitlines()]  # after the HH:MM:SS stamp
    rolls = [line.split(" ", 2)[2] for line in said if " roll " in line]
    assert rolls == ["roll 4-4 = 8, point 8", "roll 6-6 = 12, point 8", "roll 3-4 = 7, point OFF"]
    assert "  PUSH FiredUp 1: 1 for 1, the stake back" in said  # 4-4 then 6-6: one matching roll
    assert "  seven-out: shooter 2 comes out" in said
    # No point made (Fire 0); 8 and 12 marked for Tall, All and MEA (the 7 before the monitor started counts none).
    assert said[-1] == "  lost: Fire 0, Small 0, Tall 2, All 2, MEA 2, FiredUp 0"


def test_a_board_without_a_journal_is_monitored_as_recorded():
    pushed = b'{"event": "roll", "dice": [1, 2], "seq": 9}\n{"event": "end_hand", "seq": 10}\n'
    with PtyLink(board(subscribe=lambda request: {"on": request["on"]}), before_reply=pushed) as pty:
        result = subprocess.run(
            [sys.executable, "-m", "host_tools", "monitor", "--port", pty.port, "--count", "2"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("listening to board a1b2c3d4e5f6 on %s" % pty.port)
    assert "cannot follow the table" in lines[0]
    assert [line[9:] for line in lines[1:]] == ["roll dice=[1, 2] seq=9", "end_hand seq=10"]
