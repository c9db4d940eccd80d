"""Figures a doc states, written from a bench's output, never typed by hand.

A bench that prints a table of (measure, value) rows can also write it into
a doc, between two markers that name the command:

    <!-- make bench: begin -->
    Measured by `make bench` at commit 1a2b3c4 on 2026-11-27 (2 cores, load 1.3 at the end).

    | measure | value |
    ...
    <!-- make bench: end -->

The same rows are printed and stored in the bench's build/*.json, so
tests/test_doc_figures.py can check that a doc's figures are those of the
latest run within the section's stated tolerance.
"""

import datetime
import os
import re
import subprocess

from sim.paths import ROOT


def markers(name):
    return "<!-- %s: begin -->" % name, "<!-- %s: end -->" % name


def stamp(command):
    """Where and when a figure was measured: the command, the commit, the date, the machine."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    return "Measured by `%s` at commit %s on %s (%d cores, load %.1f at the end)." % (
        command,
        commit.strip() or "?",
        datetime.date.today().isoformat(),
        os.cpu_count() or 0,
        os.getloadavg()[0],
    )


def console(title, rows, write):
    """The rows as the bench prints them: the title, then aligned columns."""
    width = max(len(name) for name, _ in rows)
    write(title + "\n")
    for name, value in rows:
        write("%-*s  %s\n" % (width, name, value))


def markdown(rows, header=("measure", "value")):
    out = ["| %s |" % " | ".join(header), "|" + "---|" * len(header)]
    out += ["| %s |" % " | ".join(str(cell).replace("|", "/") for cell in row) for row in rows]
    return "\n".join(out)


def section_body(stamp_line, title, rows):
    return "%s\n\n%s\n\n%s" % (stamp_line, title, markdown(rows))


def read_section(path, name, text=None):
    """The text between the section's markers in the doc at `path` (repository-relative), or None."""
    if text is None:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
    begin, end = markers(name)
    if begin not in text or end not in text:
        return None
    return text[text.index(begin) + len(begin) : text.index(end)].strip("\n")


def write_section(path, name, body):
    """Replace the section's text in the doc at `path`; the markers must be there already."""
    full = os.path.join(ROOT, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    begin, end = markers(name)
    if begin not in text or end not in text:
        raise SystemExit("%s has no section %r to write (%s ... %s)" % (path, name, begin, end))
    text = text[: text.index(begin) + len(begin)] + "\n" + body + "\n" + text[text.index(end) :]
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def table_numbers(body):
    """Every number in the section's table rows (not its stamp or title), in order."""
    rows = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| measure")]
    return [float(m.replace(",", "")) for line in rows for m in NUMBER.findall(line)]


def differences(doc_body, built_body, factor):
    """[(doc figure, built figure)] that differ by more than `factor` (x or 1/x); a
    different count of figures is one difference (None, None)."""
    ours, theirs = table_numbers(doc_body), table_numbers(built_body)
    if len(ours) != len(theirs):
        return [(None, None)]
    out = []
    for a, b in zip(ours, theirs):
        if a == b:
            continue
        if a == 0 or b == 0 or a * b < 0 or max(abs(a), abs(b)) / min(abs(a), abs(b)) > factor:
            out.append((a, b))
    return out
