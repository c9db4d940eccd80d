"""The gateway's receipt side: the recorder's receipt down to the board.

    recorded (retained, the recorder's) --> gateway --`received`--> board

The recorder's retained `recorded` carries its receipt for the table's
journal up to a record (docs/floor.md). The gateway sends it to the board
unchanged as a `received` request: the receipt is its own proof, which the
gateway cannot make (docs/link.md). A board that has accepted one keeps
every record the floor has not received. Each receipt goes to each opened
link once (a rebooted board hears the latest again), and only once the
gateway has read that record from the board with the receipt's chain hash;
a refusal is logged once and not retried.

Mixed into Gateway, which calls _receipt_init, _receipt_message (paho's
thread, each `recorded`) and _relay_receipt (its loop, with the board up).
"""

from host_tools import EXIT_BOARD_OUT_OF_MEMORY, EXIT_NO_BOARD, HostToolError
from host_tools.floor.gateway.board import log


class ReceiptSide:
    def _receipt_init(self):
        self.receipt = None  # (board, journal, seq, hash, receipt) of the latest `recorded`
        self.receipt_sent = None  # (link, receipt) last sent: once per opened link

    def _receipt_message(self, obj):
        try:
            j = obj["journal"]
            got = (j["board"], int(j["id"]), int(obj["seq"]), obj["hash"], obj["receipt"])
        except (KeyError, TypeError, ValueError):
            # A `recorded` without a receipt: the recorder holds no receipt key, or none of the
            # board's journal after a board-erased step. The last receipt is then the old
            # journal's, whose number the new journal may reuse: never relayed again.
            self.receipt = None
            return
        if all(isinstance(v, str) for v in (got[0], got[3], got[4])):
            self.receipt = got

    def _relay_receipt(self):
        got = self.receipt
        if got is None or self.receipt_sent == (self.link, got):
            return
        board, jid, seq, chain, tag = got
        if self.hello is None or self.hello.get("board") != board:
            return  # another board's journal: the one on the port is not the one recorded
        if self.chains.get((jid, seq)) != chain:
            # Not a record read from this board since it opened, or read with another chain: a
            # board erased and deployed again numbers its new journal as the old one, whose
            # receipt it cannot tell from its own below its last record. Relayed once read.
            return
        self.receipt_sent = (self.link, got)
        try:
            self.link.request("received", journal=jid, seq=seq, head=chain, receipt=tag)
        except HostToolError as e:
            if e.code in (EXIT_NO_BOARD, EXIT_BOARD_OUT_OF_MEMORY):
                self.receipt_sent = None  # sent again once the board can take it
                if e.code == EXIT_NO_BOARD:
                    raise
                return
            log(self.table, "the board refused the recorder's receipt for journal %d record %d: %s" % (jid, seq, e))
