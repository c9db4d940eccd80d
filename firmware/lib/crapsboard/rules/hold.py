# What is a HOLD (docs/rules.md, "The floor: alerts"): a roll that made the
# shooter's 6th Fire Bet point, or paid a progressive's top award (the meter).
# The payout then waits until surveillance confirms payoffs equal wagers.
#
# One rule for the board and the floor: the board (table/app.py, the journal's
# restore) decides which roll a signed `verified` may clear with it, and the
# floor's alerts (host_tools/floor/alerts/table_fold.py) fold the same records
# through the same engine and this same function, so the two agree.
from crapsboard.rules import paytable as pt
from crapsboard.rules.engine import popcount

ALL_POINTS = 6  # the Fire Bet's points: 4, 5, 6, 8, 9, 10


def raised(table, points_before, marks=None):
    """The wagers (bit w) whose HOLD the roll `table` has just played raised,
    0 for none. `points_before`: the shooter's Fire Bet points before the roll
    (table.fire_points). `marks`, a list of WAGER_COUNT, gets the lamps each
    held wager won with (the Fire Bet's points; the meter's numbers or, for
    Fired Up, the count of the sequence's lamps, as Lamps.celebrate takes them)."""
    held = 0
    if popcount(table.fire_points) == ALL_POINTS and popcount(points_before) < ALL_POINTS:
        held = 1 << pt.FIRE
        if marks is not None:
            marks[pt.FIRE] = table.fire_points
    for i in range(table.res_count):
        w = table.res_wager[i]
        if table.res_outcome[i] == pt.OUT_WIN and table.pays(w, table.res_level[i]) == pt.METER:
            held |= 1 << w
            if marks is not None:
                m = table.res_marks[i]
                marks[w] = popcount(m) if w == pt.FIRED_UP else m
    return held
