"""`journal-reset`: a new journal on the board, once the floor holds the old one.

The board starts a new journal only for a signed `journal_reset` that names
its journal id, last record and chain head and carries the floor recorder's
receipt for exactly those (docs/link.md, `journal_reset`). This command
gathers them: it downloads and verifies the whole journal as `log --verify`
does (every record's chain link and MAC under the board's journal key, and
the signed head against the newest this host saw), takes the receipt from
the recorder's retained `recorded` message on the floor's broker (a
technician's account) or from `--receipt HEX` (a board off the floor), and
sends the reset. Every refusal is one line and changes nothing on the board.
"""

import functools
import json
import os
import sys

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError, board_records, sync
from host_tools.commands import add_key_option, add_port_options, board_key, connect, emit

RECEIPT_WAIT_S = 5.0  # how long the broker may take to send the retained `recorded`


def add_arguments(parser):
    add_port_options(parser)
    add_key_option(parser)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--receipt", metavar="HEX", help="the recorder's receipt for the whole journal (off the floor)")
    source.add_argument("--broker", metavar="URL", help="mqtt[s]://HOST[:PORT]: read the receipt the recorder holds")
    parser.add_argument("--table", help="the board's table on the floor (--broker)")
    parser.add_argument("--floor", default="main", help="the floor's name in the topics (--broker; default main)")
    parser.add_argument("--user", help="your broker account, a technician's (--broker)")
    parser.add_argument("--password-file", help="that account's password (--broker; default: asked on a terminal)")
    parser.add_argument("--ca-file", help="mqtts:// only: the floor's CA certificate, PEM")


class Verified:
    """The journal as the host verified it: board id, journal id, last record, chain head (hex)."""

    def __init__(self, board, journal, seq, head):
        self.board, self.journal, self.seq, self.head = board, journal, seq, head


def verify_whole(link, key, key_file=None):
    """Verified for the board's whole journal, downloaded over `link` from the
    oldest record kept; HostToolError (exit 1) naming what failed."""
    hello = link.hello()
    board = hello.get("board")
    state = hello.get("journal")
    if not isinstance(state, dict) or not isinstance(state.get("seq"), int):
        raise HostToolError("the board keeps no journal: nothing to reset", EXIT_FAILED)
    if not state["seq"]:
        raise HostToolError("journal %s holds no records: nothing to reset" % state.get("id"), EXIT_FAILED)
    try:
        board_records.check_head(hello, key_file, functools.partial(sync.still_holds, link))
        _, last, chain = sync.download(link, 0, sync.PAGE, None, None, jr.Mac(jread.journal_key(key)))
    except HostToolError as e:
        raise HostToolError("download not verified: %s: nothing reset" % e, e.code)
    if last != state["seq"]:
        raise HostToolError(
            "download not verified: journal %d is at record %d, the download ended at record %d: nothing reset"
            % (state["id"], state["seq"], last),
            EXIT_FAILED,
        )
    return Verified(board, state["id"], last, chain.hex())


def check_receipt_text(text):
    """`text` if it is a receipt's form (64 hex digits), else HostToolError (exit 2)."""
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text.lower()):
        raise HostToolError("--receipt %r is not 64 hex digits" % text[:80], EXIT_USAGE)
    return text.lower()


def receipt_from_recorded(payload, verified):
    """The receipt in the recorder's `recorded` message (bytes) for `verified`'s
    journal, or HostToolError (exit 1) saying what the floor holds instead."""
    try:
        body = json.loads(payload.decode("utf-8"))
        journal, seq = body["journal"], body["seq"]
        board, jid = journal["board"], journal["id"]
    except (ValueError, TypeError, KeyError):
        raise HostToolError("the recorder's recorded message is not one: no receipt", EXIT_FAILED)
    if (board, jid) != (verified.board, verified.journal):
        raise HostToolError(
            "no receipt: the recorder's last journal of this table is board %s journal %s, not board %s journal %d"
            % (board, jid, verified.board, verified.journal),
            EXIT_FAILED,
        )
    if seq != verified.seq:
        behind = isinstance(seq, int) and seq < verified.seq
        raise HostToolError(
            "no receipt for the whole journal: the recorder holds journal %d up to record %s, the board is at"
            " record %d%s: nothing reset"
            % (
                verified.journal,
                seq,
                verified.seq,
                "; let its gateway carry the rest, then run again" if behind else "",
            ),
            EXIT_FAILED,
        )
    if body.get("hash") != verified.head:
        raise HostToolError(
            "no receipt: the recorder's record %d has chain hash %s, the board's %s: nothing reset"
            % (seq, body.get("hash"), verified.head),
            EXIT_FAILED,
        )
    if not isinstance(body.get("receipt"), str):
        raise HostToolError(
            "no receipt: the recorder holds journal %d up to record %d but signs no receipt (it holds no receipt"
            " key for the table: `floor provision`)" % (jid, seq),
            EXIT_FAILED,
        )
    return body["receipt"]


def _password(args):
    if args.password_file:
        from host_tools.floor.base import floordir

        return floordir.read_password_file(args.password_file)
    if not sys.stdin.isatty():
        raise HostToolError("--broker needs --password-file FILE (no terminal to ask on)", EXIT_USAGE)
    import getpass

    return getpass.getpass("%s's broker password: " % args.user)


def receipt_from_broker(args, verified):
    """The recorder's receipt for `verified`, read from its retained `recorded` on the broker."""
    from host_tools.floor.base import topics
    from host_tools.floor.bus import mqtt, retained

    if not args.table or not args.user:
        raise HostToolError("--broker needs --table T and --user NAME", EXIT_USAGE)
    try:
        topic = topics.table(topics.check_name("floor", args.floor), topics.check_name("table", args.table), "recorded")
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    tls = mqtt.tls_context(args.broker, args.ca_file)
    payload = retained.first(args.broker, args.user, _password(args), topic, RECEIPT_WAIT_S, tls)
    if payload is None:
        raise HostToolError(
            "no receipt: the broker holds no recorded message for table %s (no record of it reached the recorder):"
            " nothing reset" % args.table,
            EXIT_FAILED,
        )
    return receipt_from_recorded(payload, verified)


def reset(link, key, verified, receipt):
    """Send the signed journal_reset for `verified` with `receipt`; the board's reply."""
    return link.signed(
        "journal_reset", key, journal=verified.journal, seq=verified.seq, head=verified.head, receipt=receipt
    )


def run(args):
    receipt = check_receipt_text(args.receipt) if args.receipt is not None else None
    if args.receipt is not None and (args.table or args.user or args.password_file):
        raise HostToolError("--table, --user and --password-file go with --broker", EXIT_USAGE)
    if args.password_file and not os.path.exists(args.password_file):
        raise HostToolError("cannot read password file %s: no such file" % args.password_file, EXIT_USAGE)
    with connect(args) as link:
        key = board_key(link, args.key)
        verified = verify_whole(link, key, args.key)
        if receipt is None:
            receipt = receipt_from_broker(args, verified)
        reply = reset(link, key, verified, receipt)
    new = reply.get("journal") or {}
    emit(
        args,
        dict(reply, old={"journal": verified.journal, "seq": verified.seq, "head": verified.head}),
        lambda r: [
            "board %s: journal %d (up to record %d, chain head %s) held by the floor; journal %s started"
            % (verified.board, verified.journal, verified.seq, verified.head, new.get("id"))
        ],
    )


COMMANDS = {
    "journal-reset": (
        add_arguments,
        run,
        "a new journal, once the whole old one is verified here and the recorder's receipt holds it (signed)",
    )
}
