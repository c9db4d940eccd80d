"""docs/journal.md, Restoring: segments read through one 2 KiB buffer (a
record across its edge at any offset), a segment cut inside a record, the
rotation a restart leaves pending, and the table's last event. The journal
on a real directory under CPython (the mutants of journal_restore.py
and Journal.maintain)."""

import os
import pathlib
import shutil
import struct

import pytest
from test_journal_staging import EMPTY_RECORD, sizes
from test_journal_start import play_hands
from test_link_app import _files

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules import paytable as pt
from crapsboard.rules.engine import Table

KEY = b"k" * 32
READ_BUFFER = 2048  # the restore reads segments 2 KiB at a time (docs/journal.md, Figures)


def opened(directory, **settings):
    journal = jn.Journal(str(directory), b"BOARD1", key=KEY, **settings)
    journal.mount(Table())
    return journal


def started(directory, **settings):
    journal = opened(directory, **settings)
    journal.start_new(Table(), 0, 1, 0)
    return journal


@pytest.mark.parametrize("inside", [1, 2, 33, 34, 35, 299])
def test_a_record_across_the_edge_of_the_read_buffer_restores(tmp_path, inside):
    """Three records over 128 bytes go straight into segment g1 after the
    journal start; the last, 300 bytes, has `inside` of its bytes in the
    first 2 KiB read and the rest in the next."""
    journal = started(tmp_path)
    start = sizes(journal.dir)["s0"]
    second = READ_BUFFER - inside - jr.SEGMENT_HEADER_SIZE - start - 1000
    for t, size in ((10, 1000), (20, second), (30, 300)):
        journal.append(jr.DROP, 0, t, Table(), bytes(size - EMPTY_RECORD))
    assert sizes(journal.dir)["g1"] == READ_BUFFER - inside + 300
    again = opened(tmp_path)
    assert (again.seq, again.segments()) == (4, [[1, 4, READ_BUFFER - inside + 300]])


@pytest.mark.parametrize("cut", [1, 20, 299])
def test_a_segment_cut_inside_its_last_record_is_the_fault_corrupt_naming_it(tmp_path, cut):
    """A segment gains a whole batch or none of it (one write, committed at
    close), so one that ends inside a record was damaged: the fault names
    the record, and the restore writes nothing."""
    journal = started(tmp_path)
    journal.append(jr.DROP, 0, 10, Table(), bytes(300 - EMPTY_RECORD))  # records 1 and 2 into g1
    path = journal.dir + "/g1"
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - cut)
    files = sizes(journal.dir)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    with pytest.raises(jn.JournalError) as e:
        again.mount(Table())
    assert (str(e.value), e.value.fault, e.value.seq) == ("corrupt: segment g1 ends inside record 2", jn.CORRUPT, 2)
    assert sizes(journal.dir) == files


def first_records(directory):
    """(kind, state length) of the first record of each segment, by first seq."""
    out = []
    for name in sorted((n for n in os.listdir(directory) if n[0] == "g"), key=lambda n: int(n[1:])):
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        at = jr.SEGMENT_HEADER_SIZE
        out.append((data[at + 10], data[at + jr.HEADER_SIZE - 1]))
    return out


def test_after_a_restart_with_a_full_segment_every_segment_still_opens_with_the_table_state(tmp_path):
    """docs/journal.md: each segment starts with the table state. A flush
    made by an append (maintain not called in between) fills g1, and the
    board restarts with a roll staged: that batch joins the full segment and
    maintain rotates after it."""
    table = Table()
    journal = started(tmp_path, batch=2, segment_bytes=64)
    journal.append(jr.END_HAND, 0, 10, table)
    table.roll(3, 4)
    journal.append(jr.ROLL, 3 * 8 + 4, 20, table)  # the batch was full: records 1-2 flushed into g1, the roll staged
    assert journal.segments() == [[1, 2, sizes(journal.dir)["g1"]]] and journal.staged == 1
    again = opened(tmp_path, batch=2, segment_bytes=64)
    for t in (30, 40, 50):
        again.maintain(table, t)
        table.roll(2, 2)
        again.append(jr.ROLL, 2 * 8 + 2, t + 5, table)
    assert len(first_records(journal.dir)) >= 3
    assert all(kind in (jr.JOURNAL_START, jr.SNAPSHOT) and state for kind, state in first_records(journal.dir))


