"""The link's asyncio task (crapsboard/link/link_task.py) on real standard input
and output, under both runtimes (tests/vm/link_serve.py): a half-sent line held
for seconds does not stop a 10 ms heartbeat, a full request gets its reply,
0x03 and 0x04 are ordinary bytes (the REPL is shut in play), end of input ends it. Heartbeat ticks
are counted with generous bounds; no wall-clock duration is asserted."""

import json
import os
import select
import subprocess
import sys
import time

import pytest
from conftest import ROOT

from sim import paths, runtime

SCRIPT = "tests/vm/link_serve.py"
HOLD_S = 3.0


def start(which):
    pipes = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if which == "micropython":
        return runtime.start(SCRIPT, **pipes)
    env = paths.cpython_environment()
    # CPython buffers a pipe's standard output unless told not to: without this
    # machine's PYTHONUNBUFFERED, a reply arrives only if the link flushes it.
    env.pop("PYTHONUNBUFFERED", None)
    return subprocess.Popen([sys.executable, os.path.join(ROOT, SCRIPT)], env=env, **pipes)


class Board:
    def __init__(self, which):
        self.proc = start(which)
        self.pending = b""

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def reply(self, limit_s=30):
        deadline = time.monotonic() + limit_s
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            assert left > 0, "no reply from the link task"
            if select.select([self.proc.stdout], [], [], left)[0]:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                assert chunk, self.proc.stderr.read().decode()
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture(params=["cpython", "micropython"])
def board(request):
    b = Board(request.param)
    yield b
    b.close()


def beats(board, rid):
    board.send(b'{"id": %d, "cmd": "beats"}\n' % rid)
    reply = board.reply()
    assert reply["id"] == rid and reply["ok"] is True
    return reply["beats"]


def test_a_half_sent_line_does_not_stop_the_heartbeat(board):
    start = time.monotonic()
    first = beats(board, 1)
    board.send(b'{"id": 2, "cmd": "be')
    time.sleep(HOLD_S)  # 300 heartbeats' worth at 10 ms
    board.send(b'ats"}\n')
    reply = board.reply()
    elapsed_ms = (time.monotonic() - start) * 1000
    assert reply["id"] == 2
    # A loop blocked in readline() would show ~1 beat; a loaded machine still shows far more than 60.
    assert reply["beats"] - first >= 60, reply
    assert reply["beats"] - first <= elapsed_ms / 10 + 5  # no faster than a 10 ms heartbeat can tick


def test_over_long_and_garbage_lines_are_refused_and_the_next_is_served(board):
    board.send(b"z" * 3000 + b"\n\xff\xfe garbage\n")
    assert board.reply() == {"id": None, "ok": False, "error": "line longer than 1024 bytes: skipped to its newline"}
    assert board.reply()["error"].startswith("not ASCII")
    assert beats(board, 3) >= 0


def test_ctrl_c_and_ctrl_d_are_ordinary_bytes_for_the_task(board):
    # The REPL is shut in play (main.py: micropython.kbd_intr(-1)), so these
    # bytes reach the task: a line holding them is refused, the task runs on.
    beats(board, 1)
    board.send(b'{"id": 2, "cmd": "pi\x03ng"}\n\x03\x03\r\x01\x04\x02\n')
    assert board.reply() == {"id": None, "ok": False, "error": "bad json at column 21"}
    assert board.reply()["error"].startswith("bad json at column ")
    assert beats(board, 2) >= 0
    assert board.proc.poll() is None


def test_end_of_input_ends_the_task_quietly(board):
    beats(board, 1)
    board.proc.stdin.close()
    assert board.reply() == {"event": "eof"}
    assert board.proc.wait(timeout=30) == 0
