# Power-up: build the real board from board.json and run the app with asyncio.
#
# Deployed beside board.json (hardware/board.json) and, optionally,
# config.json (operator configuration) in the filesystem root, the working
# directory at boot; the package goes to /lib/crapsboard.
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
    return cfg.loads(text)


def safe_mode_held(board, lay):
    return board.held_at_power_up(lay.BUTTONS.index("lamp_test")) and board.held_at_power_up(
        lay.BUTTONS.index("supervisor_key")
    )


def new_journal_held(board, lay):
    return board.held_at_power_up(lay.BUTTONS.index("end_hand")) and board.held_at_power_up(
        lay.BUTTONS.index("supervisor_key")
    )


def build_app(board, layout, new_journal=False):
    config = load_config("config.json")
    # Compiling from source leaves the parser's garbage scattered through the
    # heap; collecting before the largest import keeps a contiguous block for it.
    gc.collect()
    from crapsboard.app import App

    app = App(board, layout, config)
    gc.collect()
    from crapsboard import journal as jn
    from crapsboard import journal_boot

    journal = jn.Journal("", hw.board_id())
    journal_boot.open_journal(app, journal, hw.reset_cause(), board.ticks_ms(), new_journal)
    if new_journal:
        app.ignore_held_keys()  # the END HAND of the gesture ends no hand
    return app


def main():
    diag = startup.begin(hw.reset_cause())
    board = app = None
    try:
        from crapsboard import layout as lay

        layout = lay.load("board.json")
        gc.collect()  # the parsed board.json is garbage now: free it before the big imports
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
    board.start_watchdog()
    import asyncio

    try:
        asyncio.run(app.run())
    except Exception as e:  # the watchdog, no longer fed, resets the board
        board.fault()
        startup.crashed(diag, e)
        print("crapsboard: app stopped:", startup.describe(e))


main()
