# Replay: dice lines in, one JSON record per roll (or a summary) out.
#
# Runs unchanged under CPython and the MicroPython unix port (sim/portable/mp_replay.py),
# so both runtimes print the same bytes for the same input.
from crapsboard.rules import paytables as pt
from crapsboard.rules import report
from crapsboard.rules.engine import Table


class DiceLineError(ValueError):
    pass


_FACES = "123456"


def parse_dice(line):
    """Two die faces from `3 4`, `3,4` or `3, 4`; None for a blank or # comment line."""
    text = line.strip()
    if len(text) == 3 and (text[1] == " " or text[1] == ","):
        # The usual shape, checked cheaply: a million lines go through here.
        die1 = ord(text[0]) - 48
        die2 = ord(text[2]) - 48
        if 0 < die1 < 7 and 0 < die2 < 7:
            return die1, die2
    if not text or text[0] == "#":
        return None
    if text.count(",") > 1:
        raise DiceLineError("expected two die faces like '3 4' or '3,4', got " + repr(text))
    fields = text.replace(",", " ").split()
    if len(fields) != 2:
        what = "a missing die" if len(fields) < 2 else "more than two dice"
        raise DiceLineError(what + ": expected two die faces like '3 4' or '3,4', got " + repr(text))
    for field in fields:
        if len(field) != 1 or field not in _FACES:
            raise DiceLineError("die face " + repr(field) + " is not 1-6")
    return ord(fields[0]) - 48, ord(fields[1]) - 48


def run(lines, write, config=None, summary=False):
    """Replay `lines` (an iterable of text lines). Raises DiceLineError with
    the 1-based line number prefixed; output up to that line is already written."""
    table = Table(config)
    counts = [[0] * (table.config.paytables[w].top_level() + 1) for w in range(pt.WAGER_COUNT)]
    outcomes = [[0] * len(pt.OUTCOME_NAMES) for w in range(pt.WAGER_COUNT)]
    res_wager = table.res_wager
    res_level = table.res_level
    res_outcome = table.res_outcome
    roll = table.roll
    line_number = 0
    for line in lines:
        line_number += 1
        try:
            dice = parse_dice(line)
        except DiceLineError as e:
            raise DiceLineError("line " + str(line_number) + ": " + str(e.args[0]))
        if dice is None:
            continue
        resolved = roll(dice[0], dice[1])
        if summary:
            for i in range(resolved):
                counts[res_wager[i]][res_level[i]] += 1
                outcomes[res_wager[i]][res_outcome[i]] += 1
        else:
            write(report.roll_json(table) + "\n")
    if summary:
        write(report.summary_json(table, counts, outcomes, table.rolls) + "\n")
    return table
