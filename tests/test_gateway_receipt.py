"""The gateway's receipt side (host_tools/floor/gateway/receipt.py): each
receipt of the recorder's `recorded` goes to the board once per opened link,
and none after a `recorded` without one (a board-erased step: the new journal
may reuse the old one's number, and an old receipt would say the floor holds
records it never received)."""

from host_tools.floor.gateway.receipt import ReceiptSide

BOARD = "240ac4000001"


class _Link:
    def __init__(self):
        self.sent = []

    def request(self, cmd, **args):
        self.sent.append((cmd, args))
        return {"received": args["seq"]}


class _Gateway(ReceiptSide):
    def __init__(self):
        self.table = "T1"
        self.hello = {"board": BOARD}
        self.link = _Link()
        self._receipt_init()


def recorded(seq, receipt=True, erased=None):
    body = {"table": "T1", "journal": {"board": BOARD, "id": 1 if seq else 0}, "seq": seq}
    if receipt:
        body.update(hash="ab" * 32, receipt="cd" * 32)
    if erased is not None:
        body["erased"] = erased
    return body


def test_a_receipt_goes_to_the_board_once_per_link():
    g = _Gateway()
    g._receipt_message(recorded(6))
    g._relay_receipt()
    g._relay_receipt()
    assert g.link.sent == [("received", {"journal": 1, "seq": 6, "head": "ab" * 32, "receipt": "cd" * 32})]
    g.link = _Link()  # the board reopened (rebooted): it hears the latest again
    g._relay_receipt()
    assert [args["seq"] for _, args in g.link.sent] == [6]


def test_after_a_board_erased_step_the_old_journals_receipt_is_never_relayed():
    g = _Gateway()
    g._receipt_message(recorded(6))
    g._receipt_message(recorded(0, receipt=False, erased=1))  # the floor holds none of the new journal
    g.link = _Link()
    g._relay_receipt()
    assert g.link.sent == []
    g._receipt_message(recorded(3, erased=1))  # the new journal's own receipt
    g._relay_receipt()
    assert [args["seq"] for _, args in g.link.sent] == [3]
