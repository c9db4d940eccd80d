"""The link's `events` (crapsboard/link/link_events.py) under CPython, from a journal whose
records are in segment files: every page closes the file it read (the board's littlefs
holds a cache buffer for each file left open, and the link serves pages for as long as
the floor asks: docs/link.md, Memory), and only a time record's payload is read as a time."""

import gc
import json
import types
import warnings

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.link import link_events, link_json
from crapsboard.rules.engine import Table


def test_every_page_closes_the_segment_it_read(tmp_path):
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    for t in range(1, 12):
        table.roll(3, 4)
        journal.append(jr.ROLL, 3 * 8 + 4, 10 * t, table)
        journal.maintain(table, 10 * t)
    assert journal.segments(), "the records are in segment files"
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        since, seqs = 0, []
        while True:
            reply = link_events.page(handlers, since, 3)
            seqs += [json.loads(link_json.encode(r))["seq"] for r in reply["events"]]
            gc.collect()  # a file nobody closed warns as it is collected
            if not reply["more"]:
                break
            since = reply["next"]
    assert seqs == list(range(1, journal.seq + 1))
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_time_record_gives_its_unix_time_and_a_drop_record_none(tmp_path):
    # docs/link.md, events: a time record's 8-byte payload is the wall clock set, given as
    # `unix`; a drop record's 8 bytes are the seqs of the segment it dropped, not a time.
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64, max_segments=2)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    table = Table()
    unix = 1_798_761_600
    for t in range(10, 200, 10):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)
    journal.append(jr.TIME, 0, 200, table, unix.to_bytes(8, "little"))  # after the drops
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), cursor=None)
    since, records = 0, []
    while True:
        reply = link_events.page(handlers, since, 8)
        records += [json.loads(link_json.encode(r)) for r in reply["events"]]
        if not reply["more"]:
            break
        since = reply["next"]
    drops = [r for r in records if r["kind"] == "drop"]
    assert drops and all(len(r["payload"]) == 16 and "unix" not in r for r in drops)
    times = [r for r in records if r["kind"] == "time"]
    assert [r.get("unix") for r in times] == [unix]