def segment_sizes(directory, restart):
    """The segment files after 160 end-hand records; `restart`: remount (a
    power cycle) after every maintain that rotated, before the next flush."""
    table = Table()
    directory.mkdir()
    rotated = []

    def mounted():
        journal = opened(directory, batch=8, segment_bytes=1024)
        journal.on_append = lambda record, prev: rotated.append(record[10] == jr.SNAPSHOT)
        return journal

    journal = mounted()
    journal.start_new(table, 0, 1, 0)
    for i in range(160):
        journal.append(jr.END_HAND, 0, i, table)
        journal.maintain(table, i)
        if restart and rotated[-1]:
            journal = mounted()
    assert rotated.count(True) >= 4
    return {name: size for name, size in sizes(journal.dir).items() if name[0] == "g"}


def test_a_restart_right_after_a_rotation_keeps_the_new_segment_opening_with_its_snapshot(tmp_path):
    """A pending rotation goes ahead after a restart when the staged batch
    opens with the table state (the snapshot maintain staged): the segments
    are those of a journal that never restarted."""
    assert segment_sizes(tmp_path / "restarted", True) == segment_sizes(tmp_path / "straight", False)


def roll(journal, table, t, die1, die2):
    table.roll(die1, die2)
    journal.append(jr.ROLL, die1 * 8 + die2, t, table)


# The shooter makes 4, 5, 6, 8, 9 and 10: the 6th point, the Fire Bet's HOLD, is the 12th roll.
TO_SIXTH_POINT = [(2, 2), (3, 1), (2, 3), (4, 1), (3, 3), (5, 1), (4, 4), (6, 2), (5, 4), (6, 3), (5, 5), (6, 4)]


def test_a_journal_without_a_table_event_restores_none(tmp_path):
    """docs/journal.md, Restoring, step 6: no roll, undo or hand end yet, so no
    last event and no HOLD (record seqs start at 1: none is the last event)."""
    table = Table()
    journal = started(tmp_path)  # record 1: the start
    journal.append(jr.RESTART, 1, 5, table)  # 2
    journal.append(jr.SNAPSHOT, 0, 6, table)  # 3
    assert opened(tmp_path).hold is None


def test_the_last_event_is_the_last_roll_undo_or_hand_end_and_other_records_leave_it(tmp_path):
    """docs/journal.md, Restoring, step 6: the table's last event (roll,
    undo or hand end), the HOLD it raised and whether a verified record
    came after it. Each case is remounted; `hold` is (seq, HOLD raised,
    marks, verified)."""
    no_marks = [0] * pt.WAGER_COUNT
    table = Table()
    journal = started(tmp_path)  # record 1
    roll(journal, table, 10, 2, 2)  # 2
    journal.append(jr.SNAPSHOT, 0, 20, table)  # 3
    journal.append(jr.RESTART, 1, 30, table)  # 4
    assert opened(tmp_path).hold == (2, 0, no_marks, False)
    table.undo()
    journal.append(jr.UNDO, 0, 40, table)  # 5
    journal.append(jr.RESTART, 1, 50, table)  # 6
    assert opened(tmp_path).hold == (5, 0, no_marks, False)
    table.end_hand()
    journal.append(jr.END_HAND, 0, 60, table)  # 7
    journal.append(jr.SUPERVISOR_ON, jr.VIA_PIN, 70, table)  # 8
    assert opened(tmp_path).hold == (7, 0, no_marks, False)
    for t, (die1, die2) in enumerate(TO_SIXTH_POINT):
        roll(journal, table, 100 + t, die1, die2)  # 9 .. 20: the 6th point is record 20
    fire = [0] * pt.WAGER_COUNT
    fire[pt.FIRE] = table.fire_points
    assert opened(tmp_path).hold == (20, 1 << pt.FIRE, fire, False)  # raised, not yet cleared
    cleared = b'{"alert":"T1-j1-20-fire_6","by":"ann","seq":20}'
    journal.append(jr.VERIFIED, 20, 200, table, cleared)  # 21: the HOLD of record 20 cleared
    journal.append(jr.RESTART, 1, 210, table)  # 22
    assert opened(tmp_path).hold == (20, 1 << pt.FIRE, fire, True)
    # The verified roll undone and rolled again: a new HOLD, which that verified does not clear.
    table.undo()
    journal.append(jr.UNDO, 0, 220, table)  # 23
    roll(journal, table, 230, 6, 4)  # 24
    assert opened(tmp_path).hold == (24, 1 << pt.FIRE, fire, False)


