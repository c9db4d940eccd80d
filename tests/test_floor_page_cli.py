"""`python -m host_tools floor page` refusing to start: one line on stderr, a documented exit status."""

import os
import socket
import subprocess
import sys

import pytest

from host_tools.floor.base import floordir
from host_tools.floor.bus import broker

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def page(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", "page", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


@pytest.fixture
def floor_dir(tmp_path):
    floordir.new_floor(str(tmp_path), tables=("T1",), port=broker.free_port(), ws_port=broker.free_port())
    return str(tmp_path)


def test_no_floor_here(tmp_path):
    done = page("--dir", str(tmp_path / "none"))
    assert done.returncode == 2
    assert (
        done.stderr
        == "host_tools floor: no floor in %s (floor.json missing): run `make floor` or `floor init`\n"
        % (tmp_path / "none")
    )


def test_no_broker_is_exit_4(floor_dir):
    done = page("--dir", floor_dir, "--http-port", str(broker.free_port()))
    assert done.returncode == 4
    assert done.stderr.startswith("host_tools floor: page: the broker at 127.0.0.1:")
    assert done.stderr.endswith("cannot be reached (Connection refused)\n")
    assert done.stdout == ""


def test_a_port_in_use_is_one_line(floor_dir):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = page("--dir", floor_dir, "--http-port", str(port))
    assert done.returncode == 2
    assert done.stderr == "host_tools floor: page: cannot serve on 127.0.0.1:%d: Address already in use\n" % port


def test_times_must_be_positive(floor_dir):
    done = page("--dir", floor_dir, "--idle", "0")
    assert (done.returncode, done.stderr) == (
        2,
        "host_tools floor: --escalate-after, --idle and --lifetime must be positive\n",
    )
