"""`python -m sim odds`: the exact odds of every paytable, computed from the rules.

    python -m sim odds [--json] [--meter AMOUNT] [--paytable ID ...]
    python -m sim odds --simulate N [--seed S]     # check the firmware engine
    python -m sim odds --plot FILE.svg|FILE.png    # return vs meter, progressives

Every figure is an exact fraction (`sim.analysis.odds_exact`, `sim.analysis.odds_rows`); the
seeds' published house edge and hit frequency are shown beside the exact ones.
See docs/odds.md.
"""

import argparse
import json
import sys
from fractions import Fraction

from sim.analysis import odds_rows
from sim.cli import ArgumentParser, CommandError

PER_CYCLE_NOTE = (
    "Probabilities are per wager cycle (Fire Bet: one shooter; Bonus Craps: start to win or 7; "
    "MEA Progressive: to 7, repeat or win; Fired Up: to mismatch or top). Rolls are independent, "
    "so a cycle's distribution does not depend on what came before it."
)
UNIT_NOTE = (
    "Per 1-unit wager; return includes the stake ('for 1' pays include it, 'to 1' pays add it). "
    "House edge = 1 - return; hit frequency = P(the wager pays anything)."
)
WINDOW_NOTE = (
    "The betting windows (fire_window, bonus_window) leave every figure unchanged: they decide only "
    "when a bet may be placed, and every bet they allow starts from a cycle with nothing marked "
    "(a new shooter before any point; a Bonus Craps wager with none of its numbers rolled), whose "
    "distribution is the one above because rolls are independent. A Fire Bet returned at an end hand "
    "before any point hands back its stake (returns 1) and is not a cycle here."
)
ENVY_NOTE = (
    "Dealer Envy per unit wagered = sum of P(level) x envy amount: exact for per-wager multiples and "
    "per-player amounts; for a fixed per-event amount it assumes one winning 1-unit player per event "
    "(an upper bound: winners of the same event share it)."
)


def frac(x):
    """'num/den' for a Fraction (None stays None)."""
    return None if x is None else "%d/%d" % (x.numerator, x.denominator)


def pct(x, places=4):
    return "%.*f%%" % (places, float(x) * 100)


def pays_text(row, level):
    pay = row.table.pays[level]
    if pay == odds_rows.pt.METER:
        return "meter"
    return str(pay) if pay else "-"


def row_json(row):
    obj = {
        "wager": row.name,
        "paytable": row.paytable,
        "unit": row.unit,
        "pays": {str(k): ("meter" if p == odds_rows.pt.METER else p) for k, p in enumerate(row.table.pays)},
        "levels": {str(k): frac(p) for k, p in enumerate(row.levels)},
        "hit_frequency": frac(row.hit_frequency),
        "hit_frequency_pct": float(row.hit_frequency * 100),
        "win_frequency": frac(row.win_frequency),
        "house_edge": frac(row.house_edge),
        "house_edge_pct": None if row.house_edge is None else float(row.house_edge * 100),
        "progressive": row.progressive,
    }
    if row.progressive:
        obj.update(
            return_excl_top=frac(row.return_excl_top),
            top_probability=frac(row.top_probability),
            break_even_meter=frac(row.break_even_meter),
            break_even_meter_units=float(row.break_even_meter),
            meter=None if row.meter is None else float(row.meter),
            return_at_meter=frac(row.return_at_meter),
            return_at_meter_pct=None if row.return_at_meter is None else float(row.return_at_meter * 100),
        )
    obj["envy_per_unit"] = frac(row.envy_per_unit)
    obj["envy_basis"] = row.envy_note
    obj["published"] = [
        {
            "figure": p.figure,
            "published": p.text,
            "exact_pct": float(p.exact),
            "difference_pp": float(p.difference),
            "agrees": p.agrees,
            "explanation": p.explanation,
            "source": odds_rows.PUBLISHED_SOURCE,
        }
        for p in row.published
    ]
    return obj


def _published_text(row, figure):
    for p in row.published:
        if p.figure == figure:
            mark = "=" if p.agrees else "!"
            return "\n    %s published %s, %+.4f pp: %s" % (mark, p.text, float(p.difference), p.explanation)
    return ""


