"""Exact odds (`python -m sim odds`) against hand derivations that share no code with it.

The hand derivations: the Fire Bet's 0-point probability from the first point
alone; inclusion-exclusion ("Poissonisation") for everything collected before
a 7, which gives the whole Fire Bet and Bonus Craps distributions in closed
form; the Make 'Em All Progressive's ordered-distinct-rolls product; the Fired
Up products. Dice ways are written out by hand here, not imported.
"""

import io
import json
import math
import shutil
import xml.etree.ElementTree as ET
from fractions import Fraction as F
from itertools import combinations

import pytest
import svgread

from crapsboard.rules import paytables as pt
from sim.analysis import odds, odds_exact, odds_rows, plot_svg
from sim.cli import CommandError

NS = svgread.NS

WAYS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}


def inclusion_exclusion_levels(rates, stop):
    """P(exactly k of the items are collected before the stop event), for
    independent exponential clocks: item i at rate rates[i], stop at `stop`.
    P(exactly the set S) = sum over T subset of S of (-1)^|T| stop/(stop + rate(not S) + rate(T))."""
    items = range(len(rates))
    levels = [F(0)] * (len(rates) + 1)
    for k in range(len(rates) + 1):
        for s in combinations(items, k):
            outside = sum(rates[i] for i in items if i not in s)
            for size in range(k + 1):
                for t in combinations(s, size):
                    levels[k] += (-1) ** size * F(stop) / (stop + outside + sum(rates[i] for i in t))
    return levels


# ---- Fire Bet -------------------------------------------------------------


def test_fire_zero_points_by_hand():
    # The first point p (chance ways/24 among point rolls) is missed: 6/(ways+6).
    by_hand = sum(F(WAYS[p], 24) * F(6, WAYS[p] + 6) for p in (4, 5, 6, 8, 9, 10))
    assert by_hand == F(98, 165)
    assert odds_exact.fire_levels()[0] == by_hand


def test_fire_one_point_by_hand():
    # Make exactly one distinct point: first cycle makes p, then any number of
    # cycles re-making p, then a seven-out. Per cycle: make p with a_p, 7 with s.
    a = {p: F(WAYS[p], 24) * F(WAYS[p], WAYS[p] + 6) for p in (4, 5, 6, 8, 9, 10)}
    s = F(98, 165)
    by_hand = sum(a[p] * s / (s + sum(a[q] for q in a if q != p)) for p in a)
    assert odds_exact.fire_levels()[1] == by_hand


def test_fire_whole_distribution_by_inclusion_exclusion():
    points = (4, 5, 6, 8, 9, 10)
    made = [F(WAYS[p], 24) * F(WAYS[p], WAYS[p] + 6) for p in points]
    levels = inclusion_exclusion_levels(made, F(98, 165))
    assert tuple(levels) == odds_exact.fire_levels()
    assert 1 / levels[6] == pytest.approx(6156, abs=1)  # the well-known 1 in 6,156


# ---- Bonus Craps ----------------------------------------------------------


@pytest.mark.parametrize("numbers", [(2, 3, 4, 5, 6), (8, 9, 10, 11, 12)])
def test_all_small_and_tall_win_by_inclusion_exclusion(numbers):
    # P(all before 7) = sum over subsets T of (-1)^|T| * 6 / (6 + ways(T)).
    win = sum((-1) ** k * F(6, 6 + sum(WAYS[n] for n in t)) for k in range(6) for t in combinations(numbers, k))
    assert win == F(20049, 760760)
    assert odds_exact.bonus_levels(numbers)[5] == win


def test_make_em_all_distribution_by_inclusion_exclusion():
    numbers = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
    assert tuple(inclusion_exclusion_levels([WAYS[n] for n in numbers], 6)) == odds_exact.bonus_levels(numbers)


