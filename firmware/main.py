# Power-up: build the real board from board.json and run the app with asyncio.
#
# Deployed beside board.json (hardware/board.json) and, optionally,
# config.json (operator configuration) in the filesystem root, the working
# directory at boot; the package goes to /lib/crapsboard.
# Hold the lamp-test button while powering up to stay at the REPL instead:
# no app, no watchdog (which, once started, cannot be stopped).
import micropython

micropython.alloc_emergency_exception_buf(100)

import asyncio  # noqa: E402
import gc  # noqa: E402

from crapsboard import config as cfg  # noqa: E402
from crapsboard import layout as lay  # noqa: E402

# Compiling from source leaves the parser's garbage scattered through the heap;
# collecting before the largest import keeps a contiguous block for it.
gc.collect()
from crapsboard.app import App  # noqa: E402
from crapsboard.board import Board  # noqa: E402

_LAMP_TEST = lay.BUTTONS.index("lamp_test")


def load_config(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None  # no file: the defaults
    return cfg.loads(text)


def main():
    layout = lay.load("board.json")
    board = Board(layout)
    if board.held_at_power_up(_LAMP_TEST):
        print("crapsboard: lamp test held at power-up; app not started (safe mode)")
        return
    try:
        config = load_config("config.json")
    except cfg.ConfigError as e:
        board.fault()
        print("crapsboard: config.json refused:", e)
        return
    app = App(board, layout, config)
    board.start_watchdog()
    asyncio.run(app.run())


main()
