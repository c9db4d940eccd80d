"""Frames only on change: an idle board writes nothing to the strip, a blinking
lamp costs one frame per blink edge, and every visible change (a roll, a blink
edge, a celebration, the lamp test's steps) is still written at once. The same
program under CPython and the MicroPython VM gives the same counts."""

import json

import pytest
import vm_program

from sim import session
from sim.paths import BOARD_JSON

SLOW_BLINK_MS = 512  # docs/lamps.md: a slow blink is 512 ms on, 512 ms off
PROGRAM = "tests/vm/frame_counts.py"


def counts(runtime_name):
    # The simulator's driver from source: the heap sim run uses.
    out = vm_program.run(runtime_name, PROGRAM, [BOARD_JSON], session.HEAPSIZE, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def both():
    return {name: counts(name) for name in ("cpython", "micropython")}


@pytest.mark.parametrize("runtime_name", ["cpython", "micropython"])
def test_an_idle_board_writes_no_frames(both, runtime_name):
    c = both[runtime_name]
    assert c["first_second"] == 1  # the first frame replaces the start-up pattern
    assert c["idle"] == 0  # then 10 s of nothing: not one strip write (was 200)


@pytest.mark.parametrize("runtime_name", ["cpython", "micropython"])
def test_a_blinking_lamp_costs_one_frame_per_edge(both, runtime_name):
    # 10 240 ms hold 20 slow-blink edges; which render sees an edge first can
    # move one of them across the window's ends.
    assert abs(both[runtime_name]["blinking_idle"] - 10240 // SLOW_BLINK_MS) <= 1


@pytest.mark.parametrize("runtime_name", ["cpython", "micropython"])
def test_every_visible_change_is_written(both, runtime_name):
    c = both[runtime_name]
    assert c["roll"] >= 1 and c["point_6_shown"] and c["point_off_dark"]
    assert c["lamp_test"] >= 5  # red, green, blue, white, then the state again
    assert c["stale"] == 0  # after every render the strip shows the renderer's frame


def test_both_runtimes_write_the_same_frames(both):
    assert both["cpython"] == both["micropython"]
