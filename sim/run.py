"""`python -m sim run --keys "3 4 6 6"`: the firmware app on a simulated board.

Presses the keys of a key script (docs/keys.md) on a simulated clock and
prints one line of JSON: status, hand, the events that happened and every
lamp after the last key. The same bytes under --runtime cpython and micropython.
"""

import argparse
import json
import sys

from crapsboard import config as cfg
from sim import board_svg
from sim.replay import load_config_text
from sim.session import BOARD_JSON, KeyScriptError, Session, SessionError


def run(keys, runtime="cpython", config_text=None, board_path=BOARD_JSON):
    """The state JSON text after the key script (KeyScriptError: nothing run)."""
    with Session(runtime, config_text, board_path) as session:
        return session.send_text(keys)


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m sim run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", required=True, help='key script, e.g. "3 4 6 6 key:on undo" (docs/keys.md)')
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (docs/engine.md)")
    parser.add_argument("--board", metavar="FILE", default=BOARD_JSON, help="board description (hardware/board.json)")
    parser.add_argument("--svg", metavar="FILE", help="also draw the lit board into FILE")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON")
    return parser


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        config_text = load_config_text(args.config) if args.config else None
        text = run(args.keys, args.runtime, config_text, args.board)
    except (KeyScriptError, cfg.ConfigError, SessionError, OSError, ValueError) as e:
        print("run: " + str(e), file=sys.stderr)
        return 2
    state = json.loads(text)
    if args.svg:
        try:
            board_svg.write(args.svg, args.board, state)
        except OSError as e:
            print("run: cannot write " + args.svg + ": " + str(e), file=sys.stderr)
            return 2
    print(json.dumps(state, indent=1) if args.pretty else text)
    return 0
