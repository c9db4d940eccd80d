"""Lamp-feed faults (hardware/README.md, eFuses): each feed's eFuse FAULT flag is
read, compared with what the lamps mean to show, shown on the board
(docs/lamps.md) and reported by the link's `status`. Both runtimes the app runs on."""

import json

import pytest
import vm_program

from crapsboard.table import layout as lay
from sim.paths import BOARD_JSON
from sim.session import HEAPSIZE

PROGRAM = "tests/vm/lamp_feed_faults.py"


def run(runtime_name, feeds):
    out = vm_program.run(runtime_name, PROGRAM, [BOARD_JSON, feeds], HEAPSIZE, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


RUNTIMES = ["cpython", "micropython"]


def test_the_shipped_board_reads_a_fault_flag_per_feed():
    layout = lay.load(BOARD_JSON)
    assert layout.feed_first == (0, 17, 30)
    assert layout.feed_fault_pins == (34, 35, 36)


@pytest.mark.parametrize("runtime_name", RUNTIMES)
def test_no_flag_no_fault(runtime_name):
    assert run(runtime_name, "") == {"fault": 0, "shown": [], "point": 6}


@pytest.mark.parametrize("runtime_name", RUNTIMES)
def test_a_dead_feed_is_compared_with_what_its_lamps_should_show(runtime_name):
    state = run(runtime_name, "2")
    assert state["fault"] == 0b010
    # F2 is pixels 17-29 (small.open ... all.open). After "3 3" the Bonus Craps windows
    # have closed and bonus.6 is marked: the one F2 lamp meant to be lit, and dark.
    assert state["lamp_feeds"] == {"faulted": ["F2"], "unlit": ["bonus.6"]}
    assert state["shown"] == ["status"]  # the status lamp (on F1, alive) blinks red slowly


@pytest.mark.parametrize("runtime_name", RUNTIMES)
def test_when_the_status_lamps_own_feed_dies_the_other_feeds_show_the_fault(runtime_name):
    state = run(runtime_name, "1")
    assert state["lamp_feeds"]["faulted"] == ["F1"]
    assert state["lamp_feeds"]["unlit"] == ["status", "point.6"]
    # The first lamp of each feed still powered: pixel 17 (small.open), pixel 30 (mea.open).
    assert state["shown"] == ["mea.open", "small.open"]


@pytest.mark.parametrize("runtime_name", RUNTIMES)
def test_every_feed_dead_is_still_reported_feed_by_feed(runtime_name):
    # Nowhere is left to show it: the link's status is the only report.
    state = run(runtime_name, "123")
    assert state["lamp_feeds"]["faulted"] == ["F1", "F2", "F3"]
    assert state["shown"] == []


@pytest.mark.parametrize("runtime_name", RUNTIMES)
def test_the_links_status_reports_a_lamp_feed_fault_and_only_then(tmp_path, runtime_name):
    from test_link_app import request, session

    replies = session(
        runtime_name,
        tmp_path,
        ["keys 3 3", "wait 100", request(1, "status"), "feeds 4", "wait 100", request(2, "status")],
    )
    before, after = json.loads(replies[2][0]), json.loads(replies[5][0])
    assert "lamp_feeds" not in before  # a whole board's reply is as it was
    # F3 holds the MEA and Fired Up lamps: the 6 marked mea.6 and matched fired.1.
    assert after["lamp_feeds"] == {"faulted": ["F3"], "unlit": ["mea.6", "fired.1"]}
    assert after["lamps"]["status"] == {"on": True, "color": "#ff0000", "blink": True}
