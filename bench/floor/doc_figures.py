"""The figures `make bench-floor` measures, written into the docs from the
benches' output rather than typed. Each bench writes its build/*.json with a
stamp; then this rewrites every section from them, between its markers
`<!-- make bench-floor: NAME: begin -->` and `<!-- make bench-floor: NAME: end -->`,
with the shared writer (sim/analysis/doc_figures.py, as `make bench` writes
its own):

    floor        docs/floor.md, Figures           build/floor_bench.json
    page         docs/floor.md, the page's Figure build/page_bench.json
    progressive  docs/progressive.md, Figures     build/progressive_bench.json
    money        docs/odds.md, the progressive    build/progressive_money.json
    scale        docs/floor.md, Past one machine  build/scale_bench.json

The scale section's rows each name the bench/floor function that measured
them; its first line says the command, the commit, the cores and the load.

    python -m bench.floor.doc_figures [--section NAME ...] [--json PATH --doc PATH]
"""

import argparse
import json
import os
import sys

from bench.floor import doc_tables
from sim.analysis import doc_figures as shared
from sim.paths import ROOT

MARKER = "make bench-floor: scale"
DOC = "docs/floor.md"  # from the repository's root, as the shared writer takes it
JSON = os.path.join(ROOT, "build", "scale_bench.json")
HEADER = ("figure", "value", "measured by (`bench/floor/`)")
# each bench's arguments in the Makefile's bench-floor target: run with them, its stamp says `make bench-floor`
MAKE_ARGS = {
    "floor_bench": [],
    "page_bench": [],
    "progressive_bench": [],
    "progressive_money": ["--paytable", "FUP=PT-BJS-FUP-05"],
}
BUSY_TABLE_RECORDS_S = 2.5  # a roll every 0.4 s, the dealer's pace at a busy table (docs/floor.md, Figures)


def bench_stamp(bench, argv):
    """The stamp a bench stores in its JSON at its end: `make bench-floor` when run as the Makefile
    runs it, else the bench's own command with the arguments given, so a smaller run says so."""
    argv = list(argv)
    if argv == MAKE_ARGS[bench]:
        return shared.stamp("make bench-floor")
    return shared.stamp(" ".join(["python -m bench.floor." + bench] + argv))


def n(value):
    return "{:,}".format(round(value))


def runs(items, key):
    return " and ".join(n(i[key]) for i in items)


def _rates(data, key, verified):
    """'a and b / c and d': SQLite's runs / PostgreSQL's runs of one figure."""
    which = "mac_verified" if verified else "mac_not_verified"
    sqlite = data["store_rate_sqlite"][which]
    pg = data.get("store_rate_postgresql", {}).get(which)
    return "%s / %s" % (runs(sqlite, key), runs(pg, key) if pg else "not measured (%s)" % data.get("postgresql"))


def _records(count):
    return "one record" if count == 1 else "%d records" % count


def _mean(items, key):
    return sum(i[key] for i in items) / len(items)


def mac_cost_us(rate):
    """CPU microseconds the MAC check adds to a record: the two rates' means, side by side."""
    return 1e6 / _mean(rate["mac_verified"], "per_cpu_second") - 1e6 / _mean(rate["mac_not_verified"], "per_cpu_second")


def stamp(data):
    m = data["machine"]
    return (
        "Measured by `make bench-floor` at commit %s on %s (%d cores, load %.1f at the start, %.1f at the end; "
        "shared with other engineers' runs): `%s` wrote build/scale_bench.json, "
        "`python -m bench.floor.doc_figures` this table."
        % (m["commit"], m["date"], m["cpus"], m["load_at_start"], m["load_at_end"], m["command"])
    )


