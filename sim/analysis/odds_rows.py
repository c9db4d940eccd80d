"""One row per (wager, paytable): exact figures, Dealer Envy, and the seeds' published figures.

Pays and envy come from `crapsboard.paytables` (never copied here); the level
distributions from `sim.odds_exact`. Units: a "for 1" pay includes the stake
(return = pays), a "to 1" pay excludes it (return = pays + 1); pays 0 loses;
METER is the progressive's top award, a meter value in base units.
"""

from fractions import Fraction

from crapsboard import paytables as pt
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
    """Units returned to a 1-unit wager at `level` (stake included); None for an unknown meter."""
    pay = table.pays[level]
    if pay == pt.METER:
        return None if meter is None else Fraction(meter)
    if pay == 0:
        return Fraction(0)
    return Fraction(pay + 1 if table.unit == pt.TO_1 else pay)


class Published:
    """A seed figure beside the exact one. Percentages are Fractions in percent."""

    def __init__(self, figure, text, exact_value, detail):
        self.figure = figure  # "house_edge" or "hit_frequency"
        self.text = text + "%"
        self.value = Fraction(text)  # percent
        self.exact = exact_value * 100  # percent
        self.difference = self.value - self.exact  # published - exact, percentage points
        decimals = len(text.split(".")[1]) if "." in text else 0
        self.agrees = round(self.exact, decimals) == self.value
        self.explanation = "agrees: the exact value rounds to the published one" if self.agrees else detail


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
        # Win frequency: the wager returns more than its stake (a pay of 1 for 1 is the stake back).
        self.win_frequency = sum(
            p for k, p in enumerate(self.levels) if table.pays[k] == pt.METER or level_return(table, k) > 1
        )
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
        top, p_top = self.top, self.levels[self.top]
        # If the whole edge gap sat in the top level, what P(6 points) would it need?
        implied = p_top + (self.house_edge - Fraction(edge_text) / 100) / level_return(self.table, top)
        edge_detail = (
            "the 6-point pay alone accounts for it if P(6 points) were 1 in %s, not the exact 1 in %s: "
            "a vendor estimate"
            % (
                _one_in(implied),
                _one_in(p_top),
            )
        )
        first = min(k for k, pay in enumerate(self.table.pays) if pay)
        hit_pub = Fraction(hit_text) / 100
        hit_detail = "exact prints as %.2f%%; the vendor's P(%d+ points) is %.1f%% low, as in its edge: an estimate" % (
            float(self.hit_frequency * 100),
            first,
            float((self.hit_frequency - hit_pub) / self.hit_frequency * 100),
        )
        return [
            Published("house_edge", edge_text, self.house_edge, edge_detail),
            Published("hit_frequency", hit_text, self.hit_frequency, hit_detail),
        ]

    def label(self):
        if self.wager == pt.FIRE:
            return "Fire Bet table %s (%s)" % (self.paytable, self.unit)
        return "%s %s (%s)" % (self.title, self.paytable, self.unit)


def _one_in(p):
    return "{:,}".format(round(1 / p)) if p > 0 else "never"


def all_rows(meter=None):
    """Every row, in issue order: Fire 1-6, Small/Tall/All under each table, MEA, Fired Up."""
    rows = [Row(pt.FIRE, t, meter) for t in pt.FIRE_TABLES]
    for i in range(len(pt.ALL_SMALL_TABLES)):
        for wager in (pt.ALL_SMALL, pt.ALL_TALL, pt.MAKE_EM_ALL):
            rows.append(Row(wager, pt.TABLES[wager][i], meter))
    rows += [Row(pt.MEA_PROGRESSIVE, t, meter) for t in pt.MEA_TABLES]
    rows += [Row(pt.FIRED_UP, t, meter) for t in pt.FIRED_UP_TABLES]
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
