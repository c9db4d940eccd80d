"""firmware/main.py under the MicroPython VM with the link on its standard
input (tests/vm/boot_main.py, stand-in machine and neopixel): the link answers
beside the running app, a half-sent request does not stop key scanning, and
the maintenance marker boots to maintenance mode (no app, no watchdog)."""

import json
import os
import subprocess

import pytest
from test_board_main import KEY_OFF_PIN, STANDINS, flash, keys_for, report_of, run_boot

from sim import runtime

GRB_VIOLET = "0 40 64"  # board.MAINTENANCE_RGB in the strip's GRB order
# The link loads when a host first speaks; serving it needs far more heap
# than the table alone. LINK_HEAP holds "hello, status" and NO_LINK_HEAP
# "hello the heap may refuse, play" (the table plays on and the host is told
# "link not loaded: out of memory") at least 10% above the needs docs/board.md's
# generated table gives (make bench-heap; tests/test_heap_margin.py checks);
# NO_LINK_HEAP stays below the link's own need.
LINK_HEAP = "272K"
NO_LINK_HEAP = "184K"


def link_paths(folder):
    """The VM's module path the link's heap figures were taken with (docs/link.md, Memory)."""
    return [str(folder), str(folder / "lib"), STANDINS]


def boot(tmp_path, stdin, heapsize=LINK_HEAP, keys=(), feeds=30, held=()):
    """Power up main.py with `stdin` as the serial port's input; (report, link lines)."""
    out = run_boot(tmp_path, heapsize, held, keys, feeds, stdin, extra_paths=link_paths(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    link = [json.loads(line) for line in lines if line.startswith("{")]
    return report_of("\n".join(line for line in lines if not line.startswith("{"))), link


def test_the_link_answers_beside_the_running_app(tmp_path):
    flash(tmp_path)
    (tmp_path / "link_key").write_text("ab" * 32)
    stdin = '{"id": 1, "cmd": "hello"}\n{"id": 2, "cmd": "status"}\n{"id": 3, "cmd": "events", "since": 0}\n'
    report, link = boot(tmp_path, stdin)
    assert report["wdt"] == "1 30", report  # the app ran 3 s and fed the watchdog
    assert report["kbd"] == "-1"  # a board with a key: the REPL shut while it plays (Ctrl-C off)
    hello, status, events = link
    # The files it runs, measured at power-up, as deploy's manifest computes them.
    from host_tools import deploy

    measured = {}
    for folder, _, names in os.walk(tmp_path):
        for name in names:
            path = os.path.relpath(os.path.join(folder, name), tmp_path)
            if name.endswith((".py", ".mpy")) or path == "layout.json":
                measured[path] = open(os.path.join(folder, name), "rb").read()
    assert hello["firmware_hash"] == deploy.manifest(measured, "x")["hash"]
    assert hello["id"] == 1 and hello["ok"] is True
    assert hello["board"] == "240ac4000001"  # the stand-in machine.unique_id()
    assert hello["boot_count"] == 1 and hello["reset_cause"] == 1 and hello["free_heap"] > 0
    assert hello["journal"] == {"id": 1, "seq": 1, "first": 1, "fault": None, "received": None}
    assert status["status"] == "ready" and status["hand"]["rolls"] == 0
    assert [e["kind"] for e in events["events"]] == ["journal_start"]


def test_a_subscription_on_the_boards_own_link_pushes_each_roll_as_it_is_journaled(tmp_path):
    # docs/link.md, subscribe: on the board (link_wait loading link_app.board_link), the
    # journal's records are pushed as the dealer keys them, not only on a harness's link.
    flash(tmp_path)
    (tmp_path / "link_key").write_text("ab" * 32)
    # The dealer keys 2.2 s later than keys_for's first press: the link has loaded and
    # subscribed by then, on a loaded machine too (it takes a few hundred ms).
    later = [key[:-2] + (key[-2] + 2200, key[-1] + 2200) for key in keys_for("3 3 2 2")]
    report, link = boot(tmp_path, '{"id": 1, "cmd": "subscribe", "on": true}\n', keys=later, feeds=50)
    assert report["wdt"] == "1 50", report
    assert link[0] == {"id": 1, "ok": True, "on": True}
    rolls = [p for p in link[1:] if p.get("event") == "roll"]
    assert [(p["seq"], p["dice"]) for p in rolls] == [(2, [3, 3]), (3, [2, 2])]


@pytest.mark.parametrize("lines", [1, 2], ids=["a-request", "an-empty-line-then-a-request"])
def test_a_link_that_does_not_fit_leaves_the_table_playing(tmp_path, lines):
    # Each line the host starts gets one answer, an empty one too (docs/link.md, Memory):
    # the waiter reads a byte at a time, and skips only the rest of a line it refused.
    flash(tmp_path)
    sent = "\n" * (lines - 1) + '{"id": 1, "cmd": "hello"}\n'
    report, link = boot(tmp_path, sent, heapsize=NO_LINK_HEAP, keys=keys_for("3 3"))
    assert report["wdt"] == "1 30" and "crapsboard:" not in report
    assert link == [{"id": None, "ok": False, "error": "link not loaded: out of memory, try again"}] * lines


def test_a_half_sent_request_does_not_stop_the_keys(tmp_path):
    # The request never ends: the link waits for its newline while the keys
    # are scanned, journaled and shown.
    flash(tmp_path)
    report, link = boot(tmp_path, '{"id": 1, "cmd": "sta', keys=keys_for("3 3 2 2 1 5"))
    assert report["wdt"] == "1 30" and link == []
    report, link = boot(tmp_path, '{"id": 2, "cmd": "status"}\n')
    assert link[0]["hand"] == {"shooter": 1, "point": None, "fire_points": [6], "rolls": 3}


def test_maintenance_once_boots_without_the_app_and_only_once(tmp_path):
    flash(tmp_path)
    (tmp_path / "maintenance").write_text("once")
    report, _ = boot(tmp_path, "")
    assert report["crapsboard:"].startswith("maintenance mode (once)")
    assert report["wdt"] == "0 0" and report["resets"] == "0"  # no watchdog: the REPL is free
    assert report["status"] == report["floor"] == report["manager"] == GRB_VIOLET and report["lit"] == "6"
    assert report["sent"] == "yes"  # written to the strip, not only set in its buffer
    assert not (tmp_path / "maintenance").exists()  # the next reset plays
    report, _ = boot(tmp_path, "")
    assert report["wdt"] == "1 30"


def test_a_deploy_marker_stays_until_the_deploy_removes_it(tmp_path):
    flash(tmp_path)
    (tmp_path / "maintenance").write_text("deploy")
    for _ in range(2):
        report, _ = boot(tmp_path, "")
        assert report["crapsboard:"].startswith("maintenance mode (deploy)") and report["wdt"] == "0 0"
    assert (tmp_path / "maintenance").read_text() == "deploy"


def test_maintenance_is_checked_before_the_app_modules_load(tmp_path):
    # A deploy cut halfway: a module the app needs is broken. Maintenance mode
    # must not import it (only board and startup).
    flash(tmp_path)
    (tmp_path / "lib" / "crapsboard" / "table" / "app.mpy").write_bytes(b"half copied")
    (tmp_path / "lib" / "crapsboard" / "table" / "layout.mpy").write_bytes(b"half copied")
    (tmp_path / "maintenance").write_text("deploy")
    report, _ = boot(tmp_path, "")
    assert report["crapsboard:"].startswith("maintenance mode (deploy)")


def test_the_link_maintenance_command_resets_into_maintenance(tmp_path):
    import hashlib
    import hmac

    flash(tmp_path)
    key = bytes(range(32))
    (tmp_path / "link_key").write_text(key.hex())
    req = {"id": 5, "cmd": "maintenance", "ctr": 1}
    req["tag"] = hmac.new(
        key, json.dumps(req, sort_keys=True, separators=(",", ":")).encode(), hashlib.sha256
    ).hexdigest()
    report, link = boot(tmp_path, json.dumps(req) + "\n")
    assert link == [{"id": 5, "ok": True, "reset_ms": 200}]
    assert report["resets"] == "1"  # machine.reset() after the reply
    assert (tmp_path / "maintenance").read_text() == "once" and (tmp_path / "link_ctr").read_text() == "1"
    report, _ = boot(tmp_path, "")
    assert report["crapsboard:"].startswith("maintenance mode (once)") and report["wdt"] == "0 0"


def test_a_silent_port_that_stays_open_leaves_the_table_playing(tmp_path):
    # On the board the serial port never closes and mostly stays silent: the
    # link's waiter must look at it without waiting, or the app's tasks stop
    # and the watchdog resets the board. Here the port is a pipe held open and
    # never written; the run ends at the 30th feed only if the tasks ran.
    flash(tmp_path)
    (tmp_path / "fake_setup.py").write_text(
        "HELD = %r\nRESET_CAUSE = 1\nKEYS = %r\nFEEDS = 30\nSTACK = 0\n" % ((KEY_OFF_PIN,), tuple(keys_for("3 3")))
    )
    proc = runtime.start(
        "tests/vm/boot_main.py",
        heapsize=LINK_HEAP,
        extra_paths=link_paths(tmp_path),
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        code = proc.wait(timeout=45)
        out = proc.stdout.read()
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    assert code == 0
    report = report_of(out)
    assert report["wdt"] == "1 30", out


def test_a_board_without_a_key_breaks_in_at_ctrl_c_even_where_the_link_does_not_fit(tmp_path):
    # docs/link.md: a board without a key takes 0x03 as Ctrl-C, mpremote's way to the REPL.
    # The waiter takes it before it loads the link, so a board whose heap has no room for
    # the link still breaks in: KeyboardInterrupt ends main.py, nothing is answered.
    flash(tmp_path)
    out = run_boot(tmp_path, NO_LINK_HEAP, feeds=30, stdin="\x03", extra_paths=link_paths(tmp_path))
    assert out.returncode != 0, out.stdout + out.stderr
    # MicroPython's traceback (on stdout): raised by the waiter itself, the link never loaded.
    last_frame, error = out.stdout.rstrip().splitlines()[-2:]
    assert (last_frame.split(",")[0].strip(), error) == ('File "link/link_wait.py"', "KeyboardInterrupt:"), out.stdout
    assert "link not loaded" not in out.stdout


def test_a_board_with_a_key_takes_ctrl_c_on_the_link_as_a_byte_not_a_break_in(tmp_path):
    # docs/link.md: only a board without a key still takes 0x03 as Ctrl-C.
    # With a key the REPL is shut while the table plays: a stray Ctrl-C from
    # a host is one more byte of a line, and the table and the link play on.
    flash(tmp_path)
    (tmp_path / "link_key").write_text("ab" * 32)
    report, link = boot(tmp_path, '\x03\n{"id": 1, "cmd": "hello"}\n')
    assert report["wdt"] == "1 30", report
    assert [reply["id"] for reply in link if reply.get("ok")] == [1]