def rows(data):
    """[(figure, value, the bench/floor function that measured it, as module.function)]."""
    out = [
        (
            "records one recorder stores per second of its own CPU, chain and MAC verified, 10 tables, "
            "%s a transaction: SQLite / PostgreSQL (two runs each)" % _records(data.get("store_batch", 1)),
            _rates(data, "per_cpu_second", True),
            "scale_bench.rates",
        ),
        ("the same with the MAC check alone taken out", _rates(data, "per_cpu_second", False), "scale_bench.rates"),
    ]
    pg = data.get("store_rate_postgresql")
    for key, label in (
        ("store_rate_postgresql", "PostgreSQL, per second of the recorder's and the server's CPU together"),
        (
            "store_rate_postgresql_lone_records",
            "the same, one record a transaction (a lone record, as on a quiet floor)",
        ),
    ):
        rates = data.get(key)
        if rates:
            both = [runs(rates[k], "per_cpu_second_with_server") for k in ("mac_verified", "mac_not_verified")]
            out.append((label + ": MAC verified / not", "%s / %s" % tuple(both), "scale_bench.rates"))
    busy = data.get("busy_sqlite")
    if busy:
        b = busy[0]
        pg_busy = data.get("busy_postgresql")
        out.append(
            (
                "stored and said in `recorded`, on a busy floor: %d tables holding %s records each, one record a "
                "table between two `recorded` (a busy table's pace), %s a transaction: SQLite, its CPU / "
                "PostgreSQL, its and the server's CPU" % (b["tables"], n(b["held"]), _records(b["batch"])),
                "%s / %s"
                % (
                    runs(busy, "per_cpu_second"),
                    runs(pg_busy, "per_cpu_second_with_server") if pg_busy else "not measured",
                ),
                "scale_bench.busy_rate",
            )
        )
    spread = [mac_cost_us(data["store_rate_sqlite"])] + ([mac_cost_us(pg)] if pg else [])
    out += [
        (
            "what the MAC check costs a record: timed alone, CPU (the rows above, their means' difference: "
            "SQLite%s)" % (", PostgreSQL" if pg else ""),
            "%.1f µs (%s µs)" % (data["mac_check_us_per_record"], ", ".join("%+.1f" % c for c in spread)),
            "recorder_bench.mac_check_us",
        ),
        (
            "per second of wall clock, MAC verified (SQLite commits each transaction with `synchronous=full`, "
            "so the shared disk sets it; PostgreSQL's server works beside it): SQLite / PostgreSQL",
            _rates(data, "per_wall_second", True),
            "scale_bench.rates",
        ),
    ]
    for key, where in (
        ("publish_to_stored_floor_broker", "on the floor's broker"),
        ("publish_to_stored_through_a_pit_bridge", "through a pit's broker and its bridge (2 pits of 2 tables)"),
    ):
        lat = data[key]
        out.append(
            (
                "a record published → stored at the recorder, 4 tables each publishing every 20 ms, %s: "
                "p50 / p99 / max (%d records)" % (where, lat["records"]),
                "%s / %s / %s ms" % (lat["p50_ms"], lat["p99_ms"], lat["max_ms"]),
                "scale_bench.latencies",
            )
        )
    two = data.get("two_recorders_one_killed")
    if two:
        out.append(
            (
                "two recorders on PostgreSQL, one SIGKILLed (and restarted later) while 4 tables publish every "
                "%d ms: the longest time no record was stored" % two["pace_ms"],
                "%s ms (every record once, in order, chain verified: %s)"
                % (two["longest_gap_ms"], "yes" if two["stored_once_in_order_chain_checked"] else "NO"),
                "scale_bench.two_recorders",
            )
        )
    took = data.get("controller_killed_standby_online")
    if took:
        out.append(
            (
                "the progressive controller SIGKILLed: its standby's presence `online` on the broker",
                ", ".join("%.2f" % s for s in took["samples_s"]) + " s",
                "takeover.controller_takeover",
            )
        )
    cut = data["bridge_cut_and_restored"]
    out.append(
        (
            "a bridge cut: the floor's broker stopped %g s while 2 pits' 4 tables publish %d records; "
            "from its restart to the recorder holding all" % (cut["cut_s"], cut["records_queued"]),
            "%s s" % cut["catch_up_s"],
            "scale_bench.bridge_cut",
        )
    )
    load = data["load_100_tables_in_2_pits"]
    parts = ("pit broker 1", "floor broker", "recorder")
    out += [
        (
            "%d tables in 2 pits, each publishing a record every 0.4 s (a busy table's pace; %s records/s) "
            "for %s s: a pit broker / the floor's broker / the recorder (SQLite), CPU and RSS"
            % (load["tables"], n(load["records_per_s"]), load["seconds"]),
            " / ".join("%s %% and %s MB" % (load[p]["cpu_pct"], load[p]["rss_mb"]) for p in parts),
            "scale_bench.broker_load",
        ),
        (
            "the same per table: a pit broker's, the floor broker's, the recorder's CPU (% of a core)",
            " / ".join("%s %%" % load[p]["cpu_pct_per_table"] for p in parts),
            "scale_bench.broker_load",
        ),
    ]
    out += pty_rows(data.get("pty_boards"))
    return out


def _share(run, kind):
    return "%s %% and %s MB" % (run[kind]["cpu_percent_per_table"], run[kind]["rss_mb_per_table"])


