"""`python -m host_tools board-erased --port PORT --by NAME`: the technician's
step for a board whose flash was erased (re-flashed, or replaced by a board
with the same chip id) and which now starts its journals again: this host
then checks the board against its new journal head, not the one it saw
before the erase (host_tools/board_records.py). The floor's own record of
the step is `floor board-erased` (docs/floor.md)."""

from host_tools import board_records
from host_tools.commands import add_key_option, add_port_options
from host_tools.link import BoardLink


def _arguments(parser):
    add_port_options(parser, json_option=False)
    add_key_option(parser)
    parser.add_argument("--by", required=True, help="the technician's name, kept with the step")


def _run(args):
    import functools

    from host_tools import sync

    with BoardLink(args.port, timeout=args.timeout) as link:
        hello = link.hello()
        print(board_records.erased_board(hello, args.by, args.key, functools.partial(sync.still_holds, link)))


COMMANDS = {
    "board-erased": (
        _arguments,
        _run,
        "record that the board's flash was erased: its journals start again (the technician's step)",
    )
}
