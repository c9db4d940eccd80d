"""The full-screen simulator (`make sim`), driven headlessly: textual's pilot
for exact checks of what each panel draws, and tmux for a real terminal."""

import asyncio
import os
import shutil
import subprocess
import time

import pytest
import svgread
from conftest import ROOT

from sim.tui import app as tui


def text_of(app, selector):
    content = app.query_one(selector).content
    return content.plain if hasattr(content, "plain") else str(content)


def flat(text):
    """Panel text with wrapped lines joined: what was said, not where it broke."""
    return " ".join(text.split())


def run_session(keys, size=(80, 24), seed=1):
    """Press `keys` (textual key names) in a headless app; the panels' text."""

    async def go():
        app = tui.build("cpython", seed=seed)
        try:
            async with app.run_test(size=size) as pilot:
                for key in keys:
                    await pilot.press(key)
                await pilot.pause()
                return {name: text_of(app, "#" + name) for name in ("hand", "board", "events", "keys", "footer")}, app
        finally:
            app.session.close()

    return asyncio.run(go())


def board_row(board_text, label):
    return next(line for line in board_text.splitlines() if label in line)


def test_a_point_made_lights_the_fire_lamp_and_the_event_panel_shows_the_rolls():
    panels, _ = run_session(["2", "2", "1", "3", "3", "3"])
    fire_row = board_row(panels["board"], "FIRE BET")
    assert "[4]" in fire_row and "[6]" not in fire_row  # 4 made; 6 is only the point
    puck_row = board_row(panels["board"], "OFF")
    assert "[6]" in puck_row and "[OFF]" not in puck_row
    assert "shooter 1 · point 6 · Fire 1 pt 4" in panels["hand"]
    events = panels["events"]
    assert "#1 roll 2-2 = 4, point 4" in events and "#2 roll 1-3 = 4, point OFF" in events
    assert "#3 roll 3-3 = 6, point 6" in events


def test_a_bad_key_shows_an_error_and_changes_nothing():
    before, _ = run_session(["2", "2"])
    after, app = run_session(["2", "2", "9"])
    assert "ERROR not a die face" in after["events"]
    assert "ERROR" in after["hand"]
    assert board_row(after["board"], "FIRE BET") == board_row(before["board"], "FIRE BET")
    assert board_row(after["board"], "MEA PROG") == board_row(before["board"], "MEA PROG")
    status = app.state["lamps"]["status"]
    assert status["on"] and status["blink"] and status["color"] == "#ff0000"  # drawn in its blink phases


def test_undo_needs_the_supervisor_key():
    panels, _ = run_session(["2", "2", "a"])
    assert "ERROR needs the supervisor" in panels["events"]
    assert "point 4" in panels["hand"]
    panels, _ = run_session(["2", "2", "k", "a"])
    assert "supervisor on (keyswitch)" in flat(panels["events"])
    assert "undo (keyswitch) · back to roll 0, point OFF" in flat(panels["events"])
    assert "point OFF" in panels["hand"] and "key ON" in panels["hand"]


def test_a_win_is_reported_with_its_pay():
    panels, _ = run_session(["1", "1", "1", "2", "2", "2", "2", "3", "3", "3"])
    assert "WIN Small 5 pays 34 to 1" in panels["events"]


def test_auto_roll_is_repeatable_with_a_seed():
    first, _ = run_session(["r", "r", "r"], seed=42)
    second, _ = run_session(["r", "r", "r"], seed=42)
    rolls = [line for line in first["events"].splitlines() if " roll " in line]
    assert len(rolls) == 3
    strip = [line.split(" ", 1)[1] for line in rolls]  # without the clock
    assert strip == [line.split(" ", 1)[1] for line in second["events"].splitlines() if " roll " in line]


def test_the_keypad_panel_shows_the_key_map_from_board_json():
    panels, _ = run_session([])
    assert "[1] [2] [3] [A]  a undo" in panels["keys"]
    assert "[*] [0] [#] [D]  d PIN" in panels["keys"]
    assert "no events yet" in panels["events"]


def test_a_small_terminal_says_so_instead_of_drawing():
    async def go():
        app = tui.build("cpython")
        try:
            async with app.run_test(size=(60, 20)) as pilot:
                await pilot.pause()
                return text_of(app, "#too-small"), app.query_one("#board").display
        finally:
            app.session.close()

    notice, board_shown = asyncio.run(go())
    assert "60x20" in notice and "80x24" in notice
    assert board_shown is False