def pty_rows(pty):
    """The 50-table bench's boards on the floor's broker alone and in 2 pits, per table."""
    if not pty:
        return []
    alone, pitted = pty["floor_broker"], pty["2_pits"]
    what = (
        "%d boards (`pty_boards.py`: the firmware's App and link under CPython on ptys, one process) with a "
        "gateway each, a roll every 0.4 s for %s s, %s: per table, CPU (%% of a core) and RSS of %s"
    )
    kinds = ("board", "gateway", "broker", "recorder")
    out = [
        (
            what
            % (
                alone["tables"],
                alone["window_s"],
                "on the floor's broker alone",
                "the board / its gateway / the floor broker's share / the recorder's share",
            ),
            " / ".join(_share(alone, k) for k in kinds),
            "floor_bench.scale",
        ),
        (
            what
            % (
                pitted["tables"],
                pitted["window_s"],
                "in 2 pits bridged to the floor's broker",
                "the board / its gateway / its pit broker's share / the floor broker's share / the recorder's share",
            ),
            " / ".join(_share(pitted, k) for k in ("board", "gateway", "pit broker", "broker", "recorder")),
            "floor_bench.scale",
        ),
        (
            "those runs: records made and every one recorded",
            "%s, %s / %s, %s"
            % (
                n(alone["records"]),
                "yes" if alone["all_recorded"] else "NO",
                n(pitted["records"]),
                "yes" if pitted["all_recorded"] else "NO",
            ),
            "floor_bench.scale",
        ),
    ]
    per_core = [
        ("the floor's broker alone", alone["broker"]),
        ("a pit's broker", pitted["pit broker"]),
        ("the floor's broker behind the pits", pitted["broker"]),
    ]
    out.append(
        (
            "tables one core of broker carries at those shares (100 %% over the share a table): %s"
            % " / ".join(name for name, _ in per_core),
            " / ".join(
                n(100 / share["cpu_percent_per_table"]) if share["cpu_percent_per_table"] else "—"
                for _, share in per_core
            ),
            "floor_bench.scale",
        )
    )
    return out


def section(data):
    table = [(figure, value, "`%s`" % where) for figure, value, where in rows(data)]
    lines = [stamp(data), "", shared.markdown(table, HEADER)]
    busy = data.get("busy_sqlite")
    if busy:  # a busy floor's rate: every record stored and said in `recorded`
        sqlite = min(i["per_cpu_second"] for i in busy)
        pg = data.get("busy_postgresql")
        both = min(i["per_cpu_second_with_server"] for i in pg) if pg else None
        which = "the slowest busy-floor run's rate (every record stored and said, every check on)"
    else:
        sqlite = min(i["per_cpu_second"] for i in data["store_rate_sqlite"]["mac_verified"])
        pg = data.get("store_rate_postgresql")
        both = min(i["per_cpu_second_with_server"] for i in pg["mac_verified"]) if pg else None
        which = "the slowest run's rate with every check on"
    tail = "one core records ~%s busy tables (%.1f records/s each) on SQLite" % (
        n(sqlite / BUSY_TABLE_RECORDS_S),
        BUSY_TABLE_RECORDS_S,
    )
    if both:
        tail += ", ~%s on PostgreSQL counting the server's CPU too" % n(both / BUSY_TABLE_RECORDS_S)
    lines += ["", "At %s, %s." % (which, tail)]
    return "\n".join(lines)


def sections():
    """{name: (doc, its build/*.json, the function making the section's text from that JSON)}."""
    return {
        "floor": ("docs/floor.md", "floor_bench.json", doc_tables.floor_section),
        "page": ("docs/floor.md", "page_bench.json", doc_tables.page_section),
        "progressive": ("docs/progressive.md", "progressive_bench.json", doc_tables.progressive_section),
        "money": ("docs/odds.md", "progressive_money.json", doc_tables.money_section),
        "scale": (DOC, "scale_bench.json", section),
    }


def marker(name):
    return "make bench-floor: " + name


def write(name, json_path, doc):
    """Section `name` of `doc` rewritten from `json_path`; an error is one line on stderr and 1."""
    render = sections()[name][2]
    try:
        with open(json_path, encoding="utf-8") as f:
            markdown = render(json.load(f))
    except OSError as e:
        print("doc_figures: cannot read %s: %s (run make bench-floor)" % (json_path, e.strerror), file=sys.stderr)
        return 1
    except (ValueError, KeyError, TypeError, ZeroDivisionError, AttributeError) as e:
        what = "no %s in it" % e if isinstance(e, KeyError) else e
        bench = sections()[name][1].rsplit(".", 1)[0]
        print("doc_figures: %s is not %s's output (%s)" % (json_path, bench, what), file=sys.stderr)
        return 1
    try:
        shared.write_section(doc, marker(name), markdown)  # no markers: one line and exit 1 (SystemExit)
    except OSError as e:
        print("doc_figures: cannot write %s: %s" % (doc, e.strerror), file=sys.stderr)
        return 1
    print("wrote %s (%s)" % (doc, marker(name)))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.floor.doc_figures", description=__doc__.splitlines()[0])
    parser.add_argument("--section", action="append", choices=sorted(sections()), help="only these (default: all)")
    parser.add_argument("--json", help="the bench's output to read (one --section only)")
    parser.add_argument("--doc", help="the doc to write (one --section only)")
    args = parser.parse_args(argv)
    names = args.section or list(sections())
    if (args.json or args.doc) and len(names) != 1:
        print("doc_figures: --json and --doc name one section's files: give one --section", file=sys.stderr)
        return 2
    for name in names:
        doc, build, _ = sections()[name]
        if write(name, args.json or os.path.join(ROOT, "build", build), args.doc or doc):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
