"""`make floor PG=1 STANDBY=1` (`python -m bench.floor.pg_floor --standby`:
a PostgreSQL started for the floor, then `floor up --db URL --standby`, as
`make floor DB=postgresql://… STANDBY=1` runs on a real one): the shape of
two floor machines on one. The record in PostgreSQL (migrated by the
supervisor before anything starts) written by two recorders, two
progressive controllers sharing the lease and the ledger on the same
PostgreSQL: one holds the lease, the other waits. A roll is in PostgreSQL;
the holder SIGKILLed, the standby takes the lease, its self-check replays
the ledger the holder wrote, and the supervisor's restart of the dead one
waits as the new standby; Ctrl-C leaves nothing running, the PostgreSQL
included. `--standby` without a PostgreSQL, or PG=1 with a DB of its own,
is one line, exit 2."""

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
from bench.floor import pgserver
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from sim.paths import ROOT

pytestmark = [
    pytest.mark.skipif(not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it)"),
    pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or ""),
]
TAKEOVER_S = 10.0  # the standby holds the lease within this of the holder's death (the bench measures ~0.3 s)
CONTROLLER_LOGS = ("progressive.log", "progressive-standby.log")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def log(folder, name):
    path = os.path.join(folder, "logs", name)
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what()
        time.sleep(0.1)


def writing_to(path):
    """The PID of the process whose standard output is `path`."""
    for pid in processes_naming("floor"):
        try:
            if os.readlink("/proc/%d/fd/1" % pid) == path:
                return pid
        except OSError:
            pass
    return None


def test_standby_without_a_postgresql_is_one_line_and_exit_2(tmp_path):
    done = host_tools("floor", "up", "--dir", str(tmp_path / "floor"), "--tables", "1", "--standby")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--standby needs --db postgresql://" in done.stderr and "Traceback" not in done.stderr
    both = [sys.executable, "-m", "bench.floor.pg_floor", "--dir", str(tmp_path / "floor"), "--db", "x.sqlite"]
    done = subprocess.run(both, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "give DB=… or PG=1, not both" in done.stderr
    assert not os.path.exists(tmp_path / "floor" / "floor.json")  # nothing made, nothing started


@pytest.mark.timeout(300)
def test_two_recorders_and_a_standby_controller_on_one_postgresql(tmp_path, template):
    folder = str(tmp_path / "floor")
    floor = floor_init.init(folder, 1, "main", broker.free_port(), broker.free_port())
    image, key_file, firmware_hash = template
    for t in floor["tables"]:
        shutil.copy(image, os.path.join(folder, "boards", t + ".img"))
        shutil.copy(key_file, os.path.join(folder, "keys", t + ".key"))
        with open(os.path.join(folder, "boards", t + ".deployed"), "w") as f:
            f.write(firmware_hash + "\n")
    up = subprocess.Popen(
        [sys.executable, "-m", "bench.floor.pg_floor", "--dir", folder, "--tables", "1", "--standby"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # Ctrl-C below goes to the whole group, as a terminal's does
    )
    lines = []
    try:
        url = read_until(up, "make floor PG=1: PostgreSQL on", lines).split(" on ", 1)[1].split()[0]
        read_until(up, "1 tables up", lines)
        assert any("the record in %s by two recorders" % url in line for line in lines), lines
        for name in ("recorder.log", "recorder-b.log"):
            wait(lambda n=name: "connected to the broker" in log(folder, n), 60, lambda n=name: log(folder, n))

        def holders():
            return [n for n in CONTROLLER_LOGS if "took the lease" in log(folder, n)]

        def one_holder_one_standby():
            return len(holders()) == 1 and all(
                "standby" in log(folder, n) for n in CONTROLLER_LOGS if n not in holders()
            )

        wait(one_holder_one_standby, 60, lambda: [log(folder, n) for n in CONTROLLER_LOGS])
        holder = holders()[0]
        standby = [n for n in CONTROLLER_LOGS if n != holder][0]

        assert host_tools("floor", "keys", "--dir", folder, "--table", "T1", "3 4").returncode == 0
        rolls = []
        end = time.monotonic() + 60
        while not rolls and time.monotonic() < end:
            done = host_tools("floor", "events", "--dir", folder, "--table", "T1", "--db", url)
            rolls = [json.loads(x)["dice"] for x in done.stdout.splitlines() if '"roll"' in x]
            time.sleep(0.5)
        assert rolls == [[3, 4]]  # from T1's board into PostgreSQL, stored once by the two recorders

        pid = writing_to(os.path.join(folder, "logs", holder))
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait(lambda: "took the lease" in log(folder, standby), TAKEOVER_S, lambda: log(folder, standby))
        # the ledger is on the same PostgreSQL: the standby opens the one the holder wrote
        wait(lambda: "self-check:" in log(folder, standby), 30, lambda: log(folder, standby))
        checked = re.search(r"ledger replay matches \((\d+) log rows\)", log(folder, standby))
        assert checked and int(checked.group(1)) >= 2, log(folder, standby)  # at least the holder's parameters
        assert not os.path.exists(os.path.join(folder, "progressive.sqlite"))

        def back_as_standby():  # the supervisor starts the dead one again: it waits, the lease being the other's
            return "standby" in log(folder, holder) and "restarted" in log(folder, "supervisor.log")

        wait(back_as_standby, 60, lambda: log(folder, holder))
        assert log(folder, holder).count("took the lease") == 1  # never two writers
    finally:
        os.killpg(up.pid, signal.SIGINT)
        out, err = up.communicate(timeout=90)
    lines += out.splitlines()
    assert up.returncode == 0, err
    assert lines[-1].endswith("make floor: stopped; nothing left running")
    assert processes_naming(folder) == []
    done = host_tools("floor", "events", "--dir", folder, "--table", "T1", "--db", url)
    assert done.returncode == 2 and "cannot reach the database" in done.stderr  # the PostgreSQL went with it
