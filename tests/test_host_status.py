"""`host_tools status` says what a technician needs: the reset cause by name,
and, for a board whose start-up failed, the reason whole — from the link's
last text, and from diag.json through the REPL once the board holds its
fault. Real pyserial; the firmware's link core on a pty, and the virtual
board (the real VM and firmware) with mpremote."""

import json

import pytest
from pty_link import PtyLink
from test_device import deployed_files, image_with
from test_host_device import Device, host_tools
from test_host_link import board

from host_tools import HostToolError, status
from host_tools.link import BoardLink

LONG_FAULT = "crapsboard: start-up failed: JournalError: corrupt: record 66 (resetting)"


def test_no_reply_names_the_boards_last_line_whole():
    with PtyLink(board()) as pty:
        pty.silent = True
        with BoardLink(pty.port, timeout=0.5) as link:
            pty.push(LONG_FAULT.encode() + b"\r\n")
            with pytest.raises(HostToolError) as e:
                link.hello()
    assert e.value.code == 3
    assert str(e.value).endswith("(last text from the port: %r)" % LONG_FAULT)  # record 66, not "record 6"


@pytest.mark.parametrize(
    "cause, text",
    [
        (1, "PWRON_RESET (1): power-on or brown-out"),
        (2, "HARD_RESET (2): machine.reset(), a crash (panic) or the reset button"),
        (3, "WDT_RESET (3): the watchdog: the app stopped feeding it"),
        (4, "DEEPSLEEP_RESET (4): a wake from deep sleep"),
        (5, "SOFT_RESET (5): a soft reboot (Ctrl-D at the REPL, sys.exit())"),
        (0, "unknown (0): a reset the chip does not name"),
        (9, "9"),
        (None, "null"),
    ],
)
def test_the_reset_cause_is_named(cause, text):
    lines = status.human_lines({"hello": {"reset_cause": cause, "boot_count": 2}})
    assert lines == ["hello.boot_count: 2", "hello.reset_cause: " + text]


def test_status_of_a_running_board_names_its_reset_cause(tmp_path, mpy_lib):
    flash = tmp_path / "flash.img"
    image_with(flash, deployed_files(mpy_lib))
    device = Device(flash)
    try:
        from test_host_device import hello

        hello(device.port)
        shown = host_tools("status", "--port", device.port)
    finally:
        device.stop()
    assert shown.returncode == 0, shown.stderr
    assert "hello.reset_cause: PWRON_RESET (1): power-on or brown-out\n" in shown.stdout


def test_a_board_holding_its_start_up_fault_is_named_through_its_repl(tmp_path, mpy_lib):
    # Two failed start-ups already counted: this one is the third, and the
    # board holds the fault (crapsboard/boot/startup.py), its main.py returned.
    files = deployed_files(mpy_lib)
    files["config.json"] = b'{"rebet_after_win": 3}'
    files["diag.json"] = json.dumps({"boots": 2, "failed": 2, "cause": 1, "error": "x"}).encode()
    flash = tmp_path / "flash.img"
    image_with(flash, files)
    device = Device(flash)
    try:
        shown = host_tools("status", "--port", device.port, "--timeout", "2")
        as_json = host_tools("status", "--port", device.port, "--timeout", "2", "--json")
    finally:
        device.stop()
    reason = (
        "the board's start-up failed 3 times in a row: holding the fault:"
        " ConfigError: rebet_after_win: must be true or false"
    )
    assert shown.returncode == 1, shown.stderr
    assert shown.stderr == "host_tools status: " + reason + "\n"
    assert "running: false\n" in shown.stdout and "board: 240ac4000001\n" in shown.stdout
    assert "diag.cause: PWRON_RESET (1): power-on or brown-out\n" in shown.stdout
    found = json.loads(as_json.stdout)
    assert as_json.returncode == 1
    assert found["diag"]["error"] == "ConfigError: rebet_after_win: must be true or false"
    assert (found["diag"]["failed"], found["diag"]["boots"], found["maintenance"]) == (3, 3, None)
    assert found["reason"] == reason and found["running"] is False


def test_the_progressive_pay_rule_and_why_closed_are_lines_a_technician_reads():
    why = "plays PT-BJS-FUP-01; the FUP meter is on PT-BJS-FUP-03"
    reply = {
        "status": {
            "progressive": {
                "FUP": {"state": "closed", "amount": "$1,000.00", "pays": "shared by winning wagers", "closed": why},
            }
        }
    }
    lines = status.human_lines(reply)
    assert "status.progressive.FUP.closed: " + why in lines
    assert "status.progressive.FUP.pays: shared by winning wagers" in lines
