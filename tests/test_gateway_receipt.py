"""The gateway's receipt side (host_tools/floor/gateway/receipt.py): a receipt
of the recorder's `recorded` goes to the board once per opened link, and only
for a record the gateway read from that board with the receipt's chain hash;
none after a `recorded` without one. A board erased and deployed again numbers
its new journal as the old one: the old journal's receipt, relayed, would say
the floor holds records it never received, and the board cannot tell it from
its own below its last record (docs/link.md, `received`)."""

from host_tools.floor.gateway.receipt import ReceiptSide

BOARD = "240ac4000001"
OLD_CHAIN, NEW_CHAIN = "ab" * 32, "ef" * 32


class _Link:
    """What the gateway sent to the board."""

    def __init__(self):
        self.sent = []

    def request(self, cmd, **args):
        self.sent.append((cmd, args))
        return {"received": args["seq"]}


class _Gateway(ReceiptSide):
    def __init__(self, read=None):
        self.table = "T1"
        self.hello = {"board": BOARD}
        self.link = _Link()
        self.chains = dict(read or {})  # what board.py's _fetch read from the board
        self._receipt_init()


def recorded(seq, chain=OLD_CHAIN, erased=None):
    body = {"table": "T1", "journal": {"board": BOARD, "id": 1 if seq else 0}, "seq": seq}
    if chain:
        body.update(hash=chain, receipt="cd" * 32)
    if erased is not None:
        body["erased"] = erased
    return body


def seqs(g):
    return [args["seq"] for _, args in g.link.sent]


def test_a_receipt_goes_to_the_board_once_per_link():
    g = _Gateway({(1, 6): OLD_CHAIN})
    g._receipt_message(recorded(6))
    g._relay_receipt()
    g._relay_receipt()
    assert g.link.sent == [("received", {"journal": 1, "seq": 6, "head": OLD_CHAIN, "receipt": "cd" * 32})]
    g.link = _Link()  # the board reopened (rebooted): it hears the latest again
    g._relay_receipt()
    assert seqs(g) == [6]


def test_a_receipt_for_a_record_not_read_from_this_board_with_its_chain_is_not_relayed():
    g = _Gateway({(1, 6): NEW_CHAIN})  # the erased board's new journal 1, read up to record 6
    g._receipt_message(recorded(6))  # the floor's receipt for the old journal 1 up to record 6
    g._relay_receipt()
    g._receipt_message(recorded(7))  # a record not read from this board yet
    g._relay_receipt()
    assert g.link.sent == []
    g.chains[(1, 7)] = OLD_CHAIN  # read now: the receipt goes once
    g._relay_receipt()
    g._relay_receipt()
    assert seqs(g) == [7]


def test_after_a_board_erased_step_the_old_journals_receipt_is_never_relayed():
    g = _Gateway({(1, 3): NEW_CHAIN, (1, 6): OLD_CHAIN})
    g._receipt_message(recorded(6))
    g._receipt_message(recorded(0, chain=None, erased=1))  # the floor holds none of the new journal
    g.link = _Link()
    g._relay_receipt()
    assert g.link.sent == []
    g._receipt_message(recorded(3, chain=NEW_CHAIN, erased=1))  # the new journal's own receipt
    g._relay_receipt()
    assert seqs(g) == [3]


def test_the_gateway_keeps_the_chains_of_the_last_1024_records_it_read():
    from host_tools.floor.gateway.board import CHAINS_KEPT, BoardSide

    assert CHAINS_KEPT == 1024
    side = BoardSide()
    side.chains = {}
    for seq in range(1, 1501):
        side._read_chain(1, seq, "%064x" % seq)
    assert len(side.chains) == 1024 and min(side.chains) == (1, 477) and side.chains[(1, 1500)] == "%064x" % 1500
