# Power-up's heavy half, run once by main.py and then forgotten with its code:
# read the configuration, restore the table from the journal and build the
# app, importing the app's modules one at a time. It was main.py's; main.py
# is compiled from source at boot and its code stays in the heap while the
# app runs, so moving this here gives the app that heap back (~1.5 KB on the
# unix port; docs/board.md, Memory).
import gc


def load_layout():
    """The board's Layout from layout.json, or board.json on an older deploy."""
    from crapsboard import layout as lay

    try:
        layout = lay.load("layout.json")
    except OSError:  # not deployed (a broken one is a fault, never skipped)
        layout = lay.load("board.json")
    lay.release_parser()  # its code is never needed again
    return layout


def _held(board, *roles):
    from crapsboard import layout as lay

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
    from crapsboard import config as cfg

    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None  # no file: the defaults
    config = cfg.loads(text)
    cfg.release_parser()  # the checking code is not needed again
    return config


def forget(*names):
    # Drop modules needed only at power-up: once nothing refers to them, the
    # next collection frees their code (a later import would load them again).
    import sys

    import crapsboard

    for name in names:
        sys.modules.pop("crapsboard." + name, None)
        try:
            delattr(crapsboard, name)
        except (AttributeError, KeyError):  # not imported (MicroPython raises KeyError)
            pass
    gc.collect()


def forget_tables(config, table):
    # Every built table but those in force, and the specs of all of them.
    from crapsboard import paytables as pt

    pt.keep_only(config, table.config)
    forget("paytable_specs")


def restore(board, new_journal=False):
    """The configuration, the journal, the table restored from it (or a new
    journal started) and whether it was restored."""
    from crapsboard import board as hw

    return restore_in("", hw.board_id(), hw.reset_cause(), board, new_journal)


def restore_in(root, board_id, reset_cause, board, new_journal=False):
    """`restore` with the journal in `root` ("": the filesystem's root) of
    the board `board_id` (bytes), after a reset of cause `reset_cause`: the
    simulator's benchmark builds the app this way on its simulated board."""
    # Until the app is built, collect every 4 KB allocated: what the restore
    # and the imports keep then lands in the holes their garbage left, not
    # past it, where it would split the free heap into pieces too small for
    # the app; and the restore's garbage (a few hundred bytes a record)
    # never piles up beside the resident names and code (1 KB less heap than
    # every 8 KB, for a restore ~20% slower; docs/board.md, Memory).
    gc.threshold(4096)
    config = load_config("config.json")
    gc.collect()  # the parser's garbage, before the imports fill the heap around it (-1 KB with config.json)
    # The table is restored before the app's modules are imported: the
    # verifying code (journal_boot, journal_restore) and its read buffer use
    # the heap the app will need, and are dropped before it is imported.
    from crapsboard import journal as jn
    from crapsboard import journal_boot
    from crapsboard.engine import Table

    table = Table(config)
    # The tables in force are built. The specs and any other table built
    # (the defaults, while config.json was read) go before the restore: it
    # finds the tables its snapshots name among those built, and loads the
    # specs again only for a journal kept under another configuration.
    forget_tables(config, table)
    from crapsboard.link_key import read_key

    # The link key keys the journal's chain (journal_record.journal_key).
    journal = jn.Journal(root, board_id, key=read_key(root + "/link_key" if root else "link_key"))
    forget("link_key")
    gc.collect()  # the imports left holes: the restore's 2 KB read buffer needs a piece
    found = journal_boot.open_table_journal(table, journal, reset_cause, board.ticks_ms(), new_journal)
    del journal_boot
    # Run once: their code is freed for the app, with the journal's and the
    # snapshot's reading side, the configuration parser, and the tables of
    # the journal's past.
    forget("journal_boot", "journal_restore", "journal_read", "snapshot_read", "config_parse", "hmac256")
    forget_tables(config, table)
    # main.py loads the app's modules and builds the App once this module's
    # code is gone: they fill the holes it leaves, and the App's buffers are
    # the boot's peak.
    return config, journal, table, found == jn.RESTORED
