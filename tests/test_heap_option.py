"""`--heap SIZE` for `sim run` and the terminal board: the MicroPython VM's heap,
checked before anything starts; every refusal is one line."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from sim import runtime
from sim.run import heap_option


def sim(*args):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "text, size",
    [("96K", "98304"), ("96k", "98304"), ("1M", "1048576"), ("131072", "131072"), (" 80K ", "81920")],
)
def test_sizes(text, size):
    assert runtime.heap_size(text) == size


@pytest.mark.parametrize(
    "text, words",
    [
        ("abc", "not a size"),
        ("96KB", "not a size"),
        ("-96K", "not a size"),
        ("1.5M", "not a size"),
        ("", "not a size"),
        ("8K", "from 16K to 64M"),
        ("65M", "from 16K to 64M"),
    ],
)
def test_bad_sizes(text, words):
    with pytest.raises(ValueError, match=words):
        runtime.heap_size(text)


def test_not_for_cpython():
    done = sim("run", "--keys", "3 3", "--heap", "96K")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "sim run: --heap sets the MicroPython VM's heap: use it with --runtime micropython\n"
    assert heap_option(None, "cpython") is None


def test_a_bad_size_is_one_line():
    done = sim("run", "--keys", "3 3", "--runtime", "micropython", "--heap", "lots")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == 'sim run: --heap "lots": not a size (e.g. 96K, 1M or a number of bytes)\n'


def test_the_board_checks_it_too():
    done = sim("board", "--heap", "96K")  # cpython: refused before the terminal is asked for
    assert done.returncode == 2
    assert done.stderr == "sim board: --heap sets the MicroPython VM's heap: use it with --runtime micropython\n"


def test_the_heap_is_the_vms():
    same = sim("run", "--keys", "3 3", "--runtime", "micropython", "--heap", "256K")
    default = sim("run", "--keys", "3 3", "--runtime", "micropython")
    assert same.returncode == 0 and same.stdout == default.stdout
    small = sim("run", "--keys", "3 3", "--runtime", "micropython", "--heap", "48K")
    assert small.returncode == 2 and small.stdout == ""
    assert small.stderr == "sim run: micropython stopped: out of memory in a 49152-byte heap (the default is 256K)\n"


def test_where_the_clone_lives_is_nothing_the_vm_holds():
    """The VM names the repository relatively (a clone at a longer path once
    needed 199K where ours needed 160K: every module's file name is on the heap)."""
    done = runtime.run("tests/vm/paths_seen.py", ["arg"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = done.stdout.splitlines()
    assert seen[1] == "firmware/lib/crapsboard/rules/engine.py"
    assert seen[2] == "tests/vm/paths_seen.py"
    assert ROOT not in done.stdout and "/" + "tests/vm" not in seen[0]
    assert seen[3].endswith("'arg']")


def test_a_relative_config_is_the_callers_not_the_vms(tmp_path):
    """The VM runs in the repository root; a path the user gives is still theirs."""
    (tmp_path / "house.json").write_text('{"paytables": {"fire": "3"}}')
    dice = "4 4\n"
    done = [
        subprocess.run(
            [sys.executable, "-m", "sim", "replay", "--runtime", runtime_name, "--config", "house.json"],
            cwd=tmp_path,
            env=dict(os.environ, PYTHONPATH=ROOT),
            input=dice,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for runtime_name in ("cpython", "micropython")
    ]
    assert done[0].returncode == done[1].returncode == 0, done[1].stderr
    assert done[0].stdout == done[1].stdout != ""