def test_a_hold_after_a_mid_hand_snapshot_is_judged_from_that_snapshot(tmp_path):
    """docs/journal.md, Restoring, step 6: a state record after the last roll (here a
    snapshot) makes the restore play that roll again from the state before it, which
    is a snapshot taken mid-hand, after the 5th point: the 6th point still raises the
    Fire Bet's HOLD, whose five earlier points no code after that snapshot holds."""
    table = Table()
    journal = started(tmp_path)  # record 1
    for t, (die1, die2) in enumerate(TO_SIXTH_POINT[:-2]):
        roll(journal, table, 10 + t, die1, die2)  # 2 .. 11: five points made
    journal.append(jr.SNAPSHOT, 0, 30, table)  # 12: mid-hand
    for t, (die1, die2) in enumerate(TO_SIXTH_POINT[-2:]):
        roll(journal, table, 40 + t, die1, die2)  # 13, 14: the 6th point
    journal.append(jr.SNAPSHOT, 0, 50, table)  # 15: after the roll
    fire = [0] * pt.WAGER_COUNT
    fire[pt.FIRE] = table.fire_points
    assert opened(tmp_path).hold == (14, 1 << pt.FIRE, fire, False)


def test_a_staging_file_too_short_for_a_header_is_the_fault_corrupt_not_a_crash(tmp_path):
    """A staging file cut to fewer bytes than a record's header fails its CRC
    like any other damaged one: the fault corrupt naming the file, with no
    seq to name (-1), and the restore writes nothing."""
    journal = started(tmp_path)
    with open(journal.dir + "/s0", "wb") as f:
        f.write(b"\x01\x02\x03")
    files = sizes(journal.dir)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    with pytest.raises(jn.JournalError) as e:
        again.mount(Table())
    assert (str(e.value), e.value.fault, e.value.seq) == ("corrupt: staging file s0 fails its CRC", jn.CORRUPT, -1)
    assert sizes(journal.dir) == files


def test_only_a_drop_record_marks_segments_as_dropped_after_a_restart(tmp_path):
    """docs/journal.md: every segment removed is recorded by a drop record,
    once. A time record's payload is 8 bytes too (u64 unix seconds); read back
    at power-up it must not pass for a drop record's (first, last) and make
    the journal believe later segments were already recorded as dropped."""
    table = Table()
    settings = dict(batch=2, segment_bytes=64, max_segments=2)
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, **settings)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.append(jr.TIME, 0, 5, table, ((1000 << 32) + 7).to_bytes(8, "little"))  # its high half reads as 1000
    journal.maintain(table, 5)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, **settings)
    again.mount(Table())
    drops, removed = play_hands(again, table, range(10, 200, 10))
    assert removed and [first for first, _ in drops] == removed


class PowerCut(Exception):
    pass


@pytest.mark.parametrize("past", [0, 1 << 24], ids=["a new journal", "past record 2**24"])
def test_a_drop_recorded_before_a_power_cut_is_not_recorded_again_after_it(tmp_path, monkeypatch, past):
    """docs/journal.md: a segment's drop record is written before the segment
    is removed. Power lost between the two leaves the segment on flash with its
    drop already journaled: after the restart it is removed without a second
    drop record, as the restore read the first one back. Past record 16,777,216
    (2**24; about four years at 500 records an hour) too: the restore reads the
    drop record's last seq as all of its 4 bytes."""
    table = Table()
    settings = dict(batch=2, segment_bytes=64, max_segments=2)
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, **settings)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    append = journal.append

    def append_jumping_to_past(kind, *args):
        if kind == jr.SNAPSHOT and journal.seq < past:  # the first rotation opens g(past + ...)
            journal.seq += past
        return append(kind, *args)

    journal.append = append_jumping_to_past
    dropped = []
    journal.on_append = lambda record, prev: (
        record[10] == jr.DROP and dropped.append(struct.unpack_from("<II", record, jr.HEADER_SIZE))
    )
    remove = os.remove

    def cut(path):
        if int(os.path.basename(path)[1:]) < past:
            return remove(path)  # g1, the segment below the jump
        raise PowerCut(path)

    monkeypatch.setattr(jn.os, "remove", cut)
    with pytest.raises(PowerCut):
        for t in range(10, 400, 10):
            journal.append(jr.END_HAND, 0, t, table)
            journal.maintain(table, t)
    monkeypatch.undo()
    first, last = dropped[-1]
    assert len(dropped) == (2 if past else 1) and first >= past  # journaled...
    assert "g%d" % first in os.listdir(journal.dir)  # ...the segment it names still on flash
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, **settings)
    again.mount(Table())
    again_dropped, _ = play_hands(again, table, range(400, 460, 10))
    assert "g%d" % first not in os.listdir(again.dir)  # removed at last
    assert (first, last) not in again_dropped and again_dropped  # later segments dropped, each once


