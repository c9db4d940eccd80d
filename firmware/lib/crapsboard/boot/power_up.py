# Power-up's steps after the maintenance check, called by main.py in order:
# read the layout, check the power-up gestures (safe mode, a new journal),
# read the configuration and restore the table from the journal. main.py then
# builds the app around what they return.
#
# Imported by main.py only once the maintenance marker is ruled out, so a
# board whose deploy was cut half-way (a broken .mpy here or below) still
# boots to maintenance mode. The rules and the journal are imported by the
# steps that use them, after the board exists: its status lamp is white
# while they load.
from crapsboard.table import layout as lay


def load_layout():
    """The board's Layout from layout.json, or board.json on an older deploy."""
    try:
        return lay.load("layout.json")
    except OSError:  # not deployed (a broken one is a fault, never skipped)
        return lay.load("board.json")


def _held(board, *roles):
    for role in roles:
        if not board.held_at_power_up(lay.BUTTONS.index(role)):
            return False
    return True


def safe_mode(board):
    """Safe mode (LAMP TEST held with the supervisor keyswitch on at power-up):
    True, and the board shows it; the app is not started."""
    if not _held(board, "lamp_test", "supervisor_key"):
        return False
    board.safe_mode()
    print("crapsboard: safe mode (lamp test + keyswitch at power-up); app not started")
    return True


def new_journal_held(board):
    """END HAND held with the supervisor keyswitch on at power-up: a new journal."""
    return _held(board, "end_hand", "supervisor_key")


def load_config(path):
    """The Config in `path`, or None (the defaults) when there is no such file."""
    from crapsboard.rules import config as cfg

    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None  # no file: the defaults
    return cfg.loads(text)


def restore(board, new_journal=False):
    """The configuration, the journal, the table restored from it (or a new
    journal started) and whether it was restored."""
    from crapsboard.table import board as hw

    return restore_in("", hw.board_id(), hw.reset_cause(), board, new_journal)


def restore_in(root, board_id, reset_cause, board, new_journal=False):
    """`restore` with the journal in `root` ("": the filesystem's root) of
    the board `board_id` (bytes), after a reset of cause `reset_cause`: the
    simulator's benchmark builds the app this way on its simulated board."""
    from crapsboard.base.link_key import read_key
    from crapsboard.journal import journal as jn
    from crapsboard.journal import journal_boot
    from crapsboard.rules.engine import Table

    config = load_config("config.json")
    table = Table(config)
    # The link key keys the journal's chain (journal_read.journal_key).
    journal = jn.Journal(root, board_id, key=read_key(root + "/link_key" if root else "link_key"))
    found = journal_boot.open_table_journal(table, journal, reset_cause, board.ticks_ms(), new_journal)
    return config, journal, table, found == jn.RESTORED
