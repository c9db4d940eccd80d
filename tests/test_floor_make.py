"""`make floor` (python -m host_tools floor up): the whole floor on this
machine, supervised. A table driven live (`floor keys`) reaches the recorder
(`floor events`) and `floor status`; a gateway that dies is restarted and the
restart logged; Ctrl-C leaves no process behind. The board is a copy of the
session's deployed template with its deploy stamp, so `up` does not deploy
again (it would, ~8 s a board, for a new or changed firmware)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from bench.floor import localfloor as floor_rig
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def processes_naming(text):
    """PIDs of the processes whose command line holds `text`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def gateways(folder):
    found = []
    for p in processes_naming(folder):
        try:
            with open("/proc/%d/cmdline" % p, "rb") as f:
                if b"gateway" in f.read():
                    found.append(p)
        except OSError:
            pass
    return found


def host_tools(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def floor_logs(folder, last=15):
    """The last lines of each of the floor's logs: what a failure shows."""
    out = {}
    logs = os.path.join(folder, "logs")
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        with open(os.path.join(logs, name), errors="replace") as f:
            out[name] = f.read().splitlines()[-last:]
    return out


def read_until(proc, text, lines, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if text in line:
            return lines[-1]
    raise AssertionError("no %r in make floor's output: %s" % (text, lines))


@pytest.mark.timeout(300)
def test_a_floor_runs_supervised_and_stops_leaving_nothing(tmp_path, template):
    folder = str(tmp_path / "floor")
    floor_init.init(folder, 1, "main", broker.free_port(), broker.free_port())
    image, key_file, firmware_hash = template
    shutil.copy(image, os.path.join(folder, "boards", "T1.img"))
    shutil.copy(key_file, os.path.join(folder, "keys", "T1.key"))
    with open(os.path.join(folder, "boards", "T1.deployed"), "w") as f:
        f.write(firmware_hash + "\n")
    up = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "up", "--dir", folder, "--tables", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    lines = []
    try:
        read_until(up, "1 tables up", lines)
        assert not any("deployed" in line for line in lines)  # the stamp matched the firmware
        result = host_tools("floor", "keys", "--dir", folder, "--table", "T1", "3 4 2 2")
        assert result.returncode == 0, result.stderr
        rolls = []
        end = time.monotonic() + 150  # two rolls through the VM board, gateway and recorder, on a loaded machine
        while len(rolls) < 2 and time.monotonic() < end:
            result = host_tools("floor", "events", "--dir", folder, "--table", "T1")
            rolls = [json.loads(x)["dice"] for x in result.stdout.splitlines() if '"roll"' in x]
            time.sleep(0.5)
        assert rolls == [[3, 4], [2, 2]], (result.stderr, floor_logs(folder))
        for x in result.stdout.splitlines():
            assert {"table", "seq", "kind"} <= set(json.loads(x))
        status = json.loads(host_tools("floor", "status", "--dir", folder, "--json").stdout)
        assert [(r["table"], r["presence"]) for r in status] == [("T1", "online")]

        [gateway] = gateways(folder)
        os.kill(gateway, signal.SIGKILL)
        line = read_until(up, "restarted", lines)
        assert line.endswith("make floor: gateway T1 ended (status -9): restarted (restart 1)")
        with open(os.path.join(folder, "logs", "supervisor.log")) as f:
            assert line in f.read().splitlines()
        end = time.monotonic() + 30
        while not [p for p in gateways(folder) if p != gateway] and time.monotonic() < end:
            time.sleep(0.2)
        assert [p for p in gateways(folder) if p != gateway]  # a new gateway process serves the table
    finally:
        up.send_signal(signal.SIGINT)
        out, err = up.communicate(timeout=60)
    lines += out.splitlines()
    assert up.returncode == 0, err
    assert lines[-1].endswith("make floor: stopped; nothing left running")
    assert processes_naming(folder) == []


def _read_pty(master, until=None, timeout=120):
    """What the terminal shows, up to `until` (or the end: the other side closed)."""
    import select

    seen = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every process on the terminal has gone
            return seen.decode("utf-8", "replace")
        if not data:
            return seen.decode("utf-8", "replace")
        seen += data
        if until is not None and until.encode() in seen:
            return seen.decode("utf-8", "replace")
    raise AssertionError("the terminal showed %r" % seen[-2000:])


@pytest.mark.timeout(300)
def test_make_floor_stopped_by_ctrl_c_at_its_terminal_exits_0_with_its_own_last_line(tmp_path, template):
    # `make floor` in a terminal of its own (a pseudo-terminal); Ctrl-C typed there.
    import pty

    folder = str(tmp_path / "floor")
    floor_init.init(folder, 1, "main", broker.free_port(), broker.free_port())
    image, key_file, firmware_hash = template
    shutil.copy(image, os.path.join(folder, "boards", "T1.img"))
    shutil.copy(key_file, os.path.join(folder, "keys", "T1.key"))
    with open(os.path.join(folder, "boards", "T1.deployed"), "w") as f:
        f.write(firmware_hash + "\n")
    env = dict(os.environ, CRAPSFLOOR_DIR=folder)
    pid, master = pty.fork()
    if pid == 0:  # the terminal's session: make in its foreground (venv taken as made: not rebuilt here)
        try:
            os.chdir(ROOT)
            os.execvpe("make", ["make", "-s", "-o", "venv", "floor", "TABLES=1"], env)
        finally:
            os._exit(127)
    try:
        shown = _read_pty(master, "1 tables up")
        os.write(master, b"\x03")  # Ctrl-C at the terminal
        shown += _read_pty(master)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(master)
    lines = [line for line in shown.replace("\r", "").splitlines() if line.strip()]
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (status, lines[-5:])
    assert lines[-1].endswith("make floor: stopped; nothing left running"), lines[-5:]
    assert not any("Interrupt" in line for line in lines)
    assert processes_naming(folder) == []
