# The app's event records as JSON text, byte-identical on every runtime.
#
# An event is (seq, t, kind, arg): kind is an entry.ACT_* code, arg its one
# small int (dice d1 * 8 + d2, error reason, who authorised, dropped die).
# `event_json` is called right after the event, while the table still holds
# its resolutions; the simulator prints it and a journal can store it.
from collections import OrderedDict

from crapsboard.rules import report
from crapsboard.table import entry as en
from crapsboard.table import progressive as pg

KIND_NAMES = (
    "none",
    "roll",
    "undo",
    "end_hand",
    "lamp_test",
    "error",
    "supervisor_on",
    "supervisor_off",
    "clear",
)
PROG_KIND_NAMES = ("prog_wager", "prog_hit", "prog_void")  # kinds 23-25 (entry.ACT_PROG_*): arg game << 8 | count


def _state(record, table):
    record["shooter"] = table.shooter
    record["point"] = report.or_null(table.point)
    record["rolls"] = table.rolls


def _undid(table, undone_seq):
    # The event an undo took back: its sequence number and dice, or end hand.
    record = OrderedDict()
    record["seq"] = undone_seq
    code = table.undone
    if code:
        record["event"] = KIND_NAMES[en.ACT_ROLL]
        record["dice"] = [code >> 3, code & 7]
        record["total"] = (code >> 3) + (code & 7)
    else:
        record["event"] = KIND_NAMES[en.ACT_END_HAND]
    return record


def event_record(table, seq, kind, arg, t, undone_seq=0):
    """One event record as an ordered dict; `table` is the table just after
    the event; `undone_seq` is the seq of the event an undo took back."""
    record = OrderedDict()
    record["seq"] = seq
    record["t"] = t
    if kind >= en.ACT_PROG_WAGER:
        record["event"] = PROG_KIND_NAMES[kind - en.ACT_PROG_WAGER]
        record["game"] = pg.GAMES[arg >> 8]
        record["count"] = arg & 0xFF
        return record
    record["event"] = KIND_NAMES[kind]
    if kind == en.ACT_ROLL:
        d1 = arg >> 3
        d2 = arg & 7
        record["dice"] = [d1, d2]
        record["total"] = d1 + d2
        _state(record, table)
        record["resolved"] = report.resolutions(table)
    elif kind == en.ACT_UNDO:
        record["via"] = en.VIA_NAMES[arg]
        record["undid"] = _undid(table, undone_seq)
        _state(record, table)
        record["reversed"] = report.reversed_resolutions(table)
    elif kind == en.ACT_END_HAND:
        record["via"] = en.VIA_NAMES[arg]
        _state(record, table)
        record["resolved"] = report.resolutions(table)
    elif kind == en.ACT_ERROR:
        record["reason"] = en.ERROR_NAMES[arg]
    elif kind == en.ACT_AUTH_ON or kind == en.ACT_AUTH_OFF:
        record["via"] = en.VIA_NAMES[arg]
    elif kind == en.ACT_CLEAR:
        record["die"] = arg
    return record


def event_json(table, seq, kind, arg, t, undone_seq=0):
    """One event record as JSON text."""
    return report.dumps(event_record(table, seq, kind, arg, t, undone_seq))
