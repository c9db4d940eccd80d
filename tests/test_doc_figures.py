"""The docs' bench figures are written by the benches, never typed
(sim/analysis/doc_figures.py): each generated section is in its doc with the
command, commit and date that made it, and when a later run's build/*.json is
here its figures agree with the doc's within FACTOR (the machine is shared;
counts and the journal's flash figures agree exactly). docs/board.md's memory
table is held the same way by tests/test_heap_margin.py, docs/floor.md's by
its own bench's test."""

import json
import os
import re

import pytest

from bench import host_bench
from sim.analysis import bench, doc_figures, link_bench
from sim.paths import ROOT

FACTOR = 2.5  # run to run on 2 shared cores, timings move by up to about 2x

# (build file, its sections: results -> [(doc, section name, body)])
BUILDS = {
    "bench.json": bench.doc_sections,
    "link_bench.json": lambda r: [("docs/link.md", "make bench-link", link_bench.section(r))],
    "host_bench.json": lambda r: [("host_tools/README.md", "make bench-host", host_bench.section(r))],
}
SECTIONS = {
    ("docs/odds.md", "make bench"),
    ("docs/board.md", "make bench: gc pause"),
    ("docs/journal.md", "make bench: journal"),
    ("docs/link.md", "make bench-link"),
    ("host_tools/README.md", "make bench-host"),
}
STAMP = re.compile(r"^Measured by `(make [a-z-]+)` at commit [0-9a-f]{7,} on \d{4}-\d\d-\d\d \(\d+ cores, load [\d.]+")


@pytest.mark.parametrize("doc,name", sorted(SECTIONS))
def test_each_generated_section_says_what_measured_it_and_holds_a_table(doc, name):
    body = doc_figures.read_section(doc, name)
    assert body, "%s has no generated section %r: run %s" % (doc, name, name.split(":")[0])
    command = STAMP.match(body)
    assert command and name.startswith(command.group(1))
    assert len(doc_figures.table_numbers(body)) >= 3


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_the_docs_figures_agree_with_the_latest_run(build):
    path = os.path.join(ROOT, "build", build)
    if not os.path.exists(path):
        pytest.skip("no build/%s: run make bench" % build)
    with open(path, encoding="utf-8") as f:
        results = json.load(f)
    if "stamp" not in results:
        pytest.skip("build/%s was written by a run without --write-doc's stamp" % build)
    for doc, name, built in BUILDS[build](results):
        assert doc_figures.differences(doc_figures.read_section(doc, name), built, FACTOR) == [], (doc, name)


BODY = """Measured by `make bench` at commit abc1234 on 2026-11-27 (2 cores, load 1.0 at the end).

Title 1,000 rolls

| measure | value |
|---|---|
| rolls/s | 120,000 |
| bytes per roll, 3,000 rolls | 0.25 |"""


def test_a_figure_beyond_the_factor_or_a_missing_row_is_a_difference():
    assert doc_figures.table_numbers(BODY) == [120000.0, 3000.0, 0.25]
    assert doc_figures.differences(BODY, BODY.replace("120,000", "60,000"), FACTOR) == []
    assert doc_figures.differences(BODY, BODY.replace("120,000", "40,000"), FACTOR) == [(120000.0, 40000.0)]
    assert doc_figures.differences(BODY, BODY.replace("0.25", "0"), FACTOR) == [(0.25, 0.0)]
    assert doc_figures.differences(BODY, BODY.rsplit("\n", 1)[0], FACTOR) == [(None, None)]
    assert FACTOR == 2.5


def test_writing_a_section_replaces_only_its_text(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("before\n<!-- make bench: begin -->\nold\n<!-- make bench: end -->\nafter\n")
    doc_figures.write_section(str(doc), "make bench", BODY)
    assert doc_figures.read_section(str(doc), "make bench") == BODY
    text = doc.read_text()
    assert text.startswith("before\n<!-- make bench: begin -->\n")
    assert text.endswith("<!-- make bench: end -->\nafter\n")
    with pytest.raises(SystemExit, match="no section 'make bench-host'"):
        doc_figures.write_section(str(doc), "make bench-host", BODY)
