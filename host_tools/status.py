"""`python -m host_tools status`: what the board says about itself, for people.

A running board answers `hello` and `status` on the link; their fields are
printed one per line, with the reset cause named (the ESP32 port's
machine.reset_cause() values). A board that does not answer the link may still
be there with its main.py returned: a start-up fault held after failed
start-ups in a row, maintenance mode, a bare REPL. Then its friendly REPL
answers a carriage return with `>>> `, and status reads `diag.json` (the
kept diagnostics of crapsboard/boot/startup.py) and the maintenance marker
through it (mpremote, host_tools/repl.py) and names the reason whole:
exit 1 for a start-up fault, 3 otherwise. A board in play is never sent a
Ctrl-C by status: the REPL is used only once its prompt was seen.
"""

import json
import time

from host_tools import EXIT_FAILED, EXIT_NO_BOARD, HostToolError
from host_tools.commands import add_port_options, emit, flat_lines
from host_tools.floor.base.words import RESET_CAUSES
from host_tools.link import BoardLink

PROMPT_WAIT_S = 1.0  # how long to wait for a REPL's `>>> ` after a carriage return


def reset_cause_text(cause):
    """`HARD_RESET (2): machine.reset(), ...` for people; the value as given when unknown."""
    if not isinstance(cause, int) or isinstance(cause, bool) or cause not in RESET_CAUSES:
        return json.dumps(cause)
    name, why = RESET_CAUSES[cause]
    return "%s (%d): %s" % (name, cause, why)


def human_lines(reply):
    """A reply as `name: value` lines, the reset cause named (hello's
    `reset_cause`, diag.json's `cause`)."""
    causes = {"hello.reset_cause": reply.get("hello", {}).get("reset_cause")}
    if isinstance(reply.get("diag"), dict):
        causes["diag.cause"] = reply["diag"].get("cause")
    lines = []
    # What the board does not have is left out (the JSON keeps it as null): no `maintenance: null`.
    shown = {k: v for k, v in reply.items() if not (k in ("maintenance", "diag") and v is None)}
    for line in flat_lines(shown):
        name = line.split(": ", 1)[0]
        lines.append(name + ": " + reset_cause_text(causes[name]) if name in causes else line)
    return lines


def repl_answers(link, wait=PROMPT_WAIT_S):
    """Whether a friendly REPL reads the port (main.py returned): a carriage
    return makes it run the line typed so far (our request, a dict literal)
    and print its `>>> ` prompt. The app's link takes the CR as blank space."""
    link.serial.write(b"\r")
    link.serial.flush()
    seen = b""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        seen += link.serial.read(max(1, link.serial.in_waiting))
        if b">>> " in seen:
            return True
    return False


def read_diagnostics(port):
    """{"board", "diag", "maintenance"} read through the board's REPL."""
    from host_tools.repl import Repl

    with Repl(port) as repl:
        board = repl.exec("import machine, binascii\nprint(binascii.hexlify(machine.unique_id()).decode())").strip()
        diag = repl.read_file("diag.json")
        marker = repl.read_file("maintenance")
    try:
        diag = json.loads(diag) if diag is not None else None
    except ValueError:
        diag = {"unreadable": diag.decode("utf-8", "replace")}
    return {
        "board": board,
        "diag": diag if isinstance(diag, dict) else None,
        "maintenance": marker.decode("utf-8", "replace").strip() if marker is not None else None,
    }


def not_running(found):
    """(one-line reason, exit status) for a board whose app does not run."""
    diag = found["diag"] or {}
    if found["maintenance"] is not None:
        return "the board is in maintenance mode (%s): no app, REPL free" % found["maintenance"], EXIT_NO_BOARD
    failed = diag.get("failed")
    if isinstance(failed, int) and failed > 0 and diag.get("error"):
        from crapsboard.boot.startup import MAX_FAILED_BOOTS

        held = ": holding the fault" if failed >= MAX_FAILED_BOOTS else ""
        times = "once" if failed == 1 else "%d times in a row" % failed
        return "the board's start-up failed %s%s: %s" % (times, held, diag["error"]), EXIT_FAILED
    return (
        "the board is not running the app: its REPL is free (maintenance or a bare REPL; no start-up fault recorded)",
        EXIT_NO_BOARD,
    )


def status_of(port, timeout):
    """{"hello", "status"} of a running board; HostToolError naming why not."""
    link = BoardLink(port, timeout=timeout)
    try:
        try:
            hello = link.hello()
        except HostToolError as e:
            if e.code != EXIT_NO_BOARD or not repl_answers(link):
                raise
            link.close()
            found = read_diagnostics(port)
            reason, code = not_running(found)
            raise NotRunning(reason, code, found)
        return {"hello": hello, "status": link.request("status")}
    finally:
        link.close()


class NotRunning(HostToolError):
    """A board that answered through its REPL, not the link: `found` holds what it said."""

    def __init__(self, message, code, found):
        super().__init__(message, code)
        self.found = found


def _arguments(parser):
    add_port_options(parser)


def _run(args):
    try:
        reply = status_of(args.port, args.timeout)
    except NotRunning as e:
        found = dict(e.found, running=False, reason=str(e))
        emit(args, found, human_lines)
        raise
    from host_tools import board_records

    ok, firmware_line = board_records.check_firmware(reply["hello"])
    reply["checks"] = {"firmware": firmware_line, "journal_head": _head(args, reply["hello"]) or "ok"}
    emit(args, reply, human_lines)
    if not ok:
        raise HostToolError("board %s: %s" % (reply["hello"].get("board"), firmware_line), EXIT_FAILED)


def _head(args, hello):
    """board_records.check_head with the board's link, to check its chain still holds the record seen."""
    import functools

    from host_tools import board_records, sync
    from host_tools.link import BoardLink

    with BoardLink(args.port, timeout=args.timeout) as link:
        return board_records.check_head(hello, holds=functools.partial(sync.still_holds, link))


COMMANDS = {"status": (_arguments, _run, "the board's hello and table status (or, when it is not running, why)")}
