"""Where every contributed cent of a linked progressive goes, over a long run of hits.

    python -m bench.floor.progressive_money [--hits N] [--seed S] [--paytable GAME=ID ...] [--out FILE]

Plays each game's meter (host_tools/floor/progressive/meter.py, the fold the
controller commits to its ledger) at the floor's default parameters for N top
awards (default 20,000 per game): the number of wagers between two hits is
drawn from the exact chance of the top award per wager (sim/analysis,
docs/odds.md), all of them contributed, then a hit of 1, 2 or 3 winning
wagers (80%, 15%, 5%) is paid, reset and acknowledged. At the end, exactly,
in micro-cents:

    contributed + house = top awards paid + meter + reserve + overflow

and the long-run return per unit wagered is R₀ (the fixed pays, exact) plus
(top awards + what the meter, reserve and overflow still hold) per unit
wagered, which is R₀ + the two rates + the house's money per unit wagered.
Writes build/progressive_money.json; docs/odds.md quotes its figures.
"""

import argparse
import json
import math
import os
import random
import sys
import time
from fractions import Fraction

from bench.floor import doc_figures
from host_tools.floor.progressive import params as pm
from host_tools.floor.progressive import rtp
from host_tools.floor.progressive.meter import Meter

PPM = pm.PPM
WINNERS = ((1, 0.80), (2, 0.15), (3, 0.05))  # winning wagers on one hit, and how often


def _gap(rng, log_miss):
    """Wagers placed up to and including the next top award (geometric, at least 1)."""
    u = 1.0 - rng.random()  # (0, 1]
    return 1 + int(math.log(u) / log_miss)


def _winners(rng):
    x = rng.random()
    for w, share in WINNERS:
        if x < share:
            return w
        x -= share
    return WINNERS[-1][0]


def run_game(p, hits, seed):
    """Play `hits` top awards on a meter with Params `p`; returns the figures (a dict)."""
    row = rtp.row(p.game, p.paytable)
    top = row.top_probability
    log_miss = math.log1p(-float(top))
    rng = random.Random("%s-%s-%d" % (p.game, p.paytable, seed))
    m = Meter(p)
    winners = 0
    for n in range(1, hits + 1):
        m.contribute("T", _gap(rng, log_miss))
        w = _winners(rng)
        winners += w
        k = m.lock("T", "b", 1, n, w, arrival=n)
        m.settle()
        m.acknowledge(k, "sam")
        # The money does not depend on an acknowledged hit's record: dropped, so the run stays linear.
        m.hits.clear()
        m.claimed.clear()
    money_in, held = m.balance()
    wagered = m.wagers * p.base_unit  # cents
    rates = Fraction(p.increment_ppm + p.reserve_ppm, PPM)
    end = m.amount * PPM + m.amount_frac + m.reserve * PPM + m.reserve_frac + m.overflow * PPM + m.overflow_frac
    to_players = Fraction(m.paid * PPM + end, PPM)  # cents: paid out, or held for the players
    long_run = row.return_excl_top + to_players / wagered
    stated = row.return_excl_top + rates + Fraction(m.house, wagered)
    return {
        "game": p.game,
        "paytable": p.paytable,
        "params": p.to_dict(),
        "hits": hits,
        "winning_wagers": winners,
        "wagers": m.wagers,
        "wagered_cents": wagered,
        "contributed_microcents": m.contributed,
        "contributed_is_rates": m.contributed == m.wagers * p.base_unit * (p.increment_ppm + p.reserve_ppm),
        "house_cents": m.house,
        "paid_cents": m.paid,
        "overflow_paid_microcents": m.overflow_out,
        "end": {
            "meter_microcents": m.amount * PPM + m.amount_frac,
            "reserve_microcents": m.reserve * PPM + m.reserve_frac,
            "overflow_microcents": m.overflow * PPM + m.overflow_frac,
        },
        "balanced": money_in == held,
        "r0": "%d/%d" % (row.return_excl_top.numerator, row.return_excl_top.denominator),
        "r0_pct": float(row.return_excl_top * 100),
        "house_per_unit_pct": float(Fraction(m.house * 100, wagered)),
        "long_run": "%d/%d" % (long_run.numerator, long_run.denominator),
        "long_run_pct": float(long_run * 100),
        "long_run_is_stated": long_run == stated,
        "top_awards_pct": float(Fraction(m.paid * 100, wagered)),
    }


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m bench.floor.progressive_money", description=__doc__.split("\n")[0])
    ap.add_argument("--hits", type=int, default=20_000, help="top awards per game (default 20,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paytable", action="append", default=[], metavar="GAME=ID", help="another paytable to run too")
    ap.add_argument("--out", default=os.path.join("build", "progressive_money.json"))
    return ap.parse_args(argv)


def games(extra):
    """The default parameters of each game, then each GAME=ID given (the defaults on that paytable)."""
    defaults = pm.default_params()
    out = [pm.check_game(g, defaults[g]) for g in sorted(defaults)]
    for item in extra:
        game, _, ident = item.partition("=")
        out.append(pm.check_game(game, dict(defaults.get(game, {}), paytable=ident)))
    return out


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        todo = games(args.paytable)
    except ValueError as e:
        print("progressive_money: %s" % e, file=sys.stderr)
        return 2
    rows = []
    for p in todo:
        t0 = time.monotonic()
        r = run_game(p, args.hits, args.seed)
        r["seconds"] = round(time.monotonic() - t0, 2)
        rows.append(r)
        end = r["end"]
        print(
            "%s %s: %d hits, %d wagers; long-run return %.6f%% = R0 %.6f%% + rates %.2f%% + house %.6f%%; "
            "top awards %.6f%%; end: meter %s, reserve %s, overflow %s cents; overflow paid %s cents; "
            "every cent accounted: %s"
            % (
                r["game"],
                r["paytable"],
                r["hits"],
                r["wagers"],
                r["long_run_pct"],
                r["r0_pct"],
                (p.increment_ppm + p.reserve_ppm) / 10_000,
                r["house_per_unit_pct"],
                r["top_awards_pct"],
                _cents(end["meter_microcents"]),
                _cents(end["reserve_microcents"]),
                _cents(end["overflow_microcents"]),
                _cents(r["overflow_paid_microcents"]),
                "yes" if r["balanced"] and r["long_run_is_stated"] and r["contributed_is_rates"] else "NO",
            )
        )
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        stamp = doc_figures.bench_stamp("progressive_money", sys.argv[1:] if argv is None else argv)
        json.dump({"hits": args.hits, "seed": args.seed, "games": rows, "stamp": stamp}, f, indent=1, sort_keys=True)
    ok = all(r["balanced"] and r["long_run_is_stated"] and r["contributed_is_rates"] for r in rows)
    return 0 if ok else 1


def _cents(micro):
    whole, frac = divmod(micro, PPM)
    return "%d.%06d" % (whole, frac)


if __name__ == "__main__":
    sys.exit(main())
