"""A progressive's return to player at a meter amount, from the project's exact odds.

The level distributions and the return of every level below the top are
`sim.analysis.odds_rows` (exact fractions, docs/odds.md); the top award pays
the meter for one base-unit wager (seed 003 note 4), so at a meter of A cents
and a base unit of U cents:

    return(A) = return excluding the top + P(top) × A / U

and the break-even meter is the A where that is 1. Several winning wagers on
one hit (docs/rules.md): shared, each is paid A / W, so a wager returns
R0 + P(top) × A / (W × U); the break-even flag is read at the winning wagers
per hit the floor has seen. Percentages are cut, never rounded up past a
break-even line.
"""

import math
from fractions import Fraction

from crapsboard.rules import paytables as pt

_WAGER = {"MEA": pt.MEA_PROGRESSIVE, "FUP": pt.FIRED_UP}


def row(game, paytable):
    from sim.analysis.odds_rows import Row

    return Row(_WAGER[game], pt.find(_WAGER[game], paytable))


def truncated_pct(value, places):
    """`value` (a Fraction, 1 = 100%) in percent with `places` decimals, cut, never rounded
    up: a return one micro-cent short of 100% never reads 100.00%."""
    scale = 10**places
    return math.floor(value * 100 * scale) / scale


def per_wager(r, amount, base_unit, winners, pay_rule="shared", next_amount=None):
    """The return of one progressive wager when `winners` wagers (a Fraction or int >= 1) win
    the hit: `shared`, each the meter / winners; `positional`, the first the meter and each
    other the meter after a reset (`next_amount`, cents; the amount without it)."""
    if pay_rule == "positional":
        after = amount if next_amount is None else next_amount
        award = (amount + (winners - 1) * after) / Fraction(winners)
    else:
        award = Fraction(amount) / winners
    return r.return_excl_top + r.top_probability * award / base_unit


def figures(game, paytable, amount, base_unit, pay_rule="shared", next_amount=None, hits=0, winners=0):
    """{return (Fraction, one winning wager), return_pct (cut to 4 decimals), break_even
    (cents, one winning wager, rounded up), per_wager ({1, 2, 3: return}), winners_per_hit
    (Fraction: the winning wagers per hit seen, 1 before any), break_even_seen (cents, at
    that many winners, rounded up), past_break_even (the return at winners_per_hit >= 1)}."""
    r = row(game, paytable)
    value = per_wager(r, amount, base_unit, 1)
    seen = Fraction(winners, hits) if hits else Fraction(1)
    at_seen = per_wager(r, amount, base_unit, seen, pay_rule, next_amount)
    if pay_rule == "positional":
        after = amount if next_amount is None else next_amount
        # R0 + p (A + (w - 1) N) / (w U) = 1  <=>  A = w U (1 - R0) / p - (w - 1) N
        even_seen = seen * r.break_even_meter * base_unit - (seen - 1) * after
    else:
        even_seen = seen * r.break_even_meter * base_unit
    return {
        "return": value,
        "return_pct": truncated_pct(value, 4),
        "break_even": math.ceil(r.break_even_meter * base_unit),
        "per_wager": {w: per_wager(r, amount, base_unit, w, pay_rule, next_amount) for w in (1, 2, 3)},
        "winners_per_hit": seen,
        "break_even_seen": math.ceil(even_seen),
        "past_break_even": at_seen >= 1,
    }