@pytest.mark.parametrize("key", [bytes(32), None], ids=["another key", "no key"])
def test_a_journal_mounted_under_another_key_is_never_extended_even_without_the_boot(tmp_path, key):
    """journal_boot fails such a journal at power-up (docs/journal.md, the fault
    `unkeyed`); the journal's own append refuses it too, so no other caller can
    add a record the board could not sign."""
    journal = started(tmp_path)
    journal.append(jr.ROLL, 3 << 3 | 4, 10, Table())
    before = sizes(journal.dir)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=key)
    assert again.mount(Table()) != jn.NONE and again.unkeyed is not None and again.seq == journal.seq
    with pytest.raises(jn.JournalError) as refused:
        again.append(jr.ROLL, 2 << 3 | 2, 20, Table())
    assert refused.value.fault == jn.UNKEYED and str(refused.value).startswith("unkeyed: ")
    assert sizes(journal.dir) == before and again.seq == journal.seq


def test_a_journal_directory_whose_head_file_is_gone_is_corrupt_not_a_first_use(tmp_path):
    """docs/journal.md, Restoring: no head file and an empty (or no) directory is
    a start cut short, a journal never written; records without their head are
    a fault, so power-up never starts a new journal over them."""
    journal = started(tmp_path)
    journal.append(jr.ROLL, 3 << 3 | 4, 10, Table())
    os.remove(os.path.join(journal.dir, "head"))
    before = sizes(journal.dir)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    with pytest.raises(jn.JournalError) as e:
        again.mount(Table())
    assert (str(e.value), e.value.fault) == ("corrupt: journal directory without a head file", jn.CORRUPT)
    assert sizes(journal.dir) == before
    shutil.rmtree(journal.dir)
    os.mkdir(journal.dir)
    assert jn.Journal(str(tmp_path), b"BOARD1", key=KEY).mount(Table()) == jn.NONE  # empty: never written


def test_a_head_file_that_does_not_decode_is_corrupt_unless_the_start_was_cut_before_writing_it(tmp_path):
    """docs/journal.md, Restoring, step 1: a start cut between creating the head
    file and writing it leaves an empty head alone (no journal: NONE); any other
    head that does not decode is the fault corrupt naming why, nothing written."""
    journal = started(tmp_path)
    head = os.path.join(journal.dir, "head")
    good = open(head, "rb").read()
    open(head, "wb").write(b"\x07" + good[1:])  # an unknown format byte, the segments still there
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert e.value.fault == jn.CORRUPT and str(e.value).startswith("corrupt: ")
    shutil.rmtree(journal.dir)
    os.mkdir(journal.dir)
    open(head, "wb").write(good[:5])  # alone, but not empty: cut short inside it
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert e.value.fault == jn.CORRUPT
    assert os.listdir(journal.dir) == ["head"]
    open(head, "wb").close()  # alone and empty: the start's cut before its first byte
    assert jn.Journal(str(tmp_path), b"BOARD1", key=KEY).mount(Table()) == jn.NONE