def test_snapshot_key_writes_an_svg(tmp_path):
    async def go():
        app = tui.build("cpython", snapshot_dir=str(tmp_path))
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                for key in ("2", "2", "s"):
                    await pilot.press(key)
                await pilot.pause()
                return text_of(app, "#footer")
        finally:
            app.session.close()

    footer = asyncio.run(go())
    files = list(tmp_path.glob("board-*.svg"))
    assert len(files) == 1 and footer == "saved " + str(files[0])
    # The snapshot is the lit board: after a 4 on the come-out the puck is on 4.
    root = svgread.root(files[0])
    drawn = svgread.lamps(root)
    assert len(drawn) == 47
    assert drawn["point.4"]["colors"] == ["#ffffff"] and drawn["point.off"]["colors"] == [svgread.DARK]
    assert drawn["fired.open"]["colors"] == ["#00ff00"]
    assert "point 4" in svgread.caption(root) and "shooter 1" in svgread.caption(root)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_real_terminal_session_under_tmux(tmp_path):
    """`python -m sim` in an 80x24 tmux pane: keys in, screen text out."""
    name = "crapsboard-test-%d" % os.getpid()
    python = os.path.join(ROOT, ".venv", "bin", "python")
    command = "cd %s && %s -m sim --seed 5" % (ROOT, python if os.path.exists(python) else "python3")
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", command], check=True)

    def screen():
        return subprocess.run(["tmux", "capture-pane", "-t", name, "-p"], capture_output=True, text=True).stdout

    def wait_for(text, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in screen():
                return screen()
            time.sleep(0.1)
        raise AssertionError("never saw %r on screen:\n%s" % (text, screen()))

    try:
        wait_for("marker board")
        for key in ("5", "5", "4", "6"):
            subprocess.run(["tmux", "send-keys", "-t", name, key], check=True)
            time.sleep(0.15)
        shown = wait_for("roll 4-6 = 10, point OFF")
        assert "[10]" in board_row(shown, "FIRE BET")
        subprocess.run(["tmux", "send-keys", "-t", name, "q"], check=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "marker board" in screen():
            time.sleep(0.1)
        assert "marker board" not in screen()  # quit restored the terminal
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_help_opens_with_question_mark_and_closes_with_escape():
    async def go():
        app = tui.build("cpython")
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press("question_mark")
                await pilot.pause()
                opened = type(app.screen).__name__, text_of(app.screen, "#help")
                await pilot.press("2")  # keys do not reach the board while help is open
                await pilot.press("escape")
                await pilot.pause()
                return opened, type(app.screen).__name__, app.state["hand"]["rolls"], app.state["pending"]
        finally:
            app.session.close()

    (name, text), after, rolls, pending = asyncio.run(go())
    assert name == "HelpScreen" and "A roll is two presses" in text
    assert after == "Screen" and rolls == 0 and pending is None
    # The events pane's abbreviations and its most frequent line, explained.
    said = flat(text)
    for short, name in [
        ("Fire", "Fire Bet"),
        ("Small", "All Small"),
        ("Tall", "All Tall"),
        ("All", "Make 'Em All"),
        ("MEA", "Make 'Em All Progressive"),
        ("FiredUp", "Fired Up Progressive"),
    ]:
        assert "%s = %s" % (short, name) in said
    assert (
        '"lost: FiredUp 0": a roll that starts no Fired Up sequence while Fired Up is idle ends its cycle at level 0'
        in said
    )


def test_one_for_one_is_called_a_push_not_a_win():
    from crapsboard.rules import report
    from crapsboard.rules.engine import Table
    from sim.tui.text import event_text

    table = Table()
    table.roll(3, 3)
    table.roll(6, 6)  # Fired Up 6 then 12: one match, FUP-01 pays 1 for 1
    event = {"event": "roll", "t": 0, "seq": 2, "dice": [6, 6], "total": 12, "point": None, "shooter": 1}
    event["resolved"] = report.resolutions(table)
    assert event_text(event)[1] == "  PUSH FiredUp 1: 1 for 1, the stake back"
    event["resolved"] = [
        {
            "wager": "mea_progressive",
            "paytable": "PT-BJS-MEA-01",
            "level": 10,
            "outcome": "win",
            "returns": "meter",
            "pays": "meter",
            "unit": "for 1",
            "envy": None,
        }
    ]
    assert event_text(event)[1] == "  WIN MEA 10 pays the meter for 1"


def test_the_terminal_board_with_flash_survives_a_restart(tmp_path):
    image = str(tmp_path / "board.img")

    async def go(keys):
        app = tui.build("cpython", seed=1, flash=image)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                for key in keys:
                    await pilot.press(key)
                await pilot.pause()
                return text_of(app, "#hand")
        finally:
            app.session.close()

    first = asyncio.run(go(["2", "2", "3", "3"]))
    assert "point 4" in first
    again = asyncio.run(go([]))  # a restart of the same board: the hand is back
    assert "shooter 1 · point 4" in again and "RESTORED" in again


def test_the_floor_meter_and_why_it_is_closed_show_under_the_board():
    async def go():
        app = tui.build("cpython", seed=1)
        try:
            async with app.run_test(size=(120, 30)) as pilot:
                await pilot.pause()
                before = app.query_one("#board").border_subtitle
                app.press("floor:MEA:open:100000:shared floor:FUP:closed:5000")
                await pilot.pause()
                return before, app.query_one("#board").border_subtitle
        finally:
            app.session.close()

    before, after = asyncio.run(go())
    assert before == ""  # no floor heard: nothing
    assert after == "MEA $1,000.00 open, shared by winning wagers · FUP $50.00 closed: closed by the floor"
