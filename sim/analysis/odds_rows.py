"""One row per (wager, paytable): exact figures, Dealer Envy, and the seeds' published figures.

Pays and envy come from `crapsboard.rules.paytables` (never copied here); the level
distributions from `sim.analysis.odds_exact`. Units: a "for 1" pay includes the stake
(return = pays), a "to 1" pay excludes it (return = pays + 1); pays 0 loses;
METER is the progressive's top award, a meter value in base units.
"""

from fractions import Fraction

from crapsboard.rules import paytables as pt
from sim.analysis import odds_exact as exact

# Vendor figures printed in the seeds, as (house edge, hit frequency) in percent.
# Seed 000 (Light & Wonder Fire Bet, Exhibit 2) for tables 1-6; seed 001 (UK
# licence listing) repeats tables 1-4 with the same figures. No other seed
# prints a house edge or hit frequency.
PUBLISHED = {
    "1": ("21.27", "1.05"),
    "2": ("21.27", "1.05"),
    "3": ("20.96", "4.39"),
    "4": ("20.96", "4.39"),
    "5": ("24.20", "1.05"),
    "6": ("24.20", "1.05"),
}
PUBLISHED_SOURCE = "seed 000 Exhibit 2 (tables 1-4 also seed 001)"

WAGER_TITLES = ("Fire Bet", "All Small", "All Tall", "Make 'Em All", "Make 'Em All Progressive", "Fired Up Progressive")

ENVY_NOTES = {
    pt.ENVY_PER_WAGER: "a multiple of each winning wager: exact per unit wagered",
    pt.ENVY_PER_PLAYER: "a fixed amount per winning player: exact for a 1-unit wager",
    pt.ENVY_PER_EVENT: "a fixed amount once per event: upper bound, assuming one winning 1-unit player per event",
}


def levels_of(wager, table):
    """The exact level distribution of `wager` under paytable `table`."""
    if wager == pt.FIRE:
        return exact.fire_levels()
    if wager == pt.ALL_SMALL:
        return exact.bonus_levels(exact.SMALL)
    if wager == pt.ALL_TALL:
        return exact.bonus_levels(exact.TALL)
    if wager == pt.MAKE_EM_ALL:
        return exact.bonus_levels(exact.ALL)
    if wager == pt.MEA_PROGRESSIVE:
        return exact.mea_levels()
    return exact.fired_up_levels(tuple(tuple(s) for s in table.sequences))


def level_return(table, level, meter=None):
    """Units returned to a 1-unit wager at `level` (stake included, as the
    engine reports it); None for an unknown meter."""
    back = table.returns(level)
    if back == pt.METER:
        return None if meter is None else Fraction(meter)
    return Fraction(back)


class Published:
    """A seed figure beside the exact one. Percentages are Fractions in percent."""

    def __init__(self, figure, text, exact_value):
        self.figure = figure  # "house_edge" or "hit_frequency"
        self.text = text + "%"
        self.value = Fraction(text)  # percent
        self.exact = exact_value * 100  # percent
        self.difference = self.value - self.exact  # published - exact, percentage points
        decimals = len(text.split(".")[1]) if "." in text else 0
        rounded = round(self.exact, decimals)
        self.agrees = rounded == self.value
        # Facts only: the published figure, the exact one, what the exact one rounds to.
        self.explanation = "the exact value, %.4f%%, rounds to %.*f%%; %s" % (
            float(self.exact),
            decimals,
            float(rounded),
            "agrees" if self.agrees else "does not agree",
        )


class Row:
    def __init__(self, wager, table, meter=None):
        self.wager = wager
        self.name = pt.WAGER_NAMES[wager]
        self.title = WAGER_TITLES[wager]
        self.table = table
        self.paytable = table.ident
        self.unit = pt.UNIT_NAMES[table.unit]
        self.levels = levels_of(wager, table)
        top = table.top_level()
        self.top = top
        self.progressive = table.pays[top] == pt.METER
        self.meter = None if meter is None or not self.progressive else Fraction(meter)
        self.hit_frequency = sum(p for p, pay in zip(self.levels, table.pays) if pay != 0)
        # Win frequency: the engine's outcome is a win (a pay of 1 for 1 is a push, the stake back).
        self.win_frequency = sum(p for k, p in enumerate(self.levels) if table.outcome(k) == pt.OUT_WIN)
        if self.progressive:
            self.return_excl_top = sum(self.levels[k] * level_return(table, k) for k in range(top))
            self.top_probability = self.levels[top]
            self.break_even_meter = (1 - self.return_excl_top) / self.top_probability
            self.house_edge = None
        else:
            self.return_excl_top = self.top_probability = self.break_even_meter = None
            self.house_edge = 1 - sum(p * level_return(table, k) for k, p in enumerate(self.levels))
        self.return_at_meter = None if self.meter is None else self.return_excl_top + self.top_probability * self.meter
        self.envy_per_unit, self.envy_note = self._envy()
        self.published = self._published()

    def _envy(self):
        total, kinds = Fraction(0), set()
        for k, envy in enumerate(self.table.envy):
            if envy is not None:
                amount, kind = envy
                total += self.levels[k] * amount
                kinds.add(kind)
        if not kinds:
            return None, None
        note = "; ".join(ENVY_NOTES[kind] for kind in sorted(kinds))
        return total, note

    def _published(self):
        figures = PUBLISHED.get(self.paytable) if self.wager == pt.FIRE else None
        if figures is None:
            return []
        edge_text, hit_text = figures
        return [
            Published("house_edge", edge_text, self.house_edge),
            Published("hit_frequency", hit_text, self.hit_frequency),
        ]

    def label(self):
        if self.wager == pt.FIRE:
            return "Fire Bet table %s (%s)" % (self.paytable, self.unit)
        return "%s %s (%s)" % (self.title, self.paytable, self.unit)


def all_rows(meter=None):
    """Every row, in issue order: Fire 1-6, Small/Tall/All under each table, MEA, Fired Up."""
    rows = [Row(pt.FIRE, t, meter) for t in pt.tables(pt.FIRE)]
    bonus = {wager: pt.tables(wager) for wager in (pt.ALL_SMALL, pt.ALL_TALL, pt.MAKE_EM_ALL)}
    for i in range(len(bonus[pt.ALL_SMALL])):
        for wager in (pt.ALL_SMALL, pt.ALL_TALL, pt.MAKE_EM_ALL):
            rows.append(Row(wager, bonus[wager][i], meter))
    rows += [Row(pt.MEA_PROGRESSIVE, t, meter) for t in pt.tables(pt.MEA_PROGRESSIVE)]
    rows += [Row(pt.FIRED_UP, t, meter) for t in pt.tables(pt.FIRED_UP)]
    return rows


def select(rows, wanted):
    """Rows whose paytable id or wager name is in `wanted` (case-insensitive).
    Raises KeyError naming the first entry that matches nothing."""
    if not wanted:
        return rows
    keys = [w.lower() for w in wanted]
    for key, text in zip(keys, wanted):
        if not any(key in (r.paytable.lower(), r.name) for r in rows):
            raise KeyError(text)
    return [r for r in rows if r.paytable.lower() in keys or r.name in keys]