def test_a_journal_whose_records_hold_no_table_state_is_corrupt_at_its_last_record(tmp_path):
    """Every journal starts with the table state (JOURNAL_START) and each segment
    after a rotation with a snapshot: records that leave the restore no state to
    start from are the fault corrupt, here a roll re-signed as record 1."""
    journal = started(tmp_path)
    head = open(os.path.join(journal.dir, "head"), "rb").read()
    record, _ = jr.encode(jr.genesis(head), 1, 5, jr.ROLL, 3 << 3 | 4, b"", b"", journal.mac)
    with open(os.path.join(journal.dir, jr.slot_name(0)), "wb") as f:
        f.write(record)
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert (str(e.value), e.value.fault, e.value.seq) == ("corrupt: no table state in the journal", jn.CORRUPT, 1)


def test_a_new_journal_at_power_up_after_a_mount_that_failed_mid_way_starts_journal_2(tmp_path):
    """docs/journal.md: a supervisor's new journal at power-up when the old one
    fails to verify after some of its records (the mount read record 1, then
    stopped before it set the clock): journal 2 starts at record 1 and mounts."""
    from crapsboard.journal import journal_boot

    journal = started(tmp_path)
    journal.append(jr.DROP, 0, 10, Table(), bytes(300 - EMPTY_RECORD))  # records 1 and 2 into g1
    path = journal.dir + "/g1"
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - 20)  # record 2 cut: record 1 verified, then the fault
    again = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    found = journal_boot.open_table_journal(Table(), again, 1, 500, new_journal=True)
    assert (found, again.journal_id, again.seq, again.fault) == (jn.NONE, 2, 1, 0)
    assert opened(tmp_path).journal_id == 2


@pytest.mark.parametrize("event_seq", [3, 65535, 65536, 70000, 131073])
def test_a_verified_record_clears_the_hold_of_the_event_its_16_bit_arg_names(event_seq):
    """docs/journal.md, record fields: a verified record's arg is the HOLD's seq, its
    low 16 bits. The restore matches it against the last table event's seq in 16
    bits too, past 65,535 records; an arg naming another event clears nothing."""
    import types

    from crapsboard.journal import journal_restore

    def record(kind, seq, arg):
        return types.SimpleNamespace(t=seq, kind=kind, seq=seq, arg=arg, state=b"", payload=b"")

    for arg, cleared in ((event_seq & 0xFFFF, True), ((event_seq - 1) & 0xFFFF, False)):
        replay = journal_restore._Replay(Table(), None)
        replay.add(record(jr.ROLL, event_seq, 4 * 8 + 4))
        replay.add(record(jr.VERIFIED, event_seq + 1, arg))
        assert replay.verified is cleared, (event_seq, arg)


def test_a_record_of_a_state_kind_without_the_table_state_is_refused_by_the_restore():
    """docs/journal.md, Restoring: an undo, configuration, journal start or
    snapshot record always carries the table state; one without it is the fault
    corrupt naming its kind (a journal the board did not write)."""
    import types

    from crapsboard.journal import journal_read as jread
    from crapsboard.journal import journal_restore

    for kind in sorted(journal_restore.STATE_KINDS):
        replay = journal_restore._Replay(Table(), None)
        with pytest.raises(ValueError) as e:
            replay.add(types.SimpleNamespace(t=5, kind=kind, seq=2, arg=0, state=b"", payload=b""))
        assert str(e.value) == "a %s record without the table state" % jread.KIND_NAMES[kind]


def test_the_snapshot_opening_a_rotated_segment_has_arg_0(tmp_path):
    """docs/journal.md, record fields: a snapshot record's arg is 0, read back as
    host_tools log reads the journal."""
    from crapsboard.journal import journal_read as jread
    from host_tools import journal_log

    table = Table()
    journal = started(tmp_path, batch=2, segment_bytes=64)
    for t in range(10, 90, 10):
        table.roll(2, 2)
        journal.append(jr.ROLL, 2 * 8 + 2, t, table)
        journal.maintain(table, t + 5)
    records, _ = journal_log.verify_files(_files(pathlib.Path(journal.dir)), mac=jr.Mac(jread.journal_key(KEY)))
    snapshots = [r.arg for r in records if r.kind == jr.SNAPSHOT]
    assert len(snapshots) >= 2 and set(snapshots) == {0}


