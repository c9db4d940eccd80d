# The app's event records as JSON text, byte-identical on every runtime.
#
# An event is (seq, t, kind, arg): kind is an entry.ACT_* code, arg its one
# small int (dice d1 * 8 + d2, error reason, who authorised, dropped die).
# `event_json` is called right after the event, while the table still holds
# its resolutions; the simulator prints it and a journal can store it.
from crapsboard import entry as en
from crapsboard import report

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


def _state(table):
    return (
        ', "shooter": '
        + str(table.shooter)
        + ', "point": '
        + report.number_or_null(table.point)
        + ', "rolls": '
        + str(table.rolls)
    )


def event_json(table, seq, kind, arg, t):
    """One event record; `table` is the table just after the event."""
    text = '{"seq": ' + str(seq) + ', "t": ' + str(t) + ', "event": "' + KIND_NAMES[kind] + '"'
    if kind == en.ACT_ROLL:
        d1 = arg >> 3
        d2 = arg & 7
        text += ', "dice": [' + str(d1) + ", " + str(d2) + '], "total": ' + str(d1 + d2)
        text += _state(table) + ', "resolved": ' + report.resolved_json(table)
    elif kind == en.ACT_UNDO:
        text += ', "via": "' + en.VIA_NAMES[arg] + '"' + _state(table)
    elif kind == en.ACT_END_HAND:
        text += ', "via": "' + en.VIA_NAMES[arg] + '"' + _state(table)
        text += ', "resolved": ' + report.resolved_json(table)
    elif kind == en.ACT_ERROR:
        text += ', "reason": "' + en.ERROR_NAMES[arg] + '"'
    elif kind == en.ACT_AUTH_ON or kind == en.ACT_AUTH_OFF:
        text += ', "via": "' + en.VIA_NAMES[arg] + '"'
    elif kind == en.ACT_CLEAR:
        text += ', "die": ' + str(arg)
    return text + "}"
