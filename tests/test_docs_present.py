"""The docs and the code speak of what is, to a reader of a clone: no issue
numbers (a clone has no issue tracker), and no citation of a file outside
the repository (the team's shared notes are not in a clone)."""

import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ISSUE = re.compile(r"\b[Ii]ssues? ?#?\d+")
OUTSIDE = re.compile(r"\.\./shared|\bDESIGN\.md\b|\bRULES\.md\b|\bDEVELOPERS\.md\b")
TEXT = (".py", ".md", ".txt", ".json", ".toml", ".cfg", ".html", ".css", ".js", ".svg")


def tracked():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [n for n in names if (n.endswith(TEXT) or os.path.basename(n) == "Makefile") and not n.startswith(".ci/")]


def offending(pattern, names, read=None):
    found = []
    for name in names:
        text = read(name) if read else open(os.path.join(ROOT, name), encoding="utf-8", errors="replace").read()
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append("%s:%d: %s" % (name, number, line.strip()[:100]))
    return found


def test_no_issue_number_in_the_docs_or_the_code():
    names = [n for n in tracked() if n != "tests/test_docs_present.py"]  # its own examples below
    assert len(names) > 300
    assert offending(ISSUE, names) == []


def test_no_doc_or_code_cites_a_file_outside_the_repository():
    assert offending(OUTSIDE, [n for n in tracked() if n != "tests/test_docs_present.py"]) == []


def test_the_checks_find_what_they_are_for():
    samples = {
        "a.md": "The keyed journal (issue 19) and\nissue 22's board side",
        "b.py": "# Issue 21: the page\nok = 1",
        "c.md": "the design (DESIGN.md); ../" + "shared/RULES.md",  # spelt in two: tests/test_docs.py
        "d.md": "kind 22 is verified; 19 rolls; a 5-4-3-2 sequence",
    }
    read = samples.__getitem__
    assert offending(ISSUE, list(samples), read) == [
        "a.md:1: The keyed journal (issue 19) and",
        "a.md:2: issue 22's board side",
        "b.py:1: # Issue 21: the page",
    ]
    assert [f.split(":")[0] for f in offending(OUTSIDE, list(samples), read)] == ["c.md"]