def test_a_mount_that_finds_no_journal_leaves_appends_refused_until_one_is_started(tmp_path):
    """docs/journal.md: only a journal the restore verified, or one start_new began, is
    extended; a board's first mount finds none and appends nothing before its start."""
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    assert journal.mount(Table()) == jn.NONE
    table = Table()
    table.roll(3, 4)
    with pytest.raises(jn.JournalError) as e:
        journal.append(jr.ROLL, 3 * 8 + 4, 10, table)
    assert (e.value.fault, str(e.value)) == (jn.CORRUPT, "corrupt: journal not mounted")
    assert os.listdir(str(tmp_path)) == []
    journal.start_new(Table(), 0, 1, 0)
    journal.append(jr.ROLL, 3 * 8 + 4, 10, table)
    assert journal.seq == 2


@pytest.mark.parametrize("name", ["gx", "g", "g1.tmp"])
def test_a_stray_file_named_like_a_segment_is_a_fault_naming_it(tmp_path, name):
    # docs/journal.md, Files: a segment is g<first seq>. Another file starting with g is
    # not ours to read or skip: the restore stops with CORRUPT naming it, writes nothing.
    journal = started(tmp_path)
    with open(os.path.join(journal.dir, name), "wb") as f:
        f.write(b"x")
    files = sizes(journal.dir)
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert (str(e.value), e.value.fault) == ("corrupt: stray file %s in the journal" % name, jn.CORRUPT)
    assert sizes(journal.dir) == files


def test_a_segment_holding_only_the_journal_start_is_dropped_with_a_drop_record_after_a_restart(tmp_path):
    # Batches of one record, segments of 64 bytes, one kept: the first use's maintain
    # flushes the journal start alone into g1, finds g1 full and stages the snapshot
    # that opens g2; the power fails there. After the restart g2 is written and g1,
    # records 1 to 1, is dropped, and that drop is recorded like any other
    # (docs/journal.md), although no drop record was read back.
    settings = dict(batch=1, segment_bytes=64, max_segments=1)
    journal = started(tmp_path, **settings)
    journal.maintain(Table(), 0)
    assert journal._segments == [[1, 1, sizes(journal.dir)["g1"]]] and journal.staged == 1
    table = Table()
    again = opened(tmp_path, **settings)
    drops, removed = play_hands(again, table, [10, 20, 30])
    assert removed[0] == 1 and drops[0] == (1, 1)


@pytest.mark.parametrize("limit", ["between", "last"])
def test_after_a_restart_a_staged_snapshot_opens_a_new_segment_only_if_the_last_one_is_full(tmp_path, limit):
    # Power lost just after a rotation: two segments of different sizes and, staged,
    # the snapshot that opens the next one. The restore rotates only if the last
    # segment is full (>= segment_bytes, here the size the board is mounted with).
    # Mounted with a size between the first (larger) segment's and the last one's,
    # the batch joins the last one; with the last one's exact size it is full.
    started(tmp_path)
    table = Table()
    t = 0
    for segments, segment_bytes in ((1, 700), (2, 400)):  # a restart between: segments of two sizes
        journal = opened(tmp_path, batch=2, segment_bytes=segment_bytes)
        while len(journal._segments) < segments or not journal._rotate:
            t += 10
            table.roll(2, 3)
            journal.append(jr.ROLL, 2 * 8 + 3, t, table)
            journal.maintain(table, t)
    first, last = (sizes(journal.dir)["g%d" % s[0]] for s in journal._segments[-2:])
    assert last < 700 <= first and journal.staged == 1
    segment_bytes = (first + last) // 2 if limit == "between" else last
    again = opened(tmp_path, batch=2, segment_bytes=segment_bytes)
    before = sorted(name for name in os.listdir(again.dir) if name[0] == "g")
    again.append(jr.END_HAND, 0, t + 10, table)
    again.maintain(table, t + 10)
    after = sorted(name for name in os.listdir(again.dir) if name[0] == "g")
    assert len(after) == len(before) + (last >= segment_bytes)


@pytest.mark.parametrize(
    "after, left",
    [(59_999, 1), (60_000, 0), (2**29 * 4 + 10, 0)],
    ids=["1 ms to run", "just over", "24.9 days on"],
)
def test_a_pin_lockout_restored_has_the_60_s_less_the_journal_clock_since_it_to_run(tmp_path, after, left):
    # docs/keys.md: three wrong PINs lock the PIN key for 60 s; the restore counts the
    # journal clock from the third to the last record, to the ms, and over 2**31 ms
    # (24.9 days of the board on, with no PIN entered since) the lockout is long over.
    table = Table()
    journal = started(tmp_path)
    for t in (1_000, 1_100, 1_200):
        journal.append(jr.ERROR, jr.ERR_WRONG_PIN, t, table)
    t = 1_200
    while t < 1_200 + after:
        t = min(t + 2**29, 1_200 + after)  # a record within each tick period (2**30 ms)
        journal.append(jr.END_HAND, 0, t, table)
    again = opened(tmp_path)
    assert (again.pin_fails, again.pin_lock_ms) == (0, left)


