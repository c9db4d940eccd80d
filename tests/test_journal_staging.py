"""docs/journal.md: a staging file holds one record of at most 128 bytes; a
record over 128 bytes goes straight into the segment with the staged batch.
The journal on a real directory under CPython, at the edge (issue 19's
mutant of journal.append's size test)."""

import os

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table

EMPTY_RECORD = 14 + 20  # header + link, MAC and CRC: a record without state or payload


def sizes(directory):
    out = {}
    for folder, _, names in os.walk(directory):
        for name in names:
            out[os.path.relpath(os.path.join(folder, name), directory)] = os.path.getsize(os.path.join(folder, name))
    return out


def test_a_record_of_128_bytes_is_staged_and_one_of_129_goes_into_the_segment(tmp_path):
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    assert journal.mount(table) == 0  # no journal yet: first use
    journal.start_new(table, 0, 1, 0)
    assert journal.staged == 1 and "s0" in sizes(journal.dir)
    journal.append(jr.DROP, 0, 10, table, bytes(128 - EMPTY_RECORD))
    assert journal.staged == 2 and sizes(journal.dir)["odd/s1"] == 128
    assert not [name for name in sizes(journal.dir) if name.startswith("g")]  # no segment yet
    journal.append(jr.DROP, 0, 20, table, bytes(129 - EMPTY_RECORD))
    assert journal.staged == 0  # the batch and the big record flushed together
    (segment,) = [name for name in sizes(journal.dir) if name.startswith("g")]
    # the segment header, the journal start, the 128-byte record and the 129-byte one
    assert sizes(journal.dir)[segment] == jr.SEGMENT_HEADER_SIZE + sizes(journal.dir)["s0"] + 128 + 129
    assert journal.seq == 3
