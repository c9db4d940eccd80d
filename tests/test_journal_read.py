"""journal_read.py: the reader's checks, edge by edge (issue 19's mutants of
the journal reader), each against what docs/journal.md says."""

import os
import re

from crapsboard.journal import journal_read as jread
from sim.paths import ROOT

# docs/journal.md spells "config" records as "configuration" in its kind list.
_DOC_SPELLING = {"configuration": "config"}


def documented_kinds():
    with open(os.path.join(ROOT, "docs", "journal.md"), encoding="utf-8") as f:
        line = next(x for x in f if x.startswith("| 1 | kind: "))
    pairs = re.findall(r"(\d+) ([a-z][a-z ]*?)(?= \(|,|;| \|)", line[len("| 1 | kind: ") :])
    return {int(code): _DOC_SPELLING.get(name, name.replace(" ", "_")) for code, name in pairs}


def test_every_record_kind_has_the_name_docs_journal_md_gives_it():
    kinds = documented_kinds()
    assert sorted(kinds) == [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21]
    assert kinds[4] == "lamp_test" and kinds[21] == "time"
    assert jread.KIND_NAMES == kinds
