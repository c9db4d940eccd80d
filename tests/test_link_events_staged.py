"""The link's `events` reply (docs/link.md) from a journal whose records are
all still staged (no segment written yet: a fresh journal's first batch):
`first` is the journal's first record, 1, and every record is read back."""

import json
import os
import types

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.link import link_events, link_json
from crapsboard.rules.engine import Table


def test_a_journal_of_staged_records_only_pages_from_record_1(tmp_path):
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    for t, (d1, d2) in enumerate([(3, 4), (2, 2), (6, 5)]):
        table.roll(d1, d2)
        journal.append(jr.ROLL, d1 * 8 + d2, 10 * (t + 1), table)
    assert journal.segments() == [] and journal.staged == 4
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    reply = link_events.page(handlers, 0, 8)
    assert (reply["journal"], reply["seq"], reply["first"]) == (1, 4, 1)
    records = [json.loads(link_json.encode(r)) for r in reply["events"]]
    assert [r["seq"] for r in records] == [1, 2, 3, 4]
    assert [r["kind"] for r in records] == ["journal_start", "roll", "roll", "roll"]


def test_a_page_takes_1_to_8_records(tmp_path):
    # docs/link.md, events: `limit` 1 to 8 (PAGE_MAX); outside it, one line naming the bounds
    import pytest

    from crapsboard.link.link import LinkError

    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    for t in range(9):
        table.roll(2, 2)
        journal.append(jr.ROLL, 2 * 8 + 2, 10 * (t + 1), table)
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    assert [len(link_events.page(handlers, 0, n)["events"]) for n in (1, 8)] == [1, 8]
    for limit in (0, 9):
        with pytest.raises(LinkError, match="^limit must be 1 to 8$"):
            link_events.page(handlers, 0, limit)


def test_a_record_file_gone_from_under_the_link_is_one_clear_error(tmp_path):
    # A staged record's file missing (the flash failing, or removed at the REPL): the page is
    # refused with one line naming the OSError's number, not a traceback.
    import pytest

    from crapsboard.link.link import LinkError

    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    table.roll(3, 4)
    journal.append(jr.ROLL, 3 * 8 + 4, 10, table)
    os.remove(os.path.join(journal.dir, jr.slot_name(1)))  # the roll's staged record
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    with pytest.raises(LinkError, match=r"^journal unreadable \(OSError 2\)$"):
        link_events.page(handlers, 0, 8)


def test_a_page_after_a_new_journal_never_goes_on_from_the_old_journals_place(tmp_path):
    # The link remembers where its last page ended in a segment file, to go on from there;
    # a new journal (here id 2, its segment g1 too) is read from its own records.
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2)
    journal.mount(Table())
    table = Table()
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    pages = []
    for journal_id in (1, 2):
        journal.start_new(Table(), 0, journal_id, 0)
        for t, (d1, d2) in enumerate([(3, 4), (2, 2), (6, 5), (1, 1), (5, 5)]):
            table.roll(d1, d2)
            journal.append(jr.ROLL, d1 * 8 + d2, 10 * (t + 1), table)
            journal.maintain(table, 10 * (t + 1))
        assert journal.segments() and journal.segments()[0][0] == 1
        pages.append([json.loads(link_json.encode(r)) for r in link_events.page(handlers, 1, 8)["events"]])
        link_events.page(handlers, 0, 1)  # the cursor: record 2 of this journal's g1 next
    assert [[r["seq"] for r in page] for page in pages] == [[2, 3, 4, 5, 6]] * 2
    assert [r["dice"] for r in pages[1][:2]] == [[3, 4], [2, 2]]


def rolled_in_small_segments(folder, rolls):
    """A journal of `rolls` rolls after its start, in 256-byte segments, all kept."""
    journal = jn.Journal(str(folder), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=256, max_segments=1000)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    for t in range(1, rolls + 1):
        table.roll(2, 2)
        journal.append(jr.ROLL, 2 * 8 + 2, 10 * t, table)
        journal.maintain(table, 10 * t)
    return journal


def test_a_page_deep_in_a_long_journal_reads_its_segments_by_record_number(tmp_path):
    # A journal whose record numbers pass its segments' size in bytes (here 256-byte segments
    # and 420 records; on a board 32 KB and a long shift): a page from record 390 reads the
    # segments that hold 391 on, record by record.
    journal = rolled_in_small_segments(tmp_path, 419)
    segments = journal.segments()
    assert segments[-1][1] > 390 > max(size for _, _, size in segments)
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    records = [json.loads(link_json.encode(r)) for r in link_events.page(handlers, 390, 8)["events"]]
    assert [r["seq"] for r in records] == list(range(391, 399))


def test_paging_on_from_next_reads_each_segment_record_once(tmp_path, monkeypatch):
    # Where a page ends is kept (the segment, the offset, the chain hash): paging on from
    # `next` decodes the new page's records, never a segment before them again.
    from crapsboard.journal import journal_read

    journal = rolled_in_small_segments(tmp_path, 59)
    assert len(journal.segments()) >= 10
    decoded = []
    decode = journal_read.decode
    monkeypatch.setattr(
        journal_read, "decode", lambda buf, pos, prev, seq: decoded.append(seq) or decode(buf, pos, prev, seq)
    )
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    since, seen = 0, []
    while True:
        decoded.clear()
        reply = link_events.page(handlers, since, 8)
        got = [json.loads(link_json.encode(r))["seq"] for r in reply["events"]]
        seen += got
        in_segments = [s for s in decoded if s <= journal.seq - journal.staged]
        assert in_segments == [s for s in got if s <= journal.seq - journal.staged], (since, decoded)
        if not reply["more"]:
            break
        since = reply["next"]
    assert seen == list(range(1, journal.seq + 1))


def test_a_page_reads_a_segment_record_over_255_bytes_and_the_record_after_it(tmp_path):
    # A record's length is two bytes, low first (docs/journal.md, Record format): a drop
    # record of 300 bytes goes straight into the segment; of the three rolls after it, the
    # first two follow it there once the third is appended (batch 2), which is staged.
    from test_journal_staging import EMPTY_RECORD

    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    journal.append(jr.DROP, 0, 10, table, bytes(300 - EMPTY_RECORD))
    for t in (20, 30, 40):
        table.roll(3, 4)
        journal.append(jr.ROLL, 3 * 8 + 4, t, table)
    assert [s[:2] for s in journal.segments()] == [[1, 4]] and journal.staged == 1
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    records = [json.loads(link_json.encode(r)) for r in link_events.page(handlers, 0, 8)["events"]]
    assert [(r["seq"], r["kind"]) for r in records] == [(1, "journal_start"), (2, "drop")] + [
        (n, "roll") for n in (3, 4, 5)
    ]
    assert len(records[1]["payload"]) == 2 * (300 - EMPTY_RECORD)
