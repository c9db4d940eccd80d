"""A link reply that cannot be built (MemoryError) is refused with the
request's own id and the reason, and the link serves the next request; the
host tools then say "board out of memory" and exit 4, not "no board" (3).
All under the MicroPython VM with a heap too small for the reply
(tests/vm/link_oom.py), the host tools over a real pseudo-terminal."""

import json
import os
import pty
import subprocess
import sys
import tty

import pytest
from conftest import ROOT

from host_tools import EXIT_BOARD_OUT_OF_MEMORY, EXIT_NO_BOARD
from sim import runtime

HEAP = "192K"
OUT_OF_MEMORY = "out of memory: the reply could not be built"


def served(mode, stdin):
    done = runtime.run("tests/vm/link_oom.py", [mode], HEAP, input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_reply_too_large_to_build_is_refused_with_its_own_id_and_the_next_is_served():
    replies = served("reply", '{"id": 7, "cmd": "status"}\n{"id": 8, "cmd": "ping"}\n')
    assert replies == [
        {"id": 7, "ok": False, "error": OUT_OF_MEMORY},
        {"id": 8, "ok": True, "data": ""},  # ping echoes its data
    ]


def test_a_handler_that_runs_out_of_memory_is_refused_with_its_own_id():
    replies = served("reply", '{"id": 9, "cmd": "grab"}\n{"id": 10, "cmd": "hello"}\n')
    assert replies[0] == {"id": 9, "ok": False, "error": OUT_OF_MEMORY}
    assert replies[1]["id"] == 10 and replies[1]["ok"] is True


def test_a_link_that_cannot_load_refuses_the_line_whose_id_it_never_read():
    replies = served("load", '{"id": 11, "cmd": "hello"}\n')
    assert replies == [{"id": None, "ok": False, "error": "link not loaded: out of memory, try again"}]


# ---- the host tools over a pseudo-terminal, the VM on its other end ---------------------


@pytest.fixture
def board():
    """Start the VM serving `mode` on a pty's master; yields a function that
    takes the mode and returns the slave's path for the host tools."""
    started = []

    def start(mode):
        master, slave = pty.openpty()
        tty.setraw(slave)
        proc = runtime.start("tests/vm/link_oom.py", [mode], HEAP, stdin=master, stdout=master)
        started.append((proc, master, slave))
        return os.ttyname(slave)

    yield start
    for proc, master, slave in started:
        proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)


def host_tools(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_host_tools_report_a_board_out_of_memory_with_their_own_exit_status(board):
    port = board("reply")
    done = host_tools("status", "--port", port, "--timeout", "5")
    assert done.returncode == EXIT_BOARD_OUT_OF_MEMORY == 4
    assert done.stdout == ""
    assert done.stderr == "host_tools status: board out of memory: status refused (%s)\n" % OUT_OF_MEMORY


def test_host_tools_report_a_link_that_cannot_load_as_out_of_memory_not_as_no_board(board):
    port = board("load")
    done = host_tools("status", "--port", port, "--timeout", "5")
    assert done.returncode == EXIT_BOARD_OUT_OF_MEMORY != EXIT_NO_BOARD
    assert done.stderr.startswith("host_tools status: board out of memory: ") and "Traceback" not in done.stderr
