"""The board's memory budget (docs/board.md, Memory): firmware/main.py as
deployed runs every scenario of tests/heap_budget.py -- first boot, restores
of 300 and 10,000 events, play, the lamp test with status polled, every link
command with the largest events page and config_set, and subscribe as the
floor gateway uses it -- in BUDGET_KB of heap on the 64-bit MicroPython unix
port, each to its end with no fault."""

import shutil

import heap_budget as hb
import pytest
from test_board_main_link import NO_LINK_HEAP


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("heap-budget")


def test_the_budget_is_the_documented_one_and_fits_the_module_with_room():
    # docs/board.md, Memory: 320 KB here, ~224 KB on 32 bits, against ~4 MB.
    assert (hb.BUDGET_KB, hb.RATIO_32, hb.MODULE_HEAP_KB) == (320, 0.70, 4096)
    assert round(hb.BUDGET_KB * hb.RATIO_32) == 224


@pytest.mark.parametrize("name", [name for name in hb.SCENARIOS if name != hb.LINK_NOT_LOADED])
def test_every_scenario_runs_in_the_budget(base, tmp_path, name):
    trial = tmp_path / "flash"
    shutil.copytree(hb.template(base, name), trial)
    passed, seen = hb.run(trial, name, "%dK" % hb.BUDGET_KB)
    assert passed, seen


def test_a_scenario_beyond_the_heap_is_seen_to_fail(base, tmp_path):
    # The check can fail: the same link scenario in a heap that cannot hold the
    # link. The table plays on (3 s of feeds) and each line is refused.
    trial = tmp_path / "flash"
    shutil.copytree(hb.template(base, "hello, status"), trial)
    passed, seen = hb.run(trial, "hello, status", NO_LINK_HEAP)  # plays, with margin; too small for the link
    assert not passed and seen["report"]["wdt"] == "1 30"
    assert [r["ok"] for r in seen["replies"]] == [False, False]
