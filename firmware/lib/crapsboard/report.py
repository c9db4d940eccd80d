# The table's state and resolutions as JSON text, byte-identical on every runtime.
#
# Built by hand rather than with json.dumps: MicroPython's dicts do not keep
# insertion order, and the two runtimes space their output differently.
from crapsboard import paytables as pt
from crapsboard.engine import mask_numbers


def bool_json(value):
    return "true" if value else "false"


def int_list_json(values):
    return "[" + ", ".join([str(v) for v in values]) + "]"


def number_or_null(n):
    """A number that is 0 when absent (the point, a pending die) as JSON."""
    return str(n) if n else "null"


def pay_json(pay):
    return '"meter"' if pay == pt.METER else str(pay)


def envy_json(envy):
    if envy is None:
        return "null"
    return '{"amount": ' + str(envy[0]) + ', "per": "' + pt.ENVY_PER_NAMES[envy[1]] + '"}'


def resolution_json(table, w, level):
    paytable = table.config.paytables[w]
    return (
        '{"wager": "'
        + pt.WAGER_NAMES[w]
        + '", "level": '
        + str(level)
        + ', "pays": '
        + pay_json(paytable.pays[level])
        + ', "unit": "'
        + pt.UNIT_NAMES[paytable.unit]
        + '", "envy": '
        + envy_json(paytable.envy[level])
        + "}"
    )


def resolved_json(table):
    """The resolutions of the table's last event, as a JSON list."""
    items = [resolution_json(table, table.res_wager[i], table.res_level[i]) for i in range(table.res_count)]
    return "[" + ", ".join(items) + "]"


def wager_marks(table, w):
    """Marked numbers of wager w: ascending, or in sequence order for Fired Up."""
    if w == pt.FIRED_UP:
        return table.fired_matched()
    return mask_numbers(table.marks(w))


def _offered(table):
    return [w for w in range(pt.WAGER_COUNT) if table.config.is_offered(w)]


def roll_json(table):
    """One JSON Lines record for the roll just applied (replay's output)."""
    offered = _offered(table)
    opens = ", ".join(['"' + pt.WAGER_NAMES[w] + '": ' + bool_json(table.is_open(w)) for w in offered])
    marks = ", ".join(['"' + pt.WAGER_NAMES[w] + '": ' + int_list_json(wager_marks(table, w)) for w in offered])
    return (
        '{"n": '
        + str(table.rolls)
        + ', "dice": ['
        + str(table.die1)
        + ", "
        + str(table.die2)
        + '], "total": '
        + str(table.die1 + table.die2)
        + ', "point": '
        + number_or_null(table.point)
        + ', "shooter": '
        + str(table.shooter)
        + ', "open": {'
        + opens
        + '}, "marks": {'
        + marks
        + '}, "resolved": '
        + resolved_json(table)
        + "}"
    )


def summary_json(table, counts, rolls):
    """Counts of each (wager, level) resolution: counts[w][level]."""
    parts = []
    for w in _offered(table):
        levels = ", ".join(['"' + str(level) + '": ' + str(counts[w][level]) for level in range(len(counts[w]))])
        parts.append('"' + pt.WAGER_NAMES[w] + '": {' + levels + "}")
    return '{"rolls": ' + str(rolls) + ', "resolved": {' + ", ".join(parts) + "}}"
