"""The plain prompt simulator (`python -m sim play`)."""

import subprocess
import sys

from conftest import ROOT

from crapsboard.rules.engine import Table
from sim.play import step


def test_a_bad_line_shows_an_error_and_changes_nothing():
    table = Table()
    step(table, "2 2")
    before = (table.rolls, table.point, table.all_marks, table.mea_marks)
    assert step(table, "9 9").startswith("error: ")
    assert (table.rolls, table.point, table.all_marks, table.mea_marks) == before


def test_undo_end_and_quit():
    table = Table()
    step(table, "2 2")
    assert "fire resolved at level 0: loses" in step(table, "end")
    assert table.shooter == 2
    assert "shooter 1, point 4" in step(table, "undo")
    assert step(table, "undo").startswith("shooter 1, point OFF")
    assert step(table, "undo") == "nothing to undo"
    assert step(table, "quit") is None


def test_a_winning_roll_names_the_pay():
    table = Table()
    for dice in ("1 1", "1 2", "2 2", "2 3"):
        step(table, dice)
    assert "all_small resolved at level 5: pays 34 to 1" in step(table, "3 3")


def test_the_prompt_runs_to_end_of_input():
    out = subprocess.run(
        [sys.executable, "-m", "sim", "play"], input=b"3 4\nx\n", capture_output=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0
    assert b"rolled 3-4 = 7" in out.stdout and b"error: " in out.stdout