def test_bonus_house_edges_from_paytables():
    rows = {(r.name, r.paytable): r for r in odds_rows.all_rows()}
    win = F(20049, 760760)
    assert rows["all_small", "PT1"].house_edge == 1 - 35 * win  # 34 to 1
    assert rows["all_tall", "PT2"].house_edge == 1 - 31 * win  # 30 to 1
    for wager in ("all_small", "all_tall"):  # docs/rules.md: PT-FLT-BC-03 pays as PT2, 30 to 1
        assert rows[wager, "PT-FLT-BC-03"].house_edge == rows[wager, "PT2"].house_edge == 1 - 31 * win, wager
    assert rows["all_small", "PT-FLT-BC-03"].envy_per_unit == win  # 1x the winning wager
    assert rows["make_em_all", "PT-FLT-BC-03"].envy_per_unit == 5 * rows["make_em_all", "PT1"].levels[10]
    # Make 'Em All: the ten numbers before a 7, by inclusion-exclusion as above; 1 in 190.2.
    ten = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
    all_ten = sum((-1) ** k * F(6, 6 + sum(WAYS[n] for n in t)) for k in range(11) for t in combinations(ten, k))
    assert all_ten == F(126538525259, 24067258815600)
    assert rows["make_em_all", "PT1"].house_edge == 1 - 176 * all_ten  # 175 to 1: 7.46 %
    for paytable in ("PT2", "PT-FLT-BC-03"):  # 150 to 1: 20.61 %
        assert rows["make_em_all", paytable].house_edge == 1 - 151 * all_ten, paytable
    # docs/rules.md: PT1 and PT2 (seed 002) pay no Dealer Envy on any of the three wagers
    for wager in ("all_small", "all_tall", "make_em_all"):
        assert rows[wager, "PT1"].envy_per_unit is None and rows[wager, "PT2"].envy_per_unit is None, wager


# ---- Progressives ---------------------------------------------------------


def test_mea_progressive_closed_form():
    # The first k rolls are k distinct numbers of the set M in some order:
    # k! * prod(ways)/36^k; then a 7 or a repeat: (6 + ways(M))/36.
    numbers = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
    levels = []
    for k in range(10):
        levels.append(
            sum(
                F(math.factorial(k) * math.prod(WAYS[n] for n in m) * (6 + sum(WAYS[n] for n in m)), 36 ** (k + 1))
                for m in combinations(numbers, k)
            )
        )
    levels.append(F(math.factorial(10) * math.prod(WAYS[n] for n in numbers), 36**10))
    assert tuple(levels) == odds_exact.mea_levels()
    assert levels[10] == F(4375, 306110016)


def test_fired_up_one_match_by_hand():
    rows = {r.paytable: r for r in odds_rows.all_rows() if r.name == "fired_up"}
    # 6 then not 5, or 8 then not 9.
    assert rows["PT-BJS-FUP-01"].levels[1] == 2 * F(5, 36) * F(32, 36) == F(20, 81)
    assert rows["PT-BJS-FUP-03"].levels[1] == F(4, 36) * F(33, 36)  # 5 then not 4
    assert rows["PT-BJS-FUP-05"].levels[1] == F(5, 36) * F(32, 36)  # 8 then not 9
    assert rows["PT-BJS-FUP-05"].levels[5] == F(5 * 4 * 3 * 2 * 1, 36**5)
    assert rows["PT-BJS-FUP-03"].levels[4] == F(4 * 3 * 2 * 1, 36**4)
    assert rows["PT-BJS-FUP-01"].levels[0] == 1 - F(10, 36)


def test_progressive_figures_are_consistent():
    for row in odds_rows.all_rows(meter=50000):
        if not row.progressive:
            continue
        assert row.house_edge is None
        assert row.return_excl_top + row.top_probability * row.break_even_meter == 1
        assert row.return_at_meter == row.return_excl_top + row.top_probability * 50000
    fup5 = next(r for r in odds_rows.all_rows() if r.paytable == "PT-BJS-FUP-05")
    # Envy: $60 per player at 4 matches, $2,000 per event at 5.
    assert fup5.envy_per_unit == 60 * fup5.levels[4] + 2000 * fup5.levels[5]


# ---- Every row ------------------------------------------------------------


