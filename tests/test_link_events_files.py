"""The link's `events` (crapsboard/link/link_events.py) under CPython, from a journal whose
records are in segment files: every page closes the file it read (the board's littlefs
holds a cache buffer for each file left open, and the link serves pages for as long as
the floor asks: docs/link.md, Memory), and only a time record's payload is read as a time."""

import gc
import json
import os
import types
import warnings

import pytest
from test_journal_restore import started

from crapsboard.journal import journal_record as jr
from crapsboard.link import link_events, link_json
from crapsboard.rules.engine import Table


def decoded(reply):
    """An `events` reply's records as the host reads them off the line."""
    return [json.loads(link_json.encode(r)) for r in reply["events"]]


def every_page(journal, limit, after_each=lambda: None):
    """The records of `events` pages of `limit` from the first on, as the link gives them."""
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    since, records = 0, []
    while True:
        reply = link_events.page(handlers, since, limit)
        records += decoded(reply)
        after_each()
        if not reply["more"]:
            return records
        since = reply["next"]


def test_every_page_closes_the_segment_it_read(tmp_path):
    journal = started(tmp_path, batch=2)
    table = Table()
    for t in range(1, 12):
        table.roll(3, 4)
        journal.append(jr.ROLL, 3 * 8 + 4, 10 * t, table)
        journal.maintain(table, 10 * t)
    assert journal.segments(), "the records are in segment files"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = every_page(journal, 3, after_each=gc.collect)  # a file nobody closed warns as it is collected
    assert [r["seq"] for r in records] == list(range(1, journal.seq + 1))
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_time_record_gives_its_unix_time_and_a_drop_record_none(tmp_path):
    # docs/link.md, events: a time record's 8-byte payload is the wall clock set, given as
    # `unix`; a drop record's 8 bytes are the seqs of the segment it dropped, not a time.
    journal = started(tmp_path, batch=2, segment_bytes=64, max_segments=2)
    table = Table()
    unix = 1_798_761_600
    for t in range(10, 200, 10):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)
    journal.append(jr.TIME, 0, 200, table, unix.to_bytes(8, "little"))  # after the drops
    records = every_page(journal, 8)
    drops = [r for r in records if r["kind"] == "drop"]
    assert drops and all(len(r["payload"]) == 16 and "unix" not in r for r in drops)
    times = [r for r in records if r["kind"] == "time"]
    assert [r.get("unix") for r in times] == [unix]


def _rolled_in_segments(tmp_path):
    """A journal of 11 rolls over segment files of about 4 records, and link handlers on it."""
    journal = started(tmp_path, batch=2, segment_bytes=200)
    table = Table()
    for t in range(1, 12):
        table.roll(3, 4)
        journal.append(jr.ROLL, 3 * 8 + 4, 10 * t, table)
        journal.maintain(table, 10 * t)
    return journal, types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)


def _damage_record_1(journal):
    """A bit of the first segment's first record changed on the flash, after the mount."""
    with open(os.path.join(journal.dir, "g%d" % journal.segments()[0][0]), "r+b") as f:
        f.seek(jr.SEGMENT_HEADER_SIZE + 20)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0x01]))


def test_a_page_is_limit_records_after_since_and_leaves_its_cursor_where_it_ended(tmp_path):
    # docs/link.md, `events`: at most `limit` records after `since`; the board keeps
    # where the page ended (its cursor), so the next page reads on from there rather
    # than from its segment's start; since below 0, or no journal, is refused.
    journal, handlers = _rolled_in_segments(tmp_path)
    segments = journal.segments()
    assert len(segments) >= 2 and segments[0][1] - segments[0][0] >= 3, segments

    reply = link_events.page(handlers, 0, 3)
    assert [r["seq"] for r in decoded(reply)] == [1, 2, 3] and (reply["next"], reply["more"]) == (3, True)
    assert handlers.cursor[1:3] == (4, segments[0][0])  # in the first segment, at record 4
    assert [r["seq"] for r in decoded(link_events.page(handlers, 3, 1))] == [4]
    last = journal.seq
    reply = link_events.page(handlers, last, 8)
    assert (reply["events"], reply["next"], reply["more"]) == ([], last, False)
    with pytest.raises(link_events.LinkError, match="^since must be 0 or more$"):
        link_events.page(handlers, -1, 3)
    without = types.SimpleNamespace(app=types.SimpleNamespace(journal=None), cursor=None)
    with pytest.raises(link_events.LinkError, match="^this board keeps no journal$"):
        link_events.page(without, 0, 3)


def test_a_record_damaged_on_the_flash_after_the_mount_is_one_error_naming_the_journal(tmp_path):
    # A byte changed under a running board (the mount verified it before): the page is
    # refused as one error line of the link, never an exception out of the handler.
    journal, handlers = _rolled_in_segments(tmp_path)
    _damage_record_1(journal)
    with pytest.raises(link_events.LinkError, match="^journal: "):
        link_events.page(handlers, 0, 3)


def test_the_next_page_reads_on_from_the_cursor_not_from_the_segments_start(tmp_path):
    # docs/link.md, `events`: a page starts where the last one ended, without reading
    # its segment again from the start; shown here by a record before the cursor that
    # the flash has lost since: the next page never reads it, a fresh start would.
    journal, handlers = _rolled_in_segments(tmp_path)
    link_events.page(handlers, 0, 3)
    _damage_record_1(journal)
    reply = link_events.page(handlers, 3, 1)
    assert [r["seq"] for r in decoded(reply)] == [4]
    handlers.cursor = None
    with pytest.raises(link_events.LinkError, match="^journal: "):
        link_events.page(handlers, 3, 1)


def test_a_segment_whose_header_names_another_first_record_is_one_error(tmp_path):
    # The header of g<first> must say it starts at record <first>: a file swapped on
    # the flash under a running board is refused, naming both.
    journal, handlers = _rolled_in_segments(tmp_path)
    (first, _, _), (second, _, _) = journal.segments()[:2]
    with open(os.path.join(journal.dir, "g%d" % second), "rb") as f:
        header = f.read(jr.SEGMENT_HEADER_SIZE)
    with open(os.path.join(journal.dir, "g%d" % first), "r+b") as f:
        f.write(header)
    with pytest.raises(link_events.LinkError) as e:
        link_events.page(handlers, 0, 3)
    assert str(e.value) == "journal: segment g%d starts at record %d" % (first, second)
