"""The figures `make bench-floor` measures are written into the docs by
bench/floor/doc_figures.py from the benches' build/*.json, not typed: each
generated section (floor, page, progressive, money in docs/floor.md,
docs/progressive.md and docs/odds.md; scale past one machine) is there once
and says its command, commit, cores and load; each renderer puts the JSON's
figures in its rows; the writer rewrites its section alone. build/ is not
committed; where a build/*.json with a stamp is at hand, the doc's figures
agree with it within the section's tolerance (timings a factor of 3, the
seeded money run exactly), and the scale section is exactly what the writer
makes of the same run's JSON."""

import importlib
import json
import os
import re
import subprocess
import sys

import pytest

from bench.floor import doc_figures
from sim.analysis import doc_figures as shared
from sim.paths import ROOT

STAMP = re.compile(
    r"^Measured by `make bench-floor` at commit ([0-9a-f]{7,}) on (\d{4}-\d\d-\d\d) \((\d+) cores, load (\d+\.\d) "
    r"at the start, (\d+\.\d) at the end; shared with other engineers' runs\): `python -m bench\.floor\.scale_bench` "
    r"wrote build/scale_bench\.json, `python -m bench\.floor\.doc_figures` this table\.$"
)


def doc_section():
    return shared.read_section(doc_figures.DOC, doc_figures.MARKER)


def table_rows(section):
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| figure")]


def sample():
    """A scale_bench output as main() writes it, small figures."""
    rate = {"records": 3000, "per_cpu_second": 5000, "per_wall_second": 2000}
    pg = dict(rate, per_cpu_second=3000, per_cpu_second_with_server=2000)
    lat = {"records": 400, "p50_ms": 2.0, "p99_ms": 30.0, "max_ms": 40.0}
    part = {"cpu_pct": 1.0, "rss_mb": 11.0, "cpu_pct_per_table": 0.01}
    kind = {"cpu_percent_per_table": 0.5, "rss_mb_per_table": 2.0}
    pty = {"tables": 50, "window_s": 20.0, "records": 2000, "all_recorded": True}
    pty.update(board=kind, gateway=kind, broker=kind, recorder=kind)
    return {
        "pty_boards": {"floor_broker": pty, "2_pits": dict(pty, **{"pit broker": kind})},
        "machine": {
            "command": "python -m bench.floor.scale_bench",
            "commit": "abc1234",
            "date": "2026-01-01",
            "cpus": 2,
            "load_at_start": 1.0,
            "load_at_end": 2.0,
        },
        "mac_check_us_per_record": 3.4,
        "store_rate_sqlite": {"mac_verified": [rate, rate], "mac_not_verified": [dict(rate, per_cpu_second=6000)] * 2},
        "store_rate_postgresql": {"mac_verified": [pg, pg], "mac_not_verified": [pg, pg]},
        "two_recorders_one_killed": {
            "records": 600,
            "stored_once_in_order_chain_checked": True,
            "longest_gap_ms": 25.0,
            "pace_ms": 20.0,
        },
        "controller_killed_standby_online": {"samples_s": [0.26, 0.3, 0.28]},
        "publish_to_stored_floor_broker": lat,
        "publish_to_stored_through_a_pit_bridge": lat,
        "bridge_cut_and_restored": {"records_queued": 400, "cut_s": 5.0, "catch_up_s": 3.1},
        "load_100_tables_in_2_pits": dict(
            {"tables": 100, "records": 3700, "records_per_s": 246, "seconds": 15.0},
            **{"pit broker 1": part, "pit broker 2": part, "floor broker": part, "recorder": part},
        ),
    }


def test_the_docs_section_says_its_command_commit_cores_and_load():
    section = doc_section()
    stamp = section.splitlines()[0]
    assert STAMP.match(stamp), stamp
    assert len(table_rows(section)) >= 10


def test_every_figure_names_the_function_that_measured_it():
    for row in table_rows(doc_section()):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 3 and cells[1], row
        module, _, function = cells[2].strip("`").partition(".")
        assert module in ("scale_bench", "takeover", "recorder_bench", "floor_bench"), row
        where = importlib.import_module("bench.floor." + module)
        assert callable(getattr(where, function, None)), "%s names no bench function" % row