def test_every_row_present_and_sums_to_one():
    rows = odds_rows.all_rows()
    assert len(rows) == 6 + 9 + 6 + 6
    expected_top = {"fire": 6, "all_small": 5, "all_tall": 5, "make_em_all": 10, "mea_progressive": 10}
    for row in rows:
        assert sum(row.levels) == 1, row.label()
        assert all(p > 0 for p in row.levels), row.label()
        assert len(row.levels) == len(row.table.pays)
        if row.name in expected_top:
            assert len(row.levels) - 1 == expected_top[row.name]
        else:
            assert len(row.levels) - 1 == max(len(s) for s in row.table.sequences)


def test_published_fire_figures_compared():
    rows = [r for r in odds_rows.all_rows() if r.name == "fire"]
    for row in rows:
        figures = {p.figure: p for p in row.published}
        assert set(figures) == {"house_edge", "hit_frequency"}
        for p in figures.values():
            assert p.difference == p.value - p.exact
            assert not p.agrees and p.explanation.endswith("does not agree")
            # facts only: the exact value and its rounding, no guessed cause
            assert p.explanation.startswith("the exact value, %.4f%%, rounds to " % float(p.exact))
            assert not any(word in p.explanation for word in ("estimate", "if ", "vendor", "would"))
        # The vendor's edges are all too high, hit frequencies too low.
        assert figures["house_edge"].difference > 0 > figures["hit_frequency"].difference
    table1 = rows[0]
    assert table1.published[0].text == "21.27%"
    assert round(float(table1.house_edge) * 100, 2) == 20.76
    assert not odds_rows.Row(pt.ALL_SMALL, pt.tables(pt.ALL_SMALL)[0]).published


def test_published_agreement_rule():
    p = odds_rows.Published("hit_frequency", "4.40", F(4284548688437, 97299243453555))
    assert p.agrees and p.explanation == "the exact value, 4.4035%, rounds to 4.40%; agrees"


# ---- Command line -----------------------------------------------------------


def run(argv):
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        status = odds.main(argv)
    return status, out.getvalue()


def test_json_rows():
    status, text = run(["--json"])
    assert status == 0
    data = json.loads(text)
    assert [d["paytable"] for d in data[:6]] == ["1", "2", "3", "4", "5", "6"]
    assert {d["paytable"] for d in data} >= {"PT1", "PT2", "PT-FLT-BC-03", "PT-BJS-MEA-06", "PT-BJS-FUP-06"}
    for d in data:
        assert sum(F(v) for v in d["levels"].values()) == 1
        assert (d["house_edge"] is None) == d["progressive"]
        F(d["hit_frequency"])
    fire1 = data[0]
    assert fire1["wager"] == "fire" and fire1["levels"]["0"] == "98/165"
    assert fire1["published"][0]["published"] == "21.27%" and not fire1["published"][0]["agrees"]


def test_text_report_and_filters():
    status, text = run(["--paytable", "3", "PT-BJS-FUP-03", "--meter", "40000"])
    assert status == 0
    assert "Fire Bet table 3 (for 1)" in text and "Fired Up Progressive PT-BJS-FUP-03" in text
    assert "Fire Bet table 1 " not in text
    assert "published 20.96%" in text and "break-even meter            36,488.00" in text
    assert "return at meter 40,000.00" in text


def test_unknown_paytable_is_an_error():
    with pytest.raises(CommandError, match='no paytable or wager "PT9"'):
        odds.main(["--paytable", "PT9"])


def _meter_at(panel, x):
    """The meter value at drawing x, read from the panel's x-axis tick labels."""
    ticks = [
        (float(t.get("x")), float(t.text.replace(",", "")))
        for t in panel.iter(NS + "text")
        if t.get("class") == "x-tick"
    ]
    (x0, m0), (x1, m1) = ticks[0], ticks[-1]
    return m0 + (m1 - m0) * (x - x0) / (x1 - x0)


