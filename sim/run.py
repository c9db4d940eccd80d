"""`python -m sim run --keys "3 4 6 6"`: the firmware app on a simulated board.

Presses the keys of a key script (docs/keys.md) on a simulated clock and
prints one line of JSON: status, hand, the events that happened and every
lamp after the last key. The same bytes under --runtime cpython and micropython.
"""

import json
import sys

from crapsboard.table import layout as lay
from sim import board_svg, runtime
from sim.cli import ArgumentParser, CommandError, load_config_text, read_text
from sim.paths import BOARD_JSON
from sim.session import HEAPSIZE, KeyScriptError, Session, SessionError


def run(
    keys,
    runtime_name="cpython",
    config_text=None,
    board_path=BOARD_JSON,
    heapsize=None,
    flash=None,
    cut_after=0,
    new_journal=False,
):
    """The state JSON text after the key script (KeyScriptError: nothing run)."""
    with Session(
        runtime_name,
        config_text,
        board_path,
        heapsize=heapsize,
        flash=flash,
        cut_after=cut_after,
        new_journal=new_journal,
    ) as session:
        return session.send_text(keys)


def build_parser():
    parser = ArgumentParser(prog="python -m sim run", description=__doc__.split("\n\n")[0])
    keys = parser.add_mutually_exclusive_group(required=True)
    keys.add_argument("--keys", help='key script, e.g. "3 4 6 6 key:on undo" (docs/keys.md)')
    keys.add_argument("--keys-file", metavar="FILE", help="read the key script from FILE (- for stdin)")
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (docs/engine.md)")
    parser.add_argument("--heap", metavar="SIZE", help="the MicroPython VM's heap, e.g. 96K (default %s)" % HEAPSIZE)
    parser.add_argument("--board", metavar="FILE", default=BOARD_JSON, help="board description (hardware/board.json)")
    parser.add_argument("--svg", metavar="FILE", help="also draw the lit board into FILE")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON")
    parser.add_argument(
        "--flash",
        metavar="FILE",
        help="keep the board's flash (its journal) in FILE: each run is a reboot of one board",
    )
    parser.add_argument(
        "--cut-after-writes",
        metavar="K",
        type=int,
        default=0,
        help="with --flash: cut the power after the K-th block program or erase (left half done); the run ends there",
    )
    parser.add_argument(
        "--new-journal",
        action="store_true",
        help="with --flash: power up with END HAND held and the keyswitch on (a supervisor starts a new journal)",
    )
    return parser


def heap_option(text, runtime_name):
    """--heap SIZE checked for `runtime_name`: the VM's heapsize, or None when not given."""
    if text is None:
        return None
    if runtime_name != "micropython":
        raise CommandError("--heap sets the MicroPython VM's heap: use it with --runtime micropython")
    try:
        return runtime.heap_size(text)
    except ValueError as e:
        raise CommandError(str(e))


def _script(args):
    if args.keys is not None:
        return args.keys
    if args.keys_file == "-":
        try:
            return sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError as e:
            raise CommandError("the key script on stdin is not UTF-8 text (byte %d)" % e.start)
    return read_text(args.keys_file, "key script")


def main(argv):
    args = build_parser().parse_args(argv)
    heapsize = heap_option(args.heap, args.runtime)
    config_text = load_config_text(args.config) if args.config else None
    read_text(args.board, "board description")  # missing, a directory, not UTF-8: said here
    if args.flash is None and (args.cut_after_writes or args.new_journal):
        raise CommandError("--cut-after-writes and --new-journal need --flash FILE")
    if args.cut_after_writes < 0:
        raise CommandError("--cut-after-writes must be 1 or more")
    try:
        text = run(
            _script(args),
            args.runtime,
            config_text,
            args.board,
            heapsize,
            args.flash,
            args.cut_after_writes,
            args.new_journal,
        )
    except (KeyScriptError, SessionError, lay.LayoutError, runtime.RuntimeMissing) as e:
        raise CommandError(str(e))
    state = json.loads(text)
    if args.svg:
        board_svg.write(args.svg, args.board, state)
    print(json.dumps(state, indent=1) if args.pretty else text)
    return 0
