"""host_tools end to end against the virtual board (`python -m sim device`):
real pyserial, real mpremote, the firmware as deploy puts it on the board's
flash, run by the MicroPython VM."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from host_tools import HostToolError, deploy, journal_log, keys, sync
from host_tools.link import BoardLink
from host_tools.repl import Repl
from sim import devlayout
from sim.device import new_image
from sim.paths import ROOT

BOARD = "240ac40000b1"  # the id of the chips these tests make (sim device gives a new image its own)


class Device:
    """`python -m sim device --flash FILE` as a process; `port` is its pty."""

    def __init__(self, flash, *options):
        if not os.path.exists(flash):
            new_image(str(flash), BOARD)  # a new chip whose id the tests know
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sim", "device", "--flash", str(flash), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        line = self.proc.stdout.readline()
        assert re.fullmatch(r"/dev/pts/\d+\n", line), line + self.proc.stderr.read()
        self.port = line.strip()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture
def key_dir(tmp_path, monkeypatch):
    folder = tmp_path / "keys"
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(folder))
    return folder


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """(flash image, key store, deploy summary) of one board deployed once for
    the tests that start from a board in play; each plays a copy (deployed_copy)."""
    folder = tmp_path_factory.mktemp("deployed")
    store = folder / "keys"
    before = os.environ.get("CRAPSBOARD_KEYS")
    os.environ["CRAPSBOARD_KEYS"] = str(store)
    device = Device(folder / "flash.img")
    try:
        summary = deploy.deploy(device.port, quiet=True)
    finally:
        device.stop()
        os.environ["CRAPSBOARD_KEYS"] = before if before is not None else ""
        if before is None:
            del os.environ["CRAPSBOARD_KEYS"]
    return folder / "flash.img", store, summary


def deployed_copy(deployed, tmp_path, key_dir):
    """The deployed board's flash in tmp_path and its key and deploy record in
    key_dir, as the host that deployed it keeps them; returns (flash, summary)."""
    image, store, summary = deployed
    flash = tmp_path / "flash.img"
    shutil.copyfile(image, flash)
    shutil.copytree(store, key_dir)
    return flash, summary


def host_tools(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args], capture_output=True, text=True, cwd=ROOT, timeout=180
    )


def maintenance_repl(port):
    """The REPL of a board in play with its key: shut, so it is asked over the
    link (signed, the key deploy kept) to reboot into maintenance first."""
    with BoardLink(port) as link:
        link.signed("maintenance", keys.find_key(None, BOARD))
    return Repl(port, wait=20.0)


def until(run, done, timeout=30.0):
    """`run()` again until `done(result)` (the board booted to the state the test needs) or the
    timeout; the last result either way, for the test's assertions."""
    end = time.monotonic() + timeout
    result = run()
    while not done(result) and time.monotonic() < end:
        time.sleep(0.2)
        result = run()
    return result


def hello(port, wait=20.0):
    end = time.monotonic() + wait
    while True:
        try:
            with BoardLink(port, timeout=1.0) as link:
                return link.hello()
        except HostToolError:
            if time.monotonic() > end:
                raise
            time.sleep(0.5)


