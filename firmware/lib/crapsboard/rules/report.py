# The table's state and resolutions as JSON text, byte-identical on every runtime.
#
# Records are ordered dicts written by the json module: the pinned MicroPython
# VM's plain dicts do not keep insertion order, its OrderedDict does, and both
# runtimes' json.dumps space output alike (", " and ": "). One escaping rule:
# the json module's, with non-ASCII written as UTF-8 (CPython is told so; the
# VM always does), and free text (error messages) carries no control characters.
import json
import sys
from collections import OrderedDict

from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import mask_numbers

if sys.implementation.name == "micropython":
    _DUMPS_OPTIONS = {}
else:  # CPython escapes non-ASCII unless told not to; the VM never does
    _DUMPS_OPTIONS = {"ensure_ascii": False}


def dumps(obj):
    """JSON text of `obj`, the same bytes on both runtimes."""
    return json.dumps(obj, **_DUMPS_OPTIONS)


def printable(text):
    """`text` with control characters written as visible \\xNN, for one-line
    messages: the two runtimes' json modules escape \\b and \\f differently."""
    for c in text:
        if ord(c) < 32:
            break
    else:
        return text
    return "".join(["\\x%02x" % ord(c) if ord(c) < 32 else c for c in text])


def or_null(n):
    """A number that is 0 when absent (the point, a pending die): None for null."""
    return n if n else None


def pay_value(pay):
    return "meter" if pay == pt.METER else pay


def envy_record(envy):
    if envy is None:
        return None
    record = OrderedDict()
    record["amount"] = envy[0]
    record["unit"] = pt.ENVY_UNIT_NAMES[envy[1]]
    record["per"] = pt.ENVY_PER_NAMES[envy[1]]
    return record


def resolution(table, w, level, outcome):
    """One resolution: the engine decided the outcome; the paytable in force
    gives the rest. A returned bet was never settled by the paytable."""
    paytable = table.config.paytables[w]
    returned = outcome == pt.OUT_RETURNED
    record = OrderedDict()
    record["wager"] = pt.WAGER_NAMES[w]
    record["paytable"] = paytable.ident
    record["level"] = level
    record["outcome"] = pt.OUTCOME_NAMES[outcome]
    record["returns"] = 1 if returned else pay_value(paytable.returns(level))
    record["pays"] = None if returned else pay_value(paytable.pays[level])
    record["unit"] = pt.UNIT_NAMES[paytable.unit]
    record["envy"] = None if returned else envy_record(paytable.envy[level])
    return record


def resolutions(table):
    """The resolutions of the table's last event, as a list of records."""
    return [
        resolution(table, table.res_wager[i], table.res_level[i], table.res_outcome[i]) for i in range(table.res_count)
    ]


def reversed_resolutions(table):
    """The resolutions the table's last undo took back."""
    return [
        resolution(table, table.rev_wager[i], table.rev_level[i], table.rev_outcome[i]) for i in range(table.rev_count)
    ]


def wager_marks(table, w):
    """Marked numbers of wager w: ascending, or in sequence order for Fired Up."""
    if w == pt.FIRED_UP:
        return table.fired_matched()
    return mask_numbers(table.marks(w))


def _offered(table):
    return [w for w in range(pt.WAGER_COUNT) if table.config.is_offered(w)]


def roll_record(table):
    """The record of the roll just applied, as an ordered dict."""
    offered = _offered(table)
    opens = OrderedDict()
    marks = OrderedDict()
    for w in offered:
        opens[pt.WAGER_NAMES[w]] = table.is_open(w)
    for w in offered:
        marks[pt.WAGER_NAMES[w]] = wager_marks(table, w)
    record = OrderedDict()
    record["n"] = table.rolls
    record["dice"] = [table.die1, table.die2]
    record["total"] = table.die1 + table.die2
    record["point"] = or_null(table.point)
    record["shooter"] = table.shooter
    record["open"] = opens
    record["marks"] = marks
    record["resolved"] = resolutions(table)
    return record


def roll_json(table):
    """One JSON Lines record for the roll just applied (replay's output)."""
    return dumps(roll_record(table))


def summary_json(table, counts, outcomes, rolls):
    """Counts of each (wager, level) resolution, counts[w][level], and of each
    (wager, outcome), outcomes[w][pt.OUT_*]."""
    resolved = OrderedDict()
    by_outcome = OrderedDict()
    for w in _offered(table):
        levels = OrderedDict()
        for level in range(len(counts[w])):
            levels[str(level)] = counts[w][level]
        resolved[pt.WAGER_NAMES[w]] = levels
        named = OrderedDict()
        for outcome in range(len(pt.OUTCOME_NAMES)):
            named[pt.OUTCOME_NAMES[outcome]] = outcomes[w][outcome]
        by_outcome[pt.WAGER_NAMES[w]] = named
    record = OrderedDict()
    record["rolls"] = rolls
    record["resolved"] = resolved
    record["outcomes"] = by_outcome
    return dumps(record)
