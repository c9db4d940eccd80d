"""Every contributed cent of the linked progressive goes back to the players: a sample
of the long run (bench/floor/progressive_money.py plays it whole) with the
controller's own meter, checked by sums worked apart from the meter."""

import json
from fractions import Fraction

from bench.floor import doc_figures, doc_tables
from bench.floor import progressive_money as pmoney
from host_tools.floor.progressive import params as pm
from host_tools.floor.progressive import rtp
from host_tools.floor.progressive.meter import Meter
from sim.analysis import doc_figures as shared

PPM = pm.PPM
HITS = 400  # per game; the bench plays 20,000


def test_a_sample_of_the_long_run_accounts_for_every_cent_at_the_defaults(tmp_path):
    out = tmp_path / "money.json"
    assert pmoney.main(["--hits", str(HITS), "--out", str(out), "--paytable", "FUP=PT-BJS-FUP-05"]) == 0
    got = json.loads(out.read_text())["games"]
    assert [(g["game"], g["paytable"]) for g in got] == [
        ("FUP", "PT-BJS-FUP-01"),
        ("MEA", "PT-BJS-MEA-01"),
        ("FUP", "PT-BJS-FUP-05"),
    ]
    for g in got:
        p = g["params"]
        assert g["hits"] == HITS and HITS <= g["winning_wagers"] <= 3 * HITS
        # every wager's two shares, exactly: a $1 wager gives 10 cents to the meter and 2 hidden
        assert g["contributed_microcents"] == g["wagers"] * 100 * 120_000
        end = g["end"]
        held = end["meter_microcents"] + end["reserve_microcents"] + end["overflow_microcents"]
        # top awards + what the meter, reserve and overflow still hold = every cent contributed + the house's
        assert g["paid_cents"] * PPM + held == g["contributed_microcents"] + g["house_cents"] * PPM
        # the reserve never keeps more than its ceiling; the meter never more than the cap
        assert end["reserve_microcents"] <= p["reserve_ceiling"] * PPM
        assert end["meter_microcents"] <= p["cap"] * PPM
        # the long-run return: R0 + 12% + the house's money per unit wagered, to the micro-cent
        r0 = rtp.row(g["game"], g["paytable"]).return_excl_top
        wagered = g["wagers"] * 100
        long_run = r0 + Fraction(g["paid_cents"] * PPM + held, PPM * wagered)
        assert long_run == r0 + Fraction(12, 100) + Fraction(g["house_cents"], wagered)
        assert g["long_run"] == "%d/%d" % (long_run.numerator, long_run.denominator)
        assert g["balanced"] and g["long_run_is_stated"]
    fup5 = got[2]
    # FUP-05 at the defaults: a hit's wagers bring more than the $50,000 cap takes, so the
    # overflow grows; it is the players' (shown, paid at each reset), not the house's.
    assert fup5["end"]["overflow_microcents"] > 0 and fup5["overflow_paid_microcents"] > 0


def test_the_overflow_goes_back_at_each_reset_on_a_run_worked_by_hand():
    # $1 unit, 10% to the meter, 20% hidden, reserve ceiling one reset, cap $1,100.
    p = pm.check_game(
        "MEA",
        {
            "paytable": "PT-BJS-MEA-01",
            "base_unit": 100,
            "base": 100_000,
            "reset": 100_000,
            "increment_ppm": 100_000,
            "reserve_ppm": 200_000,
            "reserve_ceiling": 100_000,
            "cap": 110_000,
        },
    )
    m = Meter(p)
    m.contribute("T1", 600_000)  # $60,000 to the meter: $100 reach the cap, $59,900 overflow;
    # $120,000 hidden: $1,000 fill the reserve, $119,000 overflow. Overflow $178,900.
    assert (m.amount, m.reserve, m.overflow) == (110_000, 100_000, 17_890_000)
    m.lock("T1", "b", 1, 1, 1, 1)
    hit = m.settle()[0]
    # pays $1,100; the reset $1,000 from the reserve, then $100 of the overflow (the cap)
    assert hit["pays"] == [110_000] and hit["reseeds"] == [[100_000, 0, 10_000]]
    assert (m.amount, m.reserve, m.overflow, m.house) == (110_000, 0, 17_880_000, 100_000)
    # money in: 600,000 x $0.30 + the $1,000 base = $181,000 = $1,100 paid + $1,100 meter + $178,800
    assert 600_000 * 30 + 100_000 == 110_000 + 110_000 + 17_880_000
    m.acknowledge(1, "sam")
    assert m.view()["overflow"] == 17_880_000 and m.view()["reset"] == 100_000


def test_docs_odds_figures_are_the_whole_bench_run(tmp_path):
    """docs/odds.md's generated table is what the writer makes of the bench's whole run (20,000 hits a
    game, seed 1): seeded and counted in micro-cents, a fresh run gives the same figures to the cent."""
    out = tmp_path / "money.json"
    assert pmoney.main(["--out", str(out), "--paytable", "FUP=PT-BJS-FUP-05"]) == 0
    run = json.loads(out.read_text())
    assert run["hits"] == 20_000 and len(run["games"]) == 3
    section = shared.read_section("docs/odds.md", doc_figures.marker("money"))
    assert section is not None, "docs/odds.md has no generated money section"
    stamp = section.splitlines()[0]  # when and where it ran; every figure after it is the run's
    assert section == doc_tables.money_section(dict(run, stamp=stamp))
