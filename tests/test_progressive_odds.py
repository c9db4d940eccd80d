"""The progressive's return as a function of the meter (docs/odds.md, "The linked
progressive"): the documented figures, pinned as numbers, against the exact odds
code, and the return to player `floor meter` shows (host_tools/floor/progressive/rtp.py)."""

import os
from fractions import Fraction

import pytest
from conftest import ROOT

import host_tools  # noqa: F401  (firmware/lib on the path)
from crapsboard.rules import paytables as pt
from host_tools.floor.progressive import rtp
from sim.analysis.odds_rows import Row

# paytable -> (R0 %, 1 in N, pp per 1,000 units, return % at 1,000 units, break-even units exact)
DOCUMENTED = {
    "PT-BJS-MEA-01": ("45.9883", "69,968.00", "1.4292", "47.4175", Fraction(330670657, 8750)),
    "PT-BJS-MEA-05": ("50.5175", "69,968.00", "1.4292", "51.9467", Fraction(605883689, 17500)),
    "PT-BJS-FUP-01": ("52.7216", "251,942.40", "0.3969", "53.1185", Fraction(595572, 5)),
    "PT-BJS-FUP-03": ("47.8624", "69,984.00", "1.4289", "49.2913", Fraction(36488)),
    "PT-BJS-FUP-05": ("84.2208", "503,884.80", "0.1985", "84.4193", Fraction(397544, 5)),
    "PT-BJS-FUP-06": ("51.7722", "503,884.80", "0.1985", "51.9706", Fraction(1215064, 5)),
}
SAME_AS = {"PT-BJS-MEA-02": "PT-BJS-MEA-01", "PT-BJS-MEA-03": "PT-BJS-MEA-01", "PT-BJS-MEA-04": "PT-BJS-MEA-01"}
SAME_AS.update({"PT-BJS-MEA-06": "PT-BJS-MEA-05", "PT-BJS-FUP-02": "PT-BJS-FUP-01", "PT-BJS-FUP-04": "PT-BJS-FUP-03"})


def row(ident):
    wager = pt.MEA_PROGRESSIVE if "MEA" in ident else pt.FIRED_UP
    return Row(wager, pt.find(wager, ident))


def figures(r):
    return (
        "%.4f" % float(r.return_excl_top * 100),
        "{:,.2f}".format(float(1 / r.top_probability)),
        "%.4f" % float(r.top_probability * 1000 * 100),
        "%.4f" % float((r.return_excl_top + r.top_probability * 1000) * 100),
        r.break_even_meter,
    )


@pytest.mark.parametrize("ident", sorted(set(DOCUMENTED) | set(SAME_AS)))
def test_the_documented_figures_are_the_exact_odds(ident):
    assert figures(row(ident)) == DOCUMENTED[SAME_AS.get(ident, ident)]


def test_the_doc_table_says_the_pinned_figures():
    with open(os.path.join(ROOT, "docs", "odds.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## The linked progressive", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    lines = [x for x in section.splitlines() if x.startswith("| PT-BJS-")]
    assert len(lines) == 6
    for ident, (r0, one_in, slope, at_1000, even) in DOCUMENTED.items():
        line = next(x for x in lines if x.startswith("| " + ident))
        cells = [c.strip() for c in line.strip("|").split("|")]
        units = (
            "{:,.2f}".format(float(even)).replace(".00", "") if even.denominator == 1 else "{:,.2f}".format(float(even))
        )
        exact = str(even.numerator) if even.denominator == 1 else "%d/%d" % (even.numerator, even.denominator)
        assert cells[1:] == [r0 + "%", "1 in " + one_in, slope + " pp", at_1000 + "%", "%s (%s)" % (units, exact)]


def test_the_return_at_a_meter_and_the_break_even_flag():
    # MEA-01, $1 unit: break-even 37,790.9322... units = 3,779,093.22 cents, rounded up.
    below = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_093, 100)
    at = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_094, 100)
    assert below["break_even"] == at["break_even"] == 3_779_094
    assert below["past_break_even"] is False and at["past_break_even"] is True
    assert below["return"] < 1 <= at["return"]
    # return(A) = R0 + p x A / U: a $1,000 meter on a $1 unit is 1,000 units.
    r = row("PT-BJS-MEA-01")
    assert rtp.figures("MEA", "PT-BJS-MEA-01", 100_000, 100)["return"] == r.return_excl_top + r.top_probability * 1000
    assert rtp.figures("MEA", "PT-BJS-MEA-01", 100_000, 100)["return_pct"] == 47.4174  # 47.41749…%, cut
    # A $5 unit: the same meter in dollars is a fifth of the units; break-even five times the dollars.
    five = rtp.figures("FUP", "PT-BJS-FUP-03", 500_000, 500)
    assert five["return"] == Fraction(4187, 8748) + Fraction(1, 69984) * 1000
    assert five["break_even"] == 36_488 * 500


def test_a_return_is_cut_never_rounded_up_past_break_even():
    # One cent under MEA-01's break-even: 99.9999...%, which "%.2f" would print as 100.00%.
    below = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_093, 100)
    assert below["return_pct"] == 99.9999 and rtp.truncated_pct(below["return"], 2) == 99.99
    assert rtp.truncated_pct(Fraction(1), 2) == 100.0 and rtp.truncated_pct(Fraction(12_345, 100_000), 2) == 12.34


def test_the_return_per_wager_for_one_two_and_three_winning_wagers_and_the_winners_seen():
    r = row("PT-BJS-MEA-01")
    at = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_094, 100)  # $37,790.94: break-even for one winner
    # shared: each of W winners gets $37,790.94 / W, i.e. 37,790.94 / W units
    for w in (1, 2, 3):
        assert at["per_wager"][w] == r.return_excl_top + r.top_probability * Fraction(3_779_094, 100 * w)
    # 45.9883% + 18,895.47 / 69,968 = 72.99%; / 3: 12,596.98 / 69,968 -> 63.99%
    assert rtp.truncated_pct(at["per_wager"][2], 2) == 72.99
    assert rtp.truncated_pct(at["per_wager"][3], 2) == 63.99
    assert at["past_break_even"] is True and at["winners_per_hit"] == 1
    # 3 winning wagers over 2 hits: 1.5 a hit; break-even 1.5 x 330,670,657/8,750 units = 5,668,639.83 cents
    seen = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_094, 100, "shared", 100_000, hits=2, winners=3)
    assert seen["winners_per_hit"] == Fraction(3, 2) and seen["break_even_seen"] == 5_668_640
    assert seen["past_break_even"] is False
    assert rtp.figures("MEA", "PT-BJS-MEA-01", 5_668_640, 100, "shared", 100_000, 2, 3)["past_break_even"] is True
    assert rtp.figures("MEA", "PT-BJS-MEA-01", 5_668_639, 100, "shared", 100_000, 2, 3)["past_break_even"] is False
    # positional, 2 winners: the first the meter, the second the reset meter ($1,000): (37,790.94 + 1,000) / 2 units
    pos = rtp.figures("MEA", "PT-BJS-MEA-01", 3_779_094, 100, "positional", 100_000, hits=1, winners=2)
    assert pos["per_wager"][2] == r.return_excl_top + r.top_probability * Fraction(3_779_094 + 100_000, 200)
    # break-even at 2: A + 100,000 = 2 x 3,779,093.22..., A = 7,458,186.45... -> 7,458,187 cents
    assert pos["break_even_seen"] == 7_458_187