def test_deploy_onto_a_fresh_board_then_status_config_and_replay(tmp_path, key_dir):
    device = Device(tmp_path / "flash.img")
    try:
        result = host_tools("deploy", "--port", device.port, "--json")
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["board"] == BOARD
        assert summary["micropython"].startswith("virtual board (python -m sim device), MicroPython 1.29.0")
        key_file = key_dir / (BOARD + ".key")
        assert summary["key"] == str(key_file) + " (new)"
        assert os.stat(key_file).st_mode & 0o777 == 0o600
        copied = set(summary["copied"])
        assert {"main.py", "boot.py", "layout.json", "link_key", "lib/crapsboard/table/app.mpy"} <= copied
        assert summary["unchanged"] == 0 and summary["removed"] == []
        board_hello = summary["hello"]
        assert board_hello["firmware_hash"] == summary["hash"] and board_hello["board"] == BOARD

        status = host_tools("status", "--port", device.port, "--json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["status"]["status"] == "ready"

        again = host_tools("deploy", "--port", device.port, "--json")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["copied"] == [] and json.loads(again.stdout)["hash"] == summary["hash"]

        # config: diff, a signed set, diff again; a replay and a wrong key change nothing
        got = host_tools("config", "get", "--port", device.port, "--json")
        config = json.loads(got.stdout)
        assert config["rebet_after_win"] is True
        path = tmp_path / "config.json"  # a partial file, as config.json may be: the rest are defaults
        path.write_text(json.dumps({"rebet_after_win": False}))
        diff = host_tools("config", "diff", str(path), "--port", device.port)
        assert diff.returncode == 1 and diff.stdout == "rebet_after_win: board true, file false\n"
        applied = host_tools("config", "set", str(path), "--port", device.port, "--json", "--yes")
        assert applied.returncode == 0, applied.stderr
        assert host_tools("config", "diff", str(path), "--port", device.port).returncode == 0

        wrong = tmp_path / "wrong.key"
        wrong.write_text(bytes(32).hex())
        wrong.chmod(0o600)
        back = tmp_path / "back.json"
        back.write_text(json.dumps({"rebet_after_win": True}))
        refused = host_tools("config", "set", str(back), "--port", device.port, "--key", str(wrong), "--yes")
        assert refused.returncode == 1 and refused.stderr == "host_tools config: board refused config_set: bad tag\n"

        key = keys.read_key(str(key_file))
        with BoardLink(device.port) as link:
            link.signed("config_set", key, config=config)  # back to rebet true
            sent = [line for line in link.sent if b'"config_set"' in line][-1]
            ctr = link.hello()["ctr"]
            with pytest.raises(HostToolError, match="replayed or old counter: last accepted is %d" % ctr):
                link._send(json.loads(sent), None)
            assert link.request("config_get")["config"]["rebet_after_win"] is True
            assert link.hello()["ctr"] == ctr
        log = host_tools("log", "--port", device.port)
        kinds = [json.loads(line)["kind"] for line in log.stdout.splitlines()]
        assert kinds.count("config") == 2  # the two accepted sets are journaled, the refused ones not

        ports = host_tools("ports", "--port", device.port, "--json")
        assert ports.returncode == 0, ports.stderr
        mine = [p for p in json.loads(ports.stdout) if p["port"] == device.port]
        assert mine[0]["hello"]["board"] == BOARD and mine[0]["hello"]["firmware_hash"] == summary["hash"]

        before = int(time.time())
        stamped = host_tools("time", "--port", device.port, "--json")
        assert stamped.returncode == 0, stamped.stderr
        assert before <= json.loads(stamped.stdout)["unix"] <= int(time.time())
        assert before <= hello(device.port)["unix"] <= int(time.time()) + 1

        walk = host_tools("selftest", "--port", device.port, "--json")
        assert walk.returncode == 0, walk.stderr

        # maintenance: the app stops (no link), the REPL is free; reset returns to play
        assert host_tools("maintenance", "--port", device.port).returncode == 0
        quiet = until(
            lambda: host_tools("status", "--port", device.port, "--timeout", "1"), lambda r: "REPL is free" in r.stderr
        )
        assert quiet.returncode == 3  # read through the REPL: the `once` marker went at that boot
        assert quiet.stderr == (
            "host_tools status: the board is not running the app: its REPL is free"
            " (maintenance or a bare REPL; no start-up fault recorded)\n"
        )
        assert "running: false\n" in quiet.stdout and "maintenance:" not in quiet.stdout  # no `maintenance: null`
        two = subprocess.run(
            [sys.executable, "-m", "mpremote", "connect", device.port, "resume", "exec", "print(1+1)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert two.stdout.strip() == "2", two.stderr
        reset = host_tools("reset", "--port", device.port)
        assert reset.returncode == 0 and reset.stdout == "board on %s reset\n" % device.port
        assert hello(device.port)["boot_count"] > board_hello["boot_count"]
    finally:
        device.stop()


def test_the_repl_is_shut_in_play_and_the_signed_maintenance_opens_it(tmp_path, key_dir, deployed):
    # one byte 0x03 opened everything (the REPL prints link_key).
    flash, deployed = deployed_copy(deployed, tmp_path, key_dir)
    device = Device(flash, "--keys", "wait:9000 3 4 2 2")
    try:
        before = host_tools("status", "--port", device.port, "--json")
        assert before.returncode == 0, before.stderr
        import serial

        with serial.serial_for_url(device.port, timeout=0.2) as port:
            # Ctrl-C, Ctrl-D, the raw REPL's Ctrl-A and raw-paste, mpremote's own break-in, a line with 0x03.
            port.write(b"\x03\x03\r\x03\x04\x01\x05A\x01\x02\r\n" + b'{"id": 5, "cmd": "pi\x03ng"}\n')
            port.flush()
            heard = b""
            deadline = time.monotonic() + 15
            while b"bad json" not in heard and time.monotonic() < deadline:
                heard += port.read(4096)
            # Bounded by a later answer: whatever those bytes made the board say came before it.
            port.write(b'{"id": 6, "cmd": "ping", "data": "after"}\n')
            port.flush()
            while b'"id": 6' not in heard and time.monotonic() < deadline:
                heard += port.read(4096)
            heard += port.read_until(b"\n")
        assert b'"error": "bad json at column' in heard, heard  # the link read them as ordinary bytes
        assert b">>>" not in heard and b"raw REPL" not in heard and b"Traceback" not in heard
        # mpremote (its Python API, as deploy uses it) cannot enter the raw REPL.
        with pytest.raises(HostToolError, match="cannot reach the REPL on .*: could not enter raw repl") as e:
            Repl(device.port)
        assert e.value.code == 3
        # `reset` in play says why it cannot, and the step to take.
        refused = host_tools("reset", "--port", device.port)
        assert (refused.returncode, refused.stdout) == (1, "")
        assert refused.stderr == (
            "host_tools reset: the board on %s is in play and its REPL is shut: run"
            " `python -m host_tools maintenance --port %s` first (it reboots into maintenance), then reset\n"
            % (device.port, device.port)
        )
        after = json.loads(host_tools("status", "--port", device.port, "--json").stdout)
        was = json.loads(before.stdout)
        assert after["hello"]["boot_count"] == was["hello"]["boot_count"]  # no reset, no watchdog: still in play
        assert after["hello"]["firmware_hash"] == deployed["hash"]  # measured at power-up, as deployed
        assert "measured firmware is the deploy of" in after["checks"]["firmware"]
        # The way in: the signed maintenance command, then mpremote.
        with maintenance_repl(device.port) as repl:
            assert repl.eval("1 + 1") == 2
            repl.reset()
        assert hello(device.port)["boot_count"] == was["hello"]["boot_count"] + 2  # maintenance, then play
    finally:
        device.stop()


def test_a_changed_main_py_is_reported_by_status(tmp_path, key_dir, deployed):
    # hello.firmware_hash repeated firmware.json, so a modified main.py reported the approved hash.
    flash, deployed = deployed_copy(deployed, tmp_path, key_dir)
    device = Device(flash)
    try:
        hello(device.port)
        with maintenance_repl(device.port) as repl:
            main = repl.read_file("main.py")
            repl.write_file("main.py", main + b"\n# changed on the board\n")
            repl.reset()
        changed = hello(device.port)
        assert changed["firmware_declared"] == deployed["hash"]  # firmware.json still says the deploy
        assert changed["firmware_hash"] != deployed["hash"]  # what the board runs does not
        status = host_tools("status", "--port", device.port)
        assert status.returncode == 1
        assert status.stderr.startswith(
            "host_tools status: board %s: measured firmware %s DIFFERS from the deploy of"
            % (BOARD, changed["firmware_hash"])
        )
    finally:
        device.stop()


def older_module(name, tmp_path):
    """crapsboard/NAME compiled under another source name: other bytes, same code."""
    out = tmp_path / (name.replace("/", "_") + ".mpy")
    source = os.path.join(ROOT, "firmware", "lib", "crapsboard", *(name + ".py").split("/"))
    subprocess.run([devlayout.mpy_cross(), "-s", "old/" + name + ".py", "-o", str(out), source], check=True)
    return out.read_bytes()


def test_a_deploy_cut_halfway_boots_to_maintenance_and_a_second_deploy_finishes(tmp_path, key_dir):
    flash = tmp_path / "flash.img"
    device = Device(flash)
    try:
        first = deploy.deploy(device.port, quiet=True)
        # An older firmware: five modules differ (compiled under another name:
        # other bytes, the same code, so the board still plays) and there is no manifest.
        names = ("table/app", "rules/engine", "table/entry", "table/keypad", "table/lamps")
        changed = ["lib/crapsboard/%s.mpy" % name for name in names]
        older = {path: older_module(name, tmp_path) for path, name in zip(changed, names)}
        with maintenance_repl(device.port) as repl:
            for path in changed:
                repl.write_file(path, older[path])
            repl.exec("import os\nos.remove('firmware.json')")
            repl.reset()
        hello(device.port)

        def cut(path, index, count):
            if index == 2:
                device.proc.send_signal(signal.SIGKILL)  # the power goes mid-deploy
                device.proc.wait()

        with pytest.raises(HostToolError) as e:
            deploy.deploy(device.port, quiet=True, wait=False, on_file=cut)
        assert e.value.code == 3 and "\n" not in str(e.value)
    finally:
        device.stop()
    device = Device(flash)
    try:
        status = until(
            lambda: host_tools("status", "--port", device.port, "--timeout", "2"), lambda r: "maintenance" in r.stderr
        )
        assert status.returncode == 3  # no app: maintenance, named through the REPL
        assert status.stderr == "host_tools status: the board is in maintenance mode (deploy): no app, REPL free\n"
        marker = subprocess.run(
            [
                sys.executable,
                "-m",
                "mpremote",
                "connect",
                device.port,
                "resume",
                "exec",
                "print(open('maintenance').read())",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert marker.stdout.strip() == "deploy", marker.stdout + marker.stderr
        with Repl(device.port) as repl:
            hashes = repl.hashes(changed)
        assert [hashes[p] == deploy.sha256_hex(older[p]) for p in changed] == [False, False, True, True, True]
        second = deploy.deploy(device.port, quiet=True)
        assert second["copied"] == changed[2:]  # the two copied before the cut were whole
        assert second["hash"] == first["hash"] and second["hello"]["firmware_hash"] == first["hash"]
    finally:
        device.stop()


def test_monitor_sees_keys_and_log_over_serial_equals_the_image(tmp_path, key_dir, deployed):
    flash, _ = deployed_copy(deployed, tmp_path, key_dir)
    device = Device(flash, "--keys", "wait:5000 3 4 6 6 2 5")
    try:
        hello(device.port)
        seen = host_tools("monitor", "--port", device.port, "--json", "--count", "3", "--seconds", "30")
        assert seen.returncode == 0, seen.stderr
        events = [json.loads(line) for line in seen.stdout.splitlines()]
        rolls = [e["dice"] for e in events if e["event"] == "roll"]
        assert rolls == [[3, 4], [6, 6], [2, 5]]
        serial = host_tools("log", "--port", device.port)
        assert serial.returncode == 0, serial.stderr
        out = tmp_path / "journal.jsonl"
        saved = host_tools("log", "--port", device.port, "--out", str(out), "--page", "3")
        assert saved.returncode == 0, saved.stderr
    finally:
        device.stop()
    image = host_tools("log", "--image", str(flash))
    assert image.returncode == 0, image.stderr
    assert serial.stdout == image.stdout
    assert out.read_text() == image.stdout
    assert [json.loads(line)["dice"] for line in image.stdout.splitlines() if '"roll"' in line] == rolls
    records, _ = journal_log.read_image(str(flash))
    assert sync.format_records(records, "jsonl", True) == image.stdout


def test_a_main_py_that_predates_the_marker_is_set_aside_then_replaced(tmp_path, key_dir):
    device = Device(tmp_path / "flash.img")
    try:
        first = deploy.deploy(device.port, quiet=True)
        with maintenance_repl(device.port) as repl:  # an older firmware's main.py: it knows no maintenance marker
            repl.write_file("main.py", b"print('older firmware')\n")
            repl.reset()
        with Repl(device.port, wait=10) as repl:  # retried until the board, reset, gives its raw REPL
            assert repl.read_file("main.py") == b"print('older firmware')\n"
        second = deploy.deploy(device.port, quiet=True)
        assert "main.py" in second["copied"] and second["hello"]["firmware_hash"] == first["hash"]
        built = deploy.build_files()  # before breaking in: the app's watchdog resets the board 8 s after
        with maintenance_repl(device.port) as repl:
            names = repl.eval("__import__('os').listdir()")
            assert repl.hashes(["main.py"])["main.py"] == deploy.sha256_hex(built["main.py"])
            repl.reset()
        assert "main.py.old" not in names and "maintenance" not in names
    finally:
        device.stop()