def test_a_whole_staged_record_that_fails_its_crc_is_the_fault_corrupt_naming_its_seq(tmp_path):
    """As a staging file cut short, but whole: its CRC fails, and the fault names the
    file and the seq its header holds (record 2, in odd/s1)."""
    journal = started(tmp_path)
    journal.append(jr.END_HAND, 0, 10, Table())
    with open(journal.dir + "/odd/s1", "r+b") as f:
        record = bytearray(f.read())
        record[-1] ^= 0x01
        f.seek(0)
        f.write(record)
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert (str(e.value), e.value.fault, e.value.seq) == ("corrupt: staging file odd/s1 fails its CRC", jn.CORRUPT, 2)


def test_only_wrong_pin_records_count_towards_the_lockout_and_a_good_pin_starts_the_count_again(tmp_path):
    # docs/keys.md: three wrong PINs in a row lock the PIN key; a good PIN clears the
    # count. An error record is journalled for a wrong PIN only (arg 7); another
    # record with arg 7 (7 progressive wagers keyed) is no wrong PIN.
    table = Table()
    journal = started(tmp_path)
    journal.append(jr.ERROR, jr.ERR_WRONG_PIN, 10, table)
    journal.append(jr.SUPERVISOR_ON, jr.VIA_PIN, 20, table)  # the count starts again
    for t in (30, 40):
        journal.append(jr.ERROR, jr.ERR_WRONG_PIN, t, table)
    journal.append(jr.PROG_WAGER, 7, 50, table, b'{"game": "MEA", "roll": 0}')
    restored = opened(tmp_path)
    assert (restored.pin_fails, restored.pin_lock_ms) == (2, 0)
    journal.append(jr.ERROR, jr.ERR_WRONG_PIN, 60, table)  # the third in a row since the good PIN
    restored = opened(tmp_path)
    assert (restored.pin_fails, restored.pin_lock_ms) == (0, 60_000)


def test_a_bad_snapshot_in_a_state_record_a_later_one_supersedes_is_still_the_fault_corrupt(tmp_path, monkeypatch):
    """docs/journal.md, Restoring: every record's state is decoded as it is read, so a
    bad snapshot is a fault at its own record (here record 2, written with its chain,
    MAC and CRC intact), not passed over because a later snapshot replaces it."""
    from crapsboard.journal import snapshot

    table = Table()
    journal = started(tmp_path)
    good = snapshot.dumps
    monkeypatch.setattr(snapshot, "dumps", lambda state_of, seq: b"\x07" + good(state_of, seq)[1:])
    journal.append(jr.SNAPSHOT, 0, 10, table)  # 2
    monkeypatch.undo()
    journal.append(jr.SNAPSHOT, 0, 20, table)  # 3
    with pytest.raises(jn.JournalError) as e:
        opened(tmp_path)
    assert (e.value.fault, e.value.seq) == (jn.CORRUPT, 2) and str(e.value).startswith("corrupt: record 2: ")


@pytest.mark.parametrize("over", [0, 1], ids=["exactly full", "one byte short"])
def test_a_segment_of_exactly_segment_bytes_is_full_and_rotated(tmp_path, over):
    # docs/journal.md: segments are rotated at segment_bytes: one that has reached
    # them (>=) is closed with a snapshot opening the next; one byte short, it is not.
    table = Table()
    journal = started(tmp_path, batch=2)
    while not journal._segments:
        journal.append(jr.END_HAND, 0, 10, table)
        journal.maintain(table, 10)
    full = sizes(journal.dir)["g1"]
    again = opened(tmp_path, batch=2, segment_bytes=full + over)
    kinds = []
    again.on_append = lambda record, prev: kinds.append(record[10])
    again.maintain(table, 20)
    assert kinds == ([jr.SNAPSHOT] if over == 0 else [])
