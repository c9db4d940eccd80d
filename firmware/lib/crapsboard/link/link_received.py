# The link's `received` (docs/link.md): the floor recorder's receipt for this
# board's journal up to a record, relayed by the table's gateway. Its proof is
# the receipt itself, an HMAC under the receipt key that only the recorder
# (and the link key's holder) can make: no counter, since a receipt replayed
# says nothing the board did not already know. The board then keeps every
# record the floor has not received (journal.Journal.maintain).
#
# Dispatched by link_app.py.
from crapsboard.link.link import LinkError


def received(handlers, request):
    from binascii import hexlify

    from crapsboard.link.link_auth import receipt_ok

    journal = handlers.app.journal
    if journal is None:
        raise LinkError("this board keeps no journal")
    jid, seq, head = request["journal"], request["seq"], request["head"]
    if jid != journal.journal_id or not 1 <= seq <= journal.seq:
        raise LinkError(
            "receipt refused: journal %d has records 1..%d, the receipt is for journal %d record %d"
            % (journal.journal_id, journal.seq, jid, seq)
        )
    # The last record's chain head is the board's own; an earlier one is the
    # recorder's word, which holds only records whose MACs it verified.
    if seq == journal.seq and head != hexlify(journal.hash).decode():
        raise LinkError("receipt refused: record %d's chain head is not %s" % (seq, head))
    key = handlers.link.key if handlers.link is not None else None
    if not receipt_ok(key, handlers.board_id, jid, seq, head, request["receipt"]):
        raise LinkError("receipt refused: not the recorder's receipt for journal %d up to record %d" % (jid, seq))
    journal.on_floor = True
    if seq > journal.received:
        journal.received = seq
    return {"received": journal.received}
