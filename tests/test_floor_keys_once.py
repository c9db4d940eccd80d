"""A virtual board presses each fed key once, ever: `make floor` (python -m
host_tools floor up) with a start-up key script, live `floor keys`, a board
SIGKILLed and restarted by the supervisor, then the whole floor stopped and
started again. The recorder's rolls are exactly the keys fed, in order, at
every step: no record that nobody keyed. A key fed after each fault is the
observable bound: the feed is pressed in order, so a replay of earlier lines
would be recorded before it."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
from test_floor_make import host_tools, processes_naming, read_until

from bench.floor import localfloor as floor_rig
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)
TABLES = ("T1", "T2")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def floor_up(folder, *extra):
    up = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "up", "--dir", folder, "--tables", str(len(TABLES)), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    lines = []
    read_until(up, "%d tables up" % len(TABLES), lines)
    return up, lines


def stop(up, lines):
    up.send_signal(signal.SIGINT)
    out, err = up.communicate(timeout=60)
    lines += out.splitlines()
    assert up.returncode == 0, err
    assert lines[-1].endswith("make floor: stopped; nothing left running")


def rolls(folder, table):
    done = host_tools("floor", "events", "--dir", folder, "--table", table)
    if done.returncode == 2 and "no recorder database" in done.stderr:
        return []  # the floor is coming up: its recorder has not made its database yet
    assert done.returncode == 0, done.stderr
    return [json.loads(x)["dice"] for x in done.stdout.splitlines() if json.loads(x)["kind"] == "roll"]


def wait_rolls(folder, table, last, timeout=90):
    """The table's recorded rolls once `last` (the roll fed last) is among them."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = rolls(folder, table)
        if last in found:
            return found
        time.sleep(0.3)
    raise AssertionError("table %s never recorded %s: %s" % (table, last, rolls(folder, table)))


def keys(folder, table, script):
    done = host_tools("floor", "keys", "--dir", folder, "--table", table, script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "table %s: queued %s\n" % (table, script)


def key_roll(folder, table, script, tries=3):
    """Key one roll (`floor keys`) until the recorder holds it: a loaded machine's board can
    miss a press, then `*` drops the half roll and the roll is keyed again. The table's rolls."""
    for _ in range(tries):
        before = rolls(folder, table)
        keys(folder, table, script)
        end = time.monotonic() + 20
        while time.monotonic() < end and len(rolls(folder, table)) == len(before):
            time.sleep(0.2)
        after = rolls(folder, table)
        if len(after) > len(before):
            return after
        keys(folder, table, "*")
    raise AssertionError("table %s's board did not take the roll %s" % (table, script))


def board_pid(folder, table):
    image = os.path.join(folder, "boards", table + ".img")
    [pid] = [p for p in processes_naming(image) if _is_device(p)]
    return pid


def _is_device(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        argv = f.read().split(b"\0")
    return b"sim" in argv and b"device" in argv


@pytest.mark.timeout(420)
def test_each_fed_key_is_pressed_once_through_a_board_kill_and_a_new_floor(tmp_path, template):
    folder = str(tmp_path / "floor")
    floor_init.init(folder, len(TABLES), "main", broker.free_port(), broker.free_port())
    image, key_file, firmware_hash = template
    for t in TABLES:
        shutil.copy(image, os.path.join(folder, "boards", t + ".img"))
        shutil.copy(key_file, os.path.join(folder, "keys", t + ".key"))
        with open(os.path.join(folder, "boards", t + ".deployed"), "w") as f:
            f.write(firmware_hash + "\n")

    # A misspelt start-up script is refused before anything starts.
    bad = host_tools("floor", "up", "--dir", folder, "--tables", "2", "--keys", "3 4 nokey")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("host_tools floor: keys '3 4 nokey': ") and bad.stderr.count("\n") == 1
    assert processes_naming(folder) == []

    up, lines = floor_up(folder, "--keys", "3 4")
    try:
        assert wait_rolls(folder, "T1", [3, 4]) == [[3, 4]]  # the start-up script, once
        assert key_roll(folder, "T1", "2 2") == [[3, 4], [2, 2]]
        assert wait_rolls(folder, "T2", [3, 4]) == [[3, 4]]
        # Each record with its wall time, ISO 8601 with the zone, and whose it is: the board's once
        # its gateway has set its clock (a `time` record), the host's estimate before.
        done = host_tools("floor", "events", "--dir", folder, "--table", "T1")
        events = [json.loads(x) for x in done.stdout.splitlines()]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", e["time"]) for e in events)
        kinds = [(e["kind"], e["time_from"]) for e in events]
        set_at = [k for k, _ in kinds].index("time")
        assert {f for _, f in kinds[set_at:]} == {"board"}, kinds
        assert {f for k, f in kinds[:set_at] if k != "restart"} <= {"host estimate"}, kinds
        as_csv = host_tools("floor", "events", "--dir", folder, "--table", "T1", "--format", "csv").stdout
        assert as_csv.splitlines()[0].startswith("table,board,journal,seq,time,time_from,t,kind,")
        for args in (("events", "--table", "T9"), ("keys", "--table", "T9", "3 4")):
            unknown = host_tools("floor", args[0], "--dir", folder, *args[1:])
            assert (unknown.returncode, unknown.stdout) == (2, "")
            assert unknown.stderr == "host_tools floor: no table T9 on this floor (tables: T1, T2)\n"

        os.kill(board_pid(folder, "T1"), signal.SIGKILL)  # the board loses its power; the supervisor restarts it
        read_until(up, "board T1 ended (status -9): restarted", lines)
        assert key_roll(folder, "T1", "5 6") == [[3, 4], [2, 2], [5, 6]]
    finally:
        stop(up, lines)
    assert processes_naming(folder) == []

    up, lines = floor_up(folder)  # a whole new floor on the same directory, no start-up script
    try:
        assert key_roll(folder, "T1", "6 6") == [[3, 4], [2, 2], [5, 6], [6, 6]]
        assert key_roll(folder, "T2", "1 1") == [[3, 4], [1, 1]]
    finally:
        stop(up, lines)
    with open(os.path.join(folder, "logs", "board-T1.log")) as f:
        log = f.read()
    assert re.search(r"keys: \S+T1\.keys read from line [3-9]\d* on \(the lines before were taken already\)", log)
