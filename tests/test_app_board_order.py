"""The board's power-up order under CPython (firmware/main.py): the journal is mounted and
the table restored first (crapsboard/boot/power_up.py `restore_in`), then the App is built
around them. What the journal restored reaches the App that way too: the PIN lockout
(docs/keys.md: three wrong PINs lock the PIN key for 60 s, across a power cut), the
last table event's HOLD (docs/link.md, `verified`) and the progressive wagers keyed
(docs/progressive.md). The simulator builds the App first and opens the journal on it
(crapsboard/journal/journal_boot.py `open_journal`): the HOLD and the progressive
wagers are checked that way too."""

import json

import pytest
from test_board_app import IDLE, LAYOUT, Clock, errors

from crapsboard.boot import power_up
from crapsboard.table import entry as en
from crapsboard.table import progressive as pg
from crapsboard.table.app import App
from sim.pin_hash import config_entry
from sim.portable.simboard import SimBoard

BOARD_ID = b"BOARD1"
WRONG, GOOD = "1357", "2468"


def power_up_board(folder):
    """firmware/main.py's order: restore, then the App on what was restored."""
    board = SimBoard(LAYOUT)
    board.down = IDLE
    config, journal, table, restored = power_up.restore_in(folder, BOARD_ID, 1, board)
    app = App(board, LAYOUT, config, journal, table)
    app.restored = restored
    return app, Clock(app, board)


def power_up_simulator(folder):
    """The simulator's order (sim/portable/run_core.py): the App first, then the
    journal opened on it (crapsboard/journal/journal_boot.py `open_journal`)."""
    from crapsboard.base.link_key import read_key
    from crapsboard.journal import journal as jn
    from crapsboard.journal import journal_boot

    board = SimBoard(LAYOUT)
    board.down = IDLE
    app = App(board, LAYOUT, power_up.load_config("config.json"))
    journal = jn.Journal(folder, BOARD_ID, key=read_key(folder + "/link_key"))
    journal_boot.open_journal(app, journal, 1, board.ticks_ms())
    return app, Clock(app, board)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # power_up reads config.json from the current folder, as on the board
    (tmp_path / "config.json").write_text(json.dumps({"supervisor_pin": config_entry(GOOD, b"board order")}))
    return str(tmp_path)


def test_a_pin_lockout_before_the_power_cut_refuses_the_good_pin_after_it(folder):
    app, clock = power_up_board(folder)
    for _ in range(3):
        clock.press("D")
        for digit in WRONG + "#":
            clock.press(digit)
        clock.run(2000)  # the error's 2 s
    assert errors(app) == [en.ERR_WRONG_PIN] * 3

    app, clock = power_up_board(folder)
    assert app.restored
    seq = app.seq
    clock.press("D")
    for digit in GOOD + "#":
        clock.press(digit)
    assert errors(app, seq) == [en.ERR_PIN_LOCKED]
    assert not app.entry.authorised(clock.t)


@pytest.mark.parametrize("power_up", [power_up_board, power_up_simulator], ids=["board", "simulator"])
def test_the_last_rolls_hold_is_the_restored_apps(folder, power_up):
    # Six Fire Bet points made: the sixth raises the Fire Bet's HOLD (rules/hold.py).
    app, clock = power_up(folder)
    clock.six_fire_points()
    held = (app.hold.journal, app.hold.seq, app.hold.wagers)
    assert held[0] > 0 and held[2] != 0  # journalled, and a HOLD raised

    app, clock = power_up(folder)
    assert (app.hold.journal, app.hold.seq, app.hold.wagers) == held


@pytest.mark.parametrize("power_up", [power_up_board, power_up_simulator], ids=["board", "simulator"])
def test_the_progressive_wagers_keyed_before_the_power_cut_are_in_action_after_it(folder, power_up):
    # docs/keys.md: `#`, the game, the count, `#` while the floor's meter is open.
    app, clock = power_up(folder)
    app.progressive.told(pg.MEA, pg.S_OPEN, 100_000, clock.t)
    for key in "#15#":
        clock.press(key)
    assert app.progressive.wagers(app.table, pg.MEA) == 5

    app, clock = power_up(folder)
    assert app.progressive.wagers(app.table, pg.MEA) == 5
