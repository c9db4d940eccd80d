"""Every resolution says what happened (RULES: How a resolution is reported):
outcome win / push / loss / returned, returns = units handed back per unit
staked (stake included; "meter" for 100%), the paytable in force. Hand-worked
from the rules text and the seeds' paytables, on both runtimes."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT
from engine_both import resolved, run_both

SMALL_WIN = ["1 1", "1 2", "2 2", "2 3", "3 3"]  # 2, 3, 4 (point), 5, 6: All Small complete


def test_fired_up_fup_01_one_match_is_a_push_returning_1():
    records = run_both(["3 3", "6 6"])  # 6 starts 6-5-4-3-2; 12 does not follow
    fired = resolved(records[-1])["fired_up"]
    assert (fired["paytable"], fired["level"], fired["outcome"], fired["returns"]) == ("PT-BJS-FUP-01", 1, "push", 1)
    assert (fired["pays"], fired["unit"]) == (1, "for 1")


def test_fired_up_no_match_is_a_loss_returning_0():
    (record,) = run_both(["1 1"])
    fired = resolved(record)["fired_up"]
    assert (fired["level"], fired["outcome"], fired["returns"]) == (0, "loss", 0)


def test_bonus_craps_pt1_all_small_win_returns_35():
    records = run_both(SMALL_WIN)
    small = resolved(records[-1])["all_small"]
    assert (small["paytable"], small["outcome"], small["returns"], small["pays"], small["unit"]) == (
        "PT1",
        "win",
        35,
        34,
        "to 1",
    )


def test_bonus_craps_pt2_all_small_30_to_1_returns_31():
    records = run_both(SMALL_WIN, {"paytables": {"all_small": "PT2"}})
    small = resolved(records[-1])["all_small"]
    assert (small["paytable"], small["outcome"], small["returns"]) == ("PT2", "win", 31)


# points 4, 5, 6, 8 made, then point 4 and a seven-out
FOUR_POINTS = ["2 2", "2 2", "2 3", "2 3", "3 3", "3 3", "4 4", "4 4", "2 2", "3 4"]
# points 4, 5 made, then point 6 and a seven-out
TWO_POINTS = ["2 2", "2 2", "2 3", "2 3", "3 3", "3 4"]


def test_fire_four_points_on_table_1_is_25_for_1():
    fire = resolved(run_both(FOUR_POINTS)[-1])["fire"]
    assert (fire["paytable"], fire["level"], fire["outcome"], fire["returns"], fire["unit"]) == (
        "1",
        4,
        "win",
        25,
        "for 1",
    )


def test_fire_four_points_on_table_2_is_24_to_1_returning_25():
    fire = resolved(run_both(FOUR_POINTS, {"paytables": {"fire": "2"}})[-1])["fire"]
    assert (fire["paytable"], fire["outcome"], fire["returns"], fire["pays"], fire["unit"]) == (
        "2",
        "win",
        25,
        24,
        "to 1",
    )


def test_fire_seven_out_with_two_points_is_a_loss():
    fire = resolved(run_both(TWO_POINTS)[-1])["fire"]
    assert (fire["level"], fire["outcome"], fire["returns"]) == (2, "loss", 0)


def test_a_come_out_7_loses_every_bonus_wager_even_under_to_1():
    (record,) = run_both(["3 4"])
    for wager in ("all_small", "all_tall", "make_em_all", "mea_progressive"):
        r = resolved(record)[wager]
        assert (r["outcome"], r["returns"]) == ("loss", 0), wager


def test_mea_top_award_returns_the_meter():
    records = run_both(["1 1", "1 2", "1 3", "1 4", "1 5", "2 6", "3 6", "4 6", "5 6", "6 6"])
    mea = resolved(records[-1])["mea_progressive"]
    assert (mea["outcome"], mea["returns"], mea["pays"]) == ("win", "meter", "meter")


def test_dealer_envy_states_its_unit():
    records = run_both(
        ["1 1", "1 2", "1 3", "1 4", "1 5", "2 6", "3 6", "4 6", "5 6", "6 6"],
        {"paytables": {"make_em_all": "PT-FLT-BC-03"}},
    )
    last = resolved(records[-1])
    # PT-FLT-BC-03: 5x each winning wager; PT-BJS-MEA-01: 1000 once per event, for a 1-unit base bet
    assert last["make_em_all"]["envy"] == {"amount": 5, "unit": "times each winning wager", "per": "wager"}
    assert last["mea_progressive"]["envy"] == {"amount": 1000, "unit": "units for a 1-unit base bet", "per": "event"}


@pytest.mark.parametrize("rt", ["cpython", "micropython"])
def test_summary_counts_outcomes(rt):
    # point 6, 12, seven-out: Fire loses with no points; Fired Up pushes at 12 (one
    # match) and its fresh cycle loses at the 7; every Bonus Craps cycle loses
    dice = "3 3\n6 6\n3 4\n"
    out = subprocess.run(
        [sys.executable, "-m", "sim", "replay", "--summary", "--runtime", rt],
        input=dice.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["outcomes"]["fired_up"] == {"loss": 1, "push": 1, "win": 0, "returned": 0}
    assert summary["outcomes"]["all_small"] == {"loss": 1, "push": 0, "win": 0, "returned": 0}
    assert summary["outcomes"]["fire"] == {"loss": 1, "push": 0, "win": 0, "returned": 0}
