# Power-up: build the real board from board.json and run the app with asyncio.
#
# Deployed beside layout.json (the compact layout generated from
# hardware/board.json by `python -m sim device-layout`) and, optionally,
# config.json (operator configuration) in the filesystem root, the working
# directory at boot; the package goes to /lib/crapsboard as .mpy. A board with
# board.json and no layout.json (an older deploy) still starts from it.
#
# The status lamp goes white as soon as the board exists, before the heavy
# imports. Any failure before the app runs shows the fault pattern (status and
# alert lamps red) and resets after a few seconds; after three in a row the
# board holds the fault (crapsboard/startup.py). Safe mode: hold LAMP TEST
# with the supervisor keyswitch on while powering up: the status lamp goes
# violet and the REPL stays free (no app, no watchdog, which once started
# cannot be stopped).
#
# The journal (crapsboard/journal_boot.py): the table is restored from it and
# the status lamp shows "restored — verify" until a supervisor acknowledges; a
# journal that will not mount or verify is a start-up failure like any other.
# A supervisor starts a new journal by holding END HAND with the keyswitch on
# while powering up (the old one is kept as journal.old).
#
# The serial link (crapsboard/link_app.py, docs/link.md) runs beside the app
# on standard input and output, with the key in link_key and the counter in
# link_ctr. Maintenance mode: a file `maintenance` in the root, checked before
# anything of crapsboard beyond board and startup is imported, boots with no
# app and no watchdog (REPL free; status and alert lamps violet). Holding
# `once` (the link's maintenance command) it is removed at that boot, so the
# next reset plays again; holding `deploy` (written by host_tools deploy
# before it copies anything) it stays until the deploy has finished.
import micropython

micropython.alloc_emergency_exception_buf(100)

import gc  # noqa: E402

from crapsboard import board as hw  # noqa: E402
from crapsboard import startup  # noqa: E402


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


def load_layout(lay):
    try:
        return lay.load("layout.json")
    except OSError:  # not deployed (a broken one is a fault, never skipped)
        return lay.load("board.json")


def safe_mode_held(board, lay):
    return board.held_at_power_up(lay.BUTTONS.index("lamp_test")) and board.held_at_power_up(
        lay.BUTTONS.index("supervisor_key")
    )


def new_journal_held(board, lay):
    return board.held_at_power_up(lay.BUTTONS.index("end_hand")) and board.held_at_power_up(
        lay.BUTTONS.index("supervisor_key")
    )


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


def build_app(board, layout, new_journal=False):
    # Until the app is built, collect every 8 KB allocated: what the restore
    # and the imports keep then lands in the holes their garbage left, not
    # past it, where it would split the free heap into pieces too small for
    # the app (30,000 records restore 15% slower).
    gc.threshold(8192)
    config = load_config("config.json")
    # The table is restored before the app's modules are imported: the
    # verifying code (journal_boot, journal_restore) and its read buffer use
    # the heap the app will need, and are dropped before it is imported.
    from crapsboard import journal as jn
    from crapsboard import journal_boot
    from crapsboard.engine import Table

    table = Table(config)
    journal = jn.Journal("", hw.board_id())
    gc.collect()  # the imports left holes: the restore's 2 KB read buffer needs a piece
    found = journal_boot.open_table_journal(table, journal, hw.reset_cause(), board.ticks_ms(), new_journal)
    del journal_boot
    # Run once: their code is freed for the app, with the journal's and the
    # snapshot's reading side, the paytables' data (the tables in force are
    # built) and the configuration parser a snapshot used.
    forget("journal_boot", "journal_restore", "journal_read", "snapshot_read", "paytable_specs", "config_parse")
    # The app's modules one at a time, each import's garbage collected before
    # the next loads: what they keep then fills the holes instead of landing
    # between garbage that leaves holes too small for the app's buffers.
    for name in (
        "asyncio",
        "crapsboard.ticks",
        "crapsboard.keypad",
        "crapsboard.entry",
        "crapsboard.lamps",
        "crapsboard.app",
    ):
        __import__(name)
        gc.collect()
    from crapsboard.app import App

    gc.threshold(-1)
    gc.collect()  # loading the modules left holes: close them before the app's buffers
    app = App(board, layout, config, journal, table)
    app.restored = found == jn.RESTORED  # shown as "restored — verify" until acknowledged
    if new_journal:
        app.ignore_held_keys()  # the END HAND of the gesture ends no hand
    return app


def main():
    diag = startup.begin(hw.reset_cause())
    board = app = None
    mode = startup.maintenance_marker()
    if mode is not None:
        try:
            hw.show_maintenance()
        except Exception:  # the lamps are a courtesy: the REPL must be free whatever happens
            pass
        print("crapsboard: maintenance mode (" + mode[:16] + "); app not started, REPL free")
        return
    try:
        from crapsboard import layout as lay

        layout = load_layout(lay)
        lay.release_parser()  # its code is never needed again
        gc.collect()  # nor the parsed JSON: free both before the big imports
        board = hw.Board(layout)
        board.booting()
        if safe_mode_held(board, lay):
            board.safe_mode()
            print("crapsboard: safe mode (lamp test + keyswitch at power-up); app not started")
            return
        app = build_app(board, layout, new_journal_held(board, lay))
    except Exception as e:  # MemoryError, OSError, ValueError, ...: all alike
        if board is not None:
            board.fault()
        else:
            hw.show_fault_without_layout()
        hold = startup.failed(diag, e)
        print("crapsboard: start-up failed:", startup.describe(e), "(holding the fault)" if hold else "(resetting)")
        if not hold:
            hw.reset_after(startup.FAULT_RESET_MS)
        return
    startup.started(diag)
    link = link_args = None
    try:  # the link loads when a host speaks (crapsboard/link_wait.py); it never stops the table
        from crapsboard import link_wait as link

        link_args = (app, diag, hw.board_id(), hw.machine.reset)
    except Exception as e:
        print("crapsboard: link not started:", startup.describe(e))
    board.start_watchdog()
    import asyncio

    try:
        asyncio.run(app.run() if link is None else link.serve(app, link_args))
    except Exception as e:  # the watchdog, no longer fed, resets the board
        board.fault()
        startup.crashed(diag, e)
        print("crapsboard: app stopped:", startup.describe(e))


main()
