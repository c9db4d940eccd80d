"""A progressive's return to player at a meter amount, from the project's exact odds.

The level distributions and the return of every level below the top are
`sim.analysis.odds_rows` (exact fractions, docs/odds.md); the top award pays
the meter for one base-unit wager (seed 003 note 4), so at a meter of A cents
and a base unit of U cents:

    return(A) = return excluding the top + P(top) × A / U

and the break-even meter is the A where that is 1.
"""

import math
from fractions import Fraction

from crapsboard.rules import paytables as pt

_WAGER = {"MEA": pt.MEA_PROGRESSIVE, "FUP": pt.FIRED_UP}


def row(game, paytable):
    from sim.analysis.odds_rows import Row

    return Row(_WAGER[game], pt.find(_WAGER[game], paytable))


def figures(game, paytable, amount, base_unit):
    """{return (Fraction), return_pct, break_even (cents, rounded up), past_break_even}."""
    r = row(game, paytable)
    value = r.return_excl_top + r.top_probability * Fraction(amount, base_unit)
    break_even = math.ceil(r.break_even_meter * base_unit)
    return {
        "return": value,
        "return_pct": round(float(value * 100), 4),
        "break_even": break_even,
        "past_break_even": value >= 1,
    }
