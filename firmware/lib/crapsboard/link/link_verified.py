# The link's `verified` (docs/link.md): a HOLD cleared by surveillance, sent
# down by the floor's page through the table's gateway, signed with this
# board's key (link.Link has checked the tag and used up the counter before
# this runs). The HOLD must be the table's last event (app.hold, kept by the
# app and restored from the journal); the clearance is journalled (kind 22,
# in the chain the floor keeps) before the lamps show "verified — pay".
#
# Dispatched by link_app.py.
from micropython import const

from crapsboard.link.link import LinkError
from crapsboard.link.link_json import encode

VERIFIED = const(22)  # journal_record.VERIFIED
BY_MAX = const(32)
ALERT_MAX = const(48)


def _name_ok(text, most):
    # Letters, digits, '-' and '_': what the floor's names and alert ids are made of.
    if not 1 <= len(text) <= most:
        return False
    for c in text:
        if not (c.isalpha() or c.isdigit() or c in "-_") or ord(c) > 126:
            return False
    return True


def verified(handlers, request):
    by = request["by"]
    alert = request["alert"]
    if not _name_ok(by, BY_MAX):
        raise LinkError("by must be 1 to %d letters, digits, '-' or '_'" % BY_MAX)
    if not _name_ok(alert, ALERT_MAX):
        raise LinkError("alert must be 1 to %d letters, digits, '-' or '_'" % ALERT_MAX)
    app = handlers.app
    journal = app.journal
    if journal is None:
        raise LinkError("this board keeps no journal")
    jid = journal.journal_id
    seq = request["seq"]
    if request["journal"] != jid:
        raise LinkError("not this journal: the board's journal is %d" % jid)
    hold = app.hold
    # A HOLD raised in an earlier journal (before a journal_reset) is none of
    # this journal's: until its first table event nothing here is a HOLD.
    if hold.journal == jid and seq < hold.seq:
        raise LinkError("that hand has moved on: record %d, a roll, undo or hand end, came after it" % hold.seq)
    if hold.journal != jid or seq != hold.seq or not hold.wagers:
        raise LinkError("not a HOLD: record %d made no 6th point and no top award" % seq)
    if hold.verified:
        raise LinkError("already verified")
    # arg: the HOLD's seq in 16 bits (a record's arg); the payload names it whole.
    payload = encode({"alert": alert, "by": by, "seq": seq}, True).encode()
    if not app.record(VERIFIED, seq & 0xFFFF, handlers.now(), payload):
        raise LinkError("the journal could not record it: nothing changed")
    hold.verified = True
    return {"seq": journal.seq}
