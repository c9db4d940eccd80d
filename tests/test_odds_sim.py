"""`odds --simulate`: the firmware engine, fed random rolls, agrees with the exact odds.

The seed is fixed, so the outcome is the same on every run: no flakes. The
4-standard-error rule over ~60 levels would also pass for almost any seed
(a false flag somewhere has a chance well under 1%), and the test below shows
the same check does fail when the exact distribution is wrong.
"""

import io
import math
from fractions import Fraction as F

import pytest

from sim.analysis import odds, odds_exact, odds_rows, odds_sim

ROLLS = 150_000
SEED = 20240611


@pytest.fixture(scope="module")
def groups():
    return odds_sim.run(odds_rows.all_rows(), ROLLS, SEED)


def test_groups_cover_every_row(groups):
    labels = {g.label() for g in groups}
    assert len(groups) == 8  # fire, small, tall, all, MEA, three Fired Up families
    assert "Fired Up Progressive: PT-BJS-FUP-03, PT-BJS-FUP-04" in labels
    assert sum(len(g.rows) for g in groups) == len(odds_rows.all_rows())


def test_engine_agrees_with_exact_distribution(groups):
    for g in groups:
        n = sum(g.counts)
        assert n > 10_000, g.label()
        for k, p in enumerate(g.levels):
            obs, lo, hi, z, flagged = odds_sim.level_stats(g.counts[k], n, p)
            assert not flagged, (g.label(), k, g.counts[k], n, float(p))
        # And a pooled chi-square over the levels with enough expected counts.
        chi2, df = 0.0, -1
        for k, p in enumerate(g.levels):
            expected = n * float(p)
            if expected >= 20:
                chi2 += (g.counts[k] - expected) ** 2 / expected
                df += 1
        # P(chi2 > df + 6 sqrt(2 df) + 10) is far below 1e-6 for these df.
        assert chi2 < df + 6 * math.sqrt(2 * df) + 10, (g.label(), chi2, df)


def test_resolution_counts_follow_the_rules(groups):
    by = {g.label(): sum(g.counts) for g in groups}
    small = by["All Small: PT1, PT2, PT-FLT-BC-03"]
    tall = by["All Tall: PT1, PT2, PT-FLT-BC-03"]
    fup = [v for k, v in by.items() if k.startswith("Fired Up")]
    # every 7 resolves every Bonus Craps wager; wins add one each
    small_wins = next(g for g in groups if g.rows[0].name == "all_small").counts[5]
    tall_wins = next(g for g in groups if g.rows[0].name == "all_tall").counts[5]
    assert small - small_wins == tall - tall_wins
    assert all(v < ROLLS for v in fup)


def test_check_catches_a_wrong_distribution(groups):
    # Hold the MEA Progressive counts against Make 'Em All's distribution
    # (repeats ignored instead of ending the cycle): must be flagged.
    mea = next(g for g in groups if g.rows[0].name == "mea_progressive")
    wrong = odds_exact.bonus_levels(odds_exact.ALL)
    n = sum(mea.counts)
    assert any(odds_sim.level_stats(mea.counts[k], n, wrong[k])[4] for k in range(11))
    # A subtler error: Fired Up's one-match probability off by one percentage
    # point (about 8 standard errors at this many cycles).
    fup = next(g for g in groups if g.rows[0].paytable == "PT-BJS-FUP-01")
    n = sum(fup.counts)
    assert odds_sim.level_stats(fup.counts[1], n, fup.levels[1] + F(1, 100))[4]
    assert odds_sim.level_stats(fup.counts[1], n, fup.levels[1] - F(1, 100))[4]


def test_level_stats_and_tail():
    obs, lo, hi, z, flagged = odds_sim.level_stats(600, 1000, F(1, 2))
    assert obs == 0.6 and lo < 0.6 < hi
    assert z == pytest.approx(0.1 / math.sqrt(0.25 / 1000))
    assert flagged  # 6.3 standard errors
    assert not odds_sim.level_stats(520, 1000, F(1, 2))[4]
    # Exact tail for rare levels: 3 seen where 0.5 expected is not 4 sigma; 9 is.
    assert not odds_sim.level_stats(3, 100_000, F(5, 1_000_000))[4]
    assert odds_sim.level_stats(9, 100_000, F(5, 1_000_000))[4]
    # binomial_tail against a direct sum
    n, p, k = 40, 0.1, 9
    direct = sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))
    assert odds_sim.binomial_tail(k, n, p) == pytest.approx(2 * direct, rel=1e-9)


def test_cli_simulate_json_and_text(capsys):
    assert odds.main(["--simulate", "20000", "--seed", "3", "--paytable", "PT-BJS-FUP-05", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["rolls"] == 20000 and data["flagged"] == 0
    assert [g["paytables"] for g in data["groups"]] == [["PT-BJS-FUP-05"]]
    level0 = data["groups"][0]["levels"]["0"]
    assert level0["exact"] == "31/36" and level0["count"] > 0
    assert odds.main(["--simulate", "5000", "--paytable", "fire", "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "Fire Bet: 1, 2, 3, 4, 5, 6" in out.out and "within 4 standard errors" in out.out
    assert out.err == ""  # no progress bar when not asked and not a terminal


def test_progress_bar():
    buf = io.StringIO()
    draw = odds_sim.progress_bar(buf, width=10)
    draw(5, 10)
    draw(10, 10)
    text = buf.getvalue()
    assert "[#####.....]" in text and text.endswith("\n") and "10 rolls" in text