def render_row(row, write):
    write("\n%s\n" % row.label())
    write("  level  pays        percent  probability\n")
    for k, p in enumerate(row.levels):
        write("  %5d  %-6s %11.6f%%  %s\n" % (k, pays_text(row, k), float(p) * 100, frac(p)))
    write(
        "  hit frequency  %9s  %s%s\n"
        % (pct(row.hit_frequency), frac(row.hit_frequency), _published_text(row, "hit_frequency"))
    )
    if row.win_frequency != row.hit_frequency:
        write(
            "  win frequency  %9s  %s  (more than the stake back; a pay of 1 for 1 only returns it)\n"
            % (pct(row.win_frequency), frac(row.win_frequency))
        )
    if row.house_edge is not None:
        write(
            "  house edge     %9s  %s%s\n"
            % (pct(row.house_edge), frac(row.house_edge), _published_text(row, "house_edge"))
        )
    else:
        top = row.top_probability
        write("  return excluding top award  %9s  %s\n" % (pct(row.return_excl_top), frac(row.return_excl_top)))
        write("  top award probability       1 in %s  %s\n" % (format(round(1 / top), ","), frac(top)))
        write(
            "  break-even meter            %s units  %s\n"
            % (format(float(row.break_even_meter), ",.2f"), frac(row.break_even_meter))
        )
        if row.return_at_meter is not None:
            edge = 1 - row.return_at_meter
            write(
                "  return at meter %s    %9s (house edge %s)  %s\n"
                % (format(float(row.meter), ",.2f"), pct(row.return_at_meter), pct(edge), frac(row.return_at_meter))
            )
    if row.envy_per_unit is not None:
        write(
            "  Dealer Envy per unit wagered  %.6f units  %s  (%s)\n"
            % (float(row.envy_per_unit), frac(row.envy_per_unit), row.envy_note)
        )


def render(rows, write):
    write("Exact odds of every paytable, from docs/rules.md (fractions, reduced).\n")
    for note in (PER_CYCLE_NOTE, UNIT_NOTE, WINDOW_NOTE, ENVY_NOTE):
        write(note + "\n")
    write(
        "Published figures: %s; '=' agrees to the printed precision, '!' does not (difference = published - exact).\n"
        % odds_rows.PUBLISHED_SOURCE
    )
    for row in rows:
        render_row(row, write)
    bad = [(r, p) for r in rows for p in r.published if not p.agrees]
    if bad:
        write("\nSeed figures that disagree with the exact values:\n")
        for r, p in bad:
            write(
                "  %-26s %-13s published %-7s exact %s  (%+.4f pp)\n"
                % (r.label(), p.figure, p.text, pct(p.exact / 100), float(p.difference))
            )


def parse_meter(text):
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if value < 0:
        raise argparse.ArgumentTypeError("the meter cannot be negative")
    return value


def positive_int(text):
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError("not a whole number: %r" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser():
    parser = ArgumentParser(
        prog="python -m sim odds", description="Exact odds of every paytable, computed from the rules."
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per row (fractions as 'num/den')")
    parser.add_argument(
        "--meter",
        type=parse_meter,
        metavar="AMOUNT",
        help="progressive meter in base units: show the return at this meter",
    )
    parser.add_argument(
        "--paytable",
        nargs="+",
        action="extend",
        metavar="ID",
        help="only these paytable ids or wager names (e.g. 3 PT1 PT-BJS-FUP-05 fired_up)",
    )
    parser.add_argument(
        "--simulate", type=positive_int, metavar="N", help="play N random rolls through the firmware engine and compare"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed for --simulate (default 1)")
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="always show the progress bar"
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")
    parser.add_argument(
        "--plot", metavar="FILE", help="write return vs meter for the progressives (.svg, or .png via rsvg-convert)"
    )
    return parser


PROGRESS_MIN_ROLLS = 200_000


def main(argv):
    args = build_parser().parse_args(argv)
    try:
        rows = odds_rows.select(odds_rows.all_rows(args.meter), args.paytable)
    except KeyError as e:
        raise CommandError(
            "no paytable or wager %s (try 1..6, PT1, PT2, PT-FLT-BC-03, PT-BJS-MEA-01, PT-BJS-FUP-01, fire, ...)"
            % json.dumps(e.args[0])
        )
    out = sys.stdout.write
    status = 0
    if args.plot:
        from sim.analysis import plot_svg

        try:
            plot_svg.write_plot(args.plot, [r for r in rows if r.progressive], args.meter)
        except plot_svg.PlotError as e:
            raise CommandError("cannot write %s: %s" % (args.plot, e))
        print("sim odds: wrote %s" % args.plot, file=sys.stderr)
    if args.simulate:
        from sim.analysis import odds_sim

        show = (
            args.progress
            if args.progress is not None
            else (sys.stderr.isatty() and args.simulate >= PROGRESS_MIN_ROLLS)
        )
        groups = odds_sim.run(rows, args.simulate, args.seed, odds_sim.progress_bar() if show else None)
        if args.json:
            out(json.dumps(odds_sim.to_json(groups, args.simulate, args.seed), indent=1) + "\n")
            status = 1 if odds_sim.flagged_count(groups) else 0
        else:
            status = 1 if odds_sim.render(groups, args.simulate, args.seed, out) else 0
    elif args.json:
        out(json.dumps([row_json(r) for r in rows], indent=1) + "\n")
    elif not args.plot:
        render(rows, out)
    return status