def test_plot_svg(tmp_path):
    path = tmp_path / "odds.svg"
    assert odds.main(["--plot", str(path), "--meter", "30000"]) == 0
    root = ET.parse(path).getroot()
    panels = root.findall(NS + "g[@class='panel']")
    titles = [p.find(NS + "text").text for p in panels]
    assert titles == [
        "Make 'Em All Progressive: return to player vs meter",
        "Fired Up Progressive: return to player vs meter",
    ]
    # One line per distinct return line: MEA 01-04, 05-06; FUP 01-02, 03-04, 05, 06.
    series = [[g.get("data-paytables") for g in p.findall(NS + "g[@class='series']")] for p in panels]
    assert series == [
        ["PT-BJS-MEA-01/02/03/04", "PT-BJS-MEA-05/06"],
        ["PT-BJS-FUP-01/02", "PT-BJS-FUP-03/04", "PT-BJS-FUP-05", "PT-BJS-FUP-06"],
    ]
    rows = {r.paytable: r for r in odds_rows.all_rows() if r.progressive}
    for panel in panels:
        words = svgread.texts(panel)
        assert "meter (base units)" in words and "100%: break-even" in words and "meter 30,000" in words
        (ylabel,) = [t for t in panel.iter(NS + "text") if t.text == "return to player"]
        assert ylabel.get("transform") == "rotate(-90 %s %s)" % (ylabel.get("x"), ylabel.get("y"))
        # The dashed 100% line sits at the "100%" tick label (drawn 4 below its grid line).
        (even,) = panel.findall(NS + "line[@class='even']")
        assert even.get("stroke-dasharray")
        (tick,) = [t for t in panel.iter(NS + "text") if t.get("class") == "y-tick" and t.text == "100%"]
        assert float(even.get("y1")) == float(even.get("y2")) == float(tick.get("y")) - 4
        (meter,) = panel.findall(NS + "line[@class='meter']")
        assert _meter_at(panel, float(meter.get("x1"))) == pytest.approx(30000)
        for g in panel.findall(NS + "g[@class='series']"):
            line, legend = g.findall(NS + "line")
            (dot,) = g.findall(NS + "circle")
            assert dot.get("fill") == line.get("stroke") == legend.get("stroke")
            # The dot is where the line crosses the 100% line ...
            cx, cy = float(dot.get("cx")), float(dot.get("cy"))
            assert cy == float(even.get("y1"))
            x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
            assert cx == pytest.approx(x1 + (x2 - x1) * (cy - y1) / (y2 - y1), abs=0.05)
            # ... at the break-even meter of every paytable on the line.
            first = g.get("data-paytables").split("/")[0]
            be = float(rows[first].break_even_meter)
            assert _meter_at(panel, cx) == pytest.approx(be, rel=1e-3)
            assert "break-even " + format(be, ",.0f") in svgread.texts(g)
    # PT-BJS-FUP-03: 4187/8748 + m/69984 = 1 gives m = 8 x 4561 = 36,488 (docs/rules.md pays).
    (fup34,) = [g for g in panels[1].findall(NS + "g[@class='series']") if "03/04" in g.get("data-paytables")]
    assert _meter_at(panels[1], float(fup34.find(NS + "circle").get("cx"))) == pytest.approx(36488, rel=1e-3)
    assert "break-even 36,488" in svgread.texts(fup34)
    with pytest.raises(plot_svg.PlotError):
        plot_svg.write_plot(str(tmp_path / "x.gif"), [r for r in odds_rows.all_rows() if r.progressive])


def test_the_report_states_why_the_windows_leave_the_odds_unchanged():
    from sim.analysis import odds

    out = []
    odds.render(odds_rows.all_rows(), out.append)
    text = "".join(out)
    assert "fire_window, bonus_window) leave every figure unchanged" in text
    table1 = [r for r in odds_rows.all_rows() if r.name == "fire"][0]
    edge = table1.published[0]
    assert edge.explanation == "the exact value, 20.7628%, rounds to 20.76%; does not agree"


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert (librsvg2-bin) is not installed")
def test_plot_png(tmp_path):
    path = tmp_path / "odds.png"
    assert odds.main(["--plot", str(path)]) == 0
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (760, 690)  # the SVG's size: two panels of 330 and a 30 footer
