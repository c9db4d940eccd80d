"""docs/floor.md's figures past one machine are written by `make bench-floor`
(bench/floor/doc_figures.py, from build/scale_bench.json), not typed: the
generated section is there once, says its command, commit, cores and load,
each row names the bench/floor function that measured it, and the writer
rewrites its section alone. build/ is not committed; where a
build/scale_bench.json from the same run as the doc is at hand, the section
must be exactly what the writer makes of it."""

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
    doc.write_text(before + "<!-- make bench-floor: begin -->\nold figures\n<!-- make bench-floor: end -->" + after)
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
        (["--json", str(data), "--doc", str(doc)], "make bench-floor: begin"),
        (["--json", str(bad), "--doc", str(doc)], "is not scale_bench's output"),
        (["--json", str(tmp_path / "none.json"), "--doc", str(doc)], "run make bench-floor"),
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