def test_the_writer_rewrites_its_section_alone(tmp_path):
    doc = tmp_path / "floor.md"
    before, after = "# Floor\n\ntext before\n", "\ntext after, kept\n"
    doc.write_text(
        before + "<!-- make bench-floor: scale: begin -->\nold figures\n<!-- make bench-floor: scale: end -->" + after
    )
    markdown = doc_figures.section(sample())
    shared.write_section(str(doc), doc_figures.MARKER, markdown)
    once = doc.read_text()
    shared.write_section(str(doc), doc_figures.MARKER, markdown)
    assert doc.read_text() == once  # written again from the same figures: the same bytes
    assert once.startswith(before) and once.endswith(after) and "old figures" not in once
    section = shared.read_section(None, doc_figures.MARKER, once)
    assert section == markdown and STAMP.match(section.splitlines()[0])
    assert "| 5,000 and 5,000 / 3,000 and 3,000 |" in section  # SQLite's runs / PostgreSQL's, MAC verified
    assert "| 200 / 200 / 200 |" in section  # tables a core of broker carries: 100 % over 0.5 % a table
    assert "| 3.4 µs (+33.3, +0.0 µs) |" in section  # timed alone; 1e6/5000 - 1e6/6000 on SQLite


def test_a_doc_without_its_markers_or_a_broken_json_is_one_line_and_exit_1(tmp_path):
    data = tmp_path / "scale_bench.json"
    data.write_text(json.dumps(sample()))
    doc = tmp_path / "floor.md"
    doc.write_text("# Floor, no markers\n")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"machine": {}}))
    for argv, says in (
        (["--section", "scale", "--json", str(data), "--doc", str(doc)], "make bench-floor: scale: begin"),
        (["--section", "scale", "--json", str(bad), "--doc", str(doc)], "is not scale_bench's output"),
        (["--section", "scale", "--json", str(tmp_path / "none.json"), "--doc", str(doc)], "run make bench-floor"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "bench.floor.doc_figures", *argv], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 1 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert doc.read_text() == "# Floor, no markers\n"


def test_the_section_is_what_the_writer_makes_of_the_same_runs_json():
    path = os.path.join(ROOT, "build", "scale_bench.json")
    if not os.path.exists(path):
        pytest.skip("no build/scale_bench.json: run make bench-floor")
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    written = doc_section()
    if doc_figures.stamp(data) != written.splitlines()[0]:
        pytest.skip("build/scale_bench.json is from another run than the doc's")
    assert written == doc_figures.section(data)


# The other sections: each bench's JSON through its renderer (bench/floor/doc_tables.py).
FACTOR = 3.0  # timings on 2 shared cores move run to run by up to about 2-3x (load 7 to 30)
EXACT = 1.0  # progressive_money is seeded and counts in micro-cents: the same run, the same figures
TOLERANCE = {"floor": FACTOR, "page": FACTOR, "progressive": FACTOR, "money": EXACT}
BENCH_STAMP = re.compile(
    r"^Measured by `(make bench-floor|python -m bench\.floor\.(\w+)( [^`]*)?)` at commit [0-9a-f]{7,} on "
    r"\d{4}-\d\d-\d\d \(\d+ cores, load \d+\.\d at the end\)\.$"
)
STAMP_LINE = "Measured by `make bench-floor` at commit abc1234 on 2026-01-01 (2 cores, load 1.5 at the end)."


def freeze(offline, will, online):
    return {"offline_s": offline, "will_s": will, "verdict_online_s": online, "online_again_s": online}


def floor_sample():
    per = {"cpu_percent_each": 1.0, "rss_mb_each": 25.0, "cpu_percent_per_table": 0.5, "rss_mb_per_table": 10.0}
    board = dict(per, cpu_percent_each=6.0, rss_mb_each=34.0)
    return {
        "stamp": STAMP_LINE,
        "latency": {
            "presses": 20,
            "press_to_recorder_ms": {"p50": 333.0, "p99": 416.0},
            "press_to_retained_state_ms": {"p50": 380.0, "p99": 474.0},
        },
        "sustained": {"records": 41, "seconds": 0.4, "records_per_s": 99.0},
        "broker_restart": {"rolls_while_down": 10, "records": 10, "seconds_from_broker_up": 2.5},
        "presence": {
            "keepalive_s": 4,
            "limit_s": 6.0,
            "freeze": [freeze(5.19, 7.29, 0.4), freeze(5.64, 10.95, 0.39)],
            "partition": "needs root",
        },
        "scale": [
            dict(
                tables=10,
                pits=0,
                window_s=20.0,
                records=473,
                all_recorded=True,
                board=board,
                gateway=per,
                broker=dict(per, cpu_percent_per_table=0.25, rss_mb_per_table=1.0),
                recorder=per,
            ),
            dict(
                tables=50,
                pits=0,
                window_s=20.0,
                records=2400,
                all_recorded=True,
                table_kind="the firmware's App and link under CPython on a pty (pty_boards.py)",
                board=board,
                gateway=per,
                broker=per,
                recorder=per,
            ),
            dict(
                tables=1,
                pits=0,
                window_s=20.1,
                records=51,
                all_recorded=False,
                board=board,
                gateway=per,
                broker=per,
                recorder=per,
            ),
        ],
    }


def page_sample():
    return {
        "stamp": STAMP_LINE,
        "press_to_alert_in_browser_ms": {"samples": 12, "seen": 11, "p50": 444.0, "p99": 496.0},
    }


def progressive_sample():
    ms = {"p50": 10.7, "p99": 20.9, "samples": 20}
    return {
        "stamp": STAMP_LINE.replace("`make bench-floor`", "`python -m bench.floor.progressive_bench --hits 5`"),
        "contributions_per_s": 174.2,
        "hit_to_pending_ms": ms,
        "controller_presence": {
            "silent_to_offline_s": 7.61,
            "resumed_to_online_s": 0.2,
            "killed_to_offline_s": 0.003,
            "restarted_to_online_s": 0.47,
        },
        "with_boards": {
            "hit_to_meter_pending_ms": dict(ms, p50=12.2),
            "hit_to_pending_on_every_board_ms": dict(ms, p50=344.0, p99=416.0),
            "controller_killed_to_closed_on_every_board_ms": dict(ms, p50=303.0, p99=308.0, samples=3),
            "controller_restarted_to_open_on_every_board_ms": dict(ms, p50=695.0, p99=713.0, samples=3),
            "keyed_again": 1,
        },
    }


def money_sample():
    game = {
        "paytable": "PT-BJS-FUP-05",
        "params": {"increment_ppm": 100_000, "reserve_ppm": 20_000, "base_unit": 100},
        "hits": 4,
        "wagers": 2_000_000,
        "r0_pct": 84.2208,
        "house_per_unit_pct": 0.0003,
        "long_run_pct": 96.25,
        "top_awards_pct": 9.99,
        "overflow_paid_microcents": 123_456_789_000,
        "end": {"meter_microcents": 5_000_000_000_000, "reserve_microcents": 100_000_000_000, "overflow_microcents": 0},
        "balanced": True,
        "long_run_is_stated": True,
        "contributed_is_rates": True,
    }
    return {"stamp": STAMP_LINE, "hits": 4, "seed": 1, "games": [game]}


SAMPLES = {"floor": floor_sample, "page": page_sample, "progressive": progressive_sample, "money": money_sample}


def render(name, data):
    return doc_figures.sections()[name][2](data)


@pytest.mark.parametrize("name", sorted(doc_figures.sections()))
def test_every_section_is_in_its_doc_once_with_its_stamp_and_a_table(name):
    doc, _, _ = doc_figures.sections()[name]
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        text = f.read()
    begin, end = shared.markers(doc_figures.marker(name))
    assert text.count(begin) == 1 and text.count(end) == 1, "%s: one %s section" % (doc, name)
    body = shared.read_section(doc, doc_figures.marker(name))
    assert body, "%s's %s section is empty: run make bench-floor" % (doc, name)
    stamp = body.splitlines()[0]
    assert (STAMP if name == "scale" else BENCH_STAMP).match(stamp), stamp
    assert len(shared.table_numbers(body)) >= 4


@pytest.mark.parametrize("name", sorted(TOLERANCE))
def test_the_docs_figures_agree_with_the_latest_run(name):
    doc, build, _ = doc_figures.sections()[name]
    path = os.path.join(ROOT, "build", build)
    if not os.path.exists(path):
        pytest.skip("no build/%s: run make bench-floor" % build)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if "stamp" not in data:
        pytest.skip("build/%s was written by a bench without its stamp" % build)
    written = shared.read_section(doc, doc_figures.marker(name))
    assert shared.differences(written, render(name, data), TOLERANCE[name]) == [], (doc, name)


def cell(body, starts):
    """The value cell of the row whose first cell starts with `starts`."""
    rows = [line for line in body.splitlines() if line.startswith("| " + starts)]
    assert len(rows) == 1, (starts, rows)
    return [c.strip() for c in rows[0].strip("|").split("|")][-1]


def test_the_floor_renderer_puts_each_figure_of_the_json_in_its_row():
    body = render("floor", floor_sample())
    assert body.splitlines()[0] == STAMP_LINE
    assert cell(body, "key press → record") == "333.0 / 416.0 ms"
    assert cell(body, "a drained backlog (41 records") == "99.0 records/s"
    assert cell(body, "catch-up after a broker restart (10 rolls") == "2.5 s"
    assert cell(body, "a gateway frozen") == "5.19, 5.64 s / 7.29, 10.95 s"
    assert cell(body, "a gateway cut off by a partition") == "not measured: needs root"
    rows = [line for line in body.splitlines() if re.match(r"\| \d+( \(boards on ptys\))? \| ", line)]
    # by table count, whatever the JSON's order; the pty boards said
    assert [r.split("|")[1].strip() for r in rows] == ["1", "10", "50 (boards on ptys)"]
    # the floor's cost a table: gateway 0.5 + broker 0.25 + recorder 0.5 % and 10 + 1 + 10 MB
    assert "| 1.2 % / 21.0 MB | 473, yes |" in rows[1] and rows[0].endswith("| 51, NO |")


def test_the_page_and_progressive_renderers_put_each_figure_in_its_row():
    page = render("page", page_sample())
    assert cell(page, "samples seen") == "11 / 12" and cell(page, "key press → alert") == "444.0 / 496.0 ms"
    prog = render("progressive", progressive_sample())
    assert prog.startswith("Measured by `python -m bench.floor.progressive_bench --hits 5`")
    assert cell(prog, "a hit published") == "10.7 / 20.9 ms"
    assert cell(prog, "the same record") == "344.0 / 416.0 ms"
    assert cell(prog, "the controller restarted") == "695.0 / 713.0 ms"
    assert cell(prog, "contributions per second") == "174.2 /s"
    assert cell(prog, "resumed") == "0.200 s; 0.003 s; 0.470 s"
    without = dict(progressive_sample(), with_boards=None)
    assert "every one of the three boards" not in render("progressive", without)


def test_the_money_renderer_counts_in_dollars_from_micro_cents():
    body = render("money", money_sample())
    row = [c.strip() for c in body.splitlines()[-1].strip("|").split("|")]
    assert row[0] == "PT-BJS-FUP-05" and row[1] == "2,000,000" and row[3] == "12%" and row[6] == "3.75%"
    # a hit's wagers: 12% of 2,000,000 wagers / 4 hits x $1 = $60,000.00; 123,456,789,000 micro-cents = $1,234.56
    assert row[8] == "$60,000.00" and row[9] == "$1,234.56"
    assert row[10] == "$50,000.00 / $1,000.00 / $0.00" and row[11] == "yes"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_changed_figure_beyond_the_tolerance_is_a_difference(name):
    data = SAMPLES[name]()
    body = render(name, data)
    assert shared.differences(body, render(name, SAMPLES[name]()), TOLERANCE[name]) == []
    changed = json.loads(json.dumps(data).replace("416.0", "4160.0").replace("2000000", "2000001"))
    changed = json.loads(json.dumps(changed).replace("496.0", "1496.0").replace("174.2", "17.4"))
    assert shared.differences(body, render(name, changed), TOLERANCE[name]) != [], name


def test_the_writer_fills_every_section_from_its_json_and_the_makefile_runs_each_bench_as_stamped(tmp_path):
    for name, make in SAMPLES.items():
        data = tmp_path / (name + ".json")
        data.write_text(json.dumps(make()))
        doc = tmp_path / (name + ".md")
        begin, end = shared.markers(doc_figures.marker(name))
        doc.write_text("kept\n%s\nold\n%s\nkept too\n" % (begin, end))
        assert doc_figures.main(["--section", name, "--json", str(data), "--doc", str(doc)]) == 0
        assert shared.read_section(str(doc), doc_figures.marker(name)) == render(name, make())
        assert doc.read_text().startswith("kept\n") and doc.read_text().endswith("\nkept too\n")
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        target = f.read().split("\nbench-floor:", 1)[1].split("\n\n", 1)[0]
    runs = [line.split("-m ", 1)[1].split() for line in target.splitlines() if "-m bench.floor." in line]
    for bench, args in doc_figures.MAKE_ARGS.items():
        assert ["bench.floor." + bench] + args in runs, bench
    assert runs[-1] == ["bench.floor.doc_figures"]  # after every bench: it writes from their JSON
