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
# board holds the fault (crapsboard/boot/startup.py). Safe mode: hold LAMP TEST
# with the supervisor keyswitch on while powering up: the status lamp goes
# violet and the REPL stays free (no app, no watchdog, which once started
# cannot be stopped).
#
# The journal (crapsboard/journal/journal_boot.py): the table is restored from it and
# the status lamp shows "restored — verify" until a supervisor acknowledges; a
# journal that will not mount or verify is a start-up failure like any other.
# A supervisor starts a new journal by holding END HAND with the keyswitch on
# while powering up (the old one is kept as journal.old).
#
# The serial link (crapsboard/link/link_app.py, docs/link.md) runs beside the app
# on standard input and output, with the key in link_key and the counter in
# link_ctr. Maintenance mode: a file `maintenance` in the root, checked before
# anything of crapsboard beyond board and startup is imported, boots with no
# app and no watchdog (REPL free; status and alert lamps violet). Holding
# `once` (the link's maintenance command) it is removed at that boot, so the
# next reset plays again; holding `deploy` (written by host_tools deploy
# before it copies anything) it stays until the deploy has finished.
#
# Every module the table needs is imported here once and kept (the board's
# PSRAM heap has room: docs/board.md, Memory); only the link is loaded while a
# host talks and dropped again (crapsboard/base/modules.py).
# The REPL is shut while the table plays once the board has a key
# (startup.shut_repl; docs/device.md): the ways in are maintenance and safe mode.
import micropython

micropython.alloc_emergency_exception_buf(100)

import gc  # noqa: E402

from crapsboard.boot import startup  # noqa: E402
from crapsboard.table import board as hw  # noqa: E402

# The table's modules, leaves first (tests/test_firmware_imports.py checks the
# order): an import that finds what it imports loaded already does not nest,
# and nested imports are where the C stack runs deepest at power-up
# (docs/board.md, Memory: the stack).
LEAF_FIRST = (
    "crapsboard.base.files",
    "crapsboard.base.ticks",
    "crapsboard.rules.paytable",
    "crapsboard.rules.paytable_specs",
    "crapsboard.rules.paytables",
    "crapsboard.rules.config_type",
    "crapsboard.rules.engine",
    "crapsboard.rules.hold",
    "crapsboard.rules.config_parse",
    "crapsboard.rules.config",
    "crapsboard.journal.journal_record",
    "crapsboard.journal.journal_codes",
    "crapsboard.journal.journal_read",
    "crapsboard.journal.snapshot",
    "crapsboard.journal.snapshot_read",
    "crapsboard.journal.journal_restore",
    "crapsboard.table.layout_names",
    "crapsboard.table.layout_parse",
    "crapsboard.table.layout",
)


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
    shut = startup.shut_repl()
    startup.measure_firmware()
    try:
        for name in LEAF_FIRST:  # each import finds its imports loaded: none nests deep
            __import__(name)
        from crapsboard.boot import power_up

        layout = power_up.load_layout()
        board = hw.Board(layout)
        board.booting()
        if power_up.safe_mode(board):
            return
        new_journal = power_up.new_journal_held(board)
        config, journal, table, restored = power_up.restore(board, new_journal)
        from crapsboard.table.app import App

        app = App(board, layout, config, journal, table)
        app.restored = restored  # shown as "restored — verify" until acknowledged
        if new_journal:
            app.ignore_held_keys()  # the END HAND of the gesture ends no hand
        gc.collect()  # the restore's garbage, before play starts
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
    try:  # the link loads when a host speaks (crapsboard/link/link_wait.py); it never stops the table
        from crapsboard.link import link_wait as link

        link.BREAK_IN = not shut
        link_args = (app, diag, hw.board_id(), hw.machine.reset)
    except Exception as e:
        print("crapsboard: link not started:", startup.describe(e))
    board.start_watchdog()
    import asyncio

    try:
        asyncio.run(app.run() if link is None else link.serve(app, link_args))
    except Exception as e:
        board.fault()
        startup.crashed(diag, e)
        print("crapsboard: app stopped:", startup.describe(e))
        hw.reset_after(startup.FAULT_RESET_MS)


main()
