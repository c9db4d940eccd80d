"""docs/journal.md: a staging file holds one record of at most 128 bytes; a
record over 128 bytes goes straight into the segment with the staged batch.
The journal on a real directory under CPython, at the edge (the
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


def test_a_segment_created_empty_by_a_power_cut_is_removed_once_the_rest_verifies(tmp_path):
    """A cut between creating the next segment and its first flush leaves an
    empty file after the last segment: not data; the restore goes on from
    the staged records and removes it (journal_restore), so it never sits
    on the flash as a segment without a header."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    for t in (10, 20):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)  # each flush rotates (64-byte segments): g1, g3
    assert (journal.seq, journal.staged) == (5, 1)
    files = sorted(sizes(journal.dir))
    open(journal.dir + "/g5", "wb").close()  # the next segment, cut before its first flush
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    assert again.mount(Table()) == jn.RESTORED and again.seq == 5
    assert sorted(sizes(journal.dir)) == files


def test_a_segment_whose_header_disagrees_with_its_name_is_the_fault_corrupt_naming_both(tmp_path):
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    for t in (10, 20):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)
    os.rename(journal.dir + "/g3", journal.dir + "/g4")
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    try:
        again.mount(Table())
    except jn.JournalError as e:
        assert str(e) == "corrupt: segment g4 starts at 3"
    else:
        raise AssertionError("mounted a journal whose segment g4 starts at 3")


def test_dropping_the_oldest_segment_is_recorded_with_its_range(tmp_path):
    """docs/journal.md: past max_segments the oldest segment is dropped, and
    that is recorded (a drop record, payload u32 first, u32 last seq)."""
    import struct

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64, max_segments=2)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    appended = []
    journal.on_append = lambda record, prev: appended.append(record)
    for t in (10, 20, 30):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)
    drops = [r for r in appended if r[10] == jr.DROP]
    assert [struct.unpack_from("<II", r, jr.HEADER_SIZE) for r in drops] == [(1, 2)]
    assert "g1" not in sizes(journal.dir) and "g3" in sizes(journal.dir)


def segments_after(tmp_path, restart_at):
    """The segment files after 160 end-hand records, the journal remounted
    (a power cycle) after `restart_at` of them (None: never)."""
    table = Table()
    tmp_path.mkdir()

    def opened():
        journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=8, segment_bytes=4096)
        journal.mount(table)
        return journal

    journal = opened()
    journal.start_new(table, 0, 1, 0)
    for i in range(160):
        if i == restart_at:
            journal = opened()
        journal.append(jr.END_HAND, 0, i, table)
        journal.maintain(table, i)
    return {name: size for name, size in sizes(journal.dir).items() if name.startswith("g")}


def test_a_restart_does_not_move_where_segments_rotate(tmp_path):
    """The restore counts a segment's bytes however many reads it takes (a
    segment over 2 KiB takes more than one), so a remounted journal rotates
    at 4 KiB exactly where one never restarted does."""
    straight = segments_after(tmp_path / "straight", None)
    restarted = segments_after(tmp_path / "restarted", 100)  # g1 holds ~3.4 KiB by then
    assert len(straight) >= 2 and restarted == straight


def test_a_restart_is_recorded_with_the_reset_cause_as_its_arg(tmp_path):
    """docs/journal.md: a journal that verifies restores the table and
    appends RESTART (kind 17, arg = machine.reset_cause()); causes 1-5."""
    from crapsboard.journal import journal_boot

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal_boot.open_table_journal(table, journal, 1, 0)  # first use: a journal started
    for cause in (1, 2, 3, 4, 5):
        again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
        appended = []
        again.on_append = lambda record, prev, out=appended: out.append(record)
        assert journal_boot.open_table_journal(Table(), again, cause, 0) == jn.RESTORED
        assert [(r[10], r[11] | r[12] << 8) for r in appended] == [(jr.RESTART, cause)]


def test_the_pin_rule_restored_counts_wrong_pins_afresh_after_a_lockout(tmp_path):
    """docs/keys.md: three wrong PINs in a row lock the PIN key for 60 s and
    the count starts again; the restore reads the same from the journal's
    error records (wrong PINs before a restart count towards the three)."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    restored = []
    for t in (100, 200, 300, 400):
        journal.append(jr.ERROR, jr.ERR_WRONG_PIN, t, table)
        again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
        again.mount(Table())
        restored.append((again.pin_fails, again.pin_lock_ms))
    # 1 and 2 wrong; the third locks (60 s still to run) and counts from 0; the fourth is 1 again
    assert restored == [(1, 0), (2, 0), (0, 60000), (1, 60000 - 100)]


def test_a_segment_ending_in_a_record_over_255_bytes_restores(tmp_path):
    """A record's length is two bytes, low first: a 300-byte record at the
    end of a segment is read whole (not "ends inside record")."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.append(jr.DROP, 0, 10, table, bytes(300 - EMPTY_RECORD))  # over 128 B: into the segment
    assert journal.staged == 0
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    assert again.mount(Table()) == jn.RESTORED and again.seq == 2


def test_a_missing_segment_is_the_fault_chain_naming_the_records_lost(tmp_path):
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    for t in (10, 20, 30):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)  # g1, g3, g5
    os.remove(journal.dir + "/g3")
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    try:
        again.mount(Table())
    except jn.JournalError as e:
        assert (str(e), e.seq) == ("chain: records 3 to 4 missing", 3)  # the first record lost
    else:
        raise AssertionError("mounted a journal without segment g3")
    try:  # and it stays that fault: nothing is appended
        again.append(jr.END_HAND, 0, 40, table)
    except jn.JournalError as e:
        assert e.fault == jn.CHAIN
    else:
        raise AssertionError("appended to a journal whose mount failed")


def test_a_drop_whose_remove_failed_is_recorded_once_when_it_is_retried(tmp_path):
    """The drop record goes first, then the file is removed; when the remove
    fails (here: a directory stands where the file was, so the real
    filesystem refuses), the next maintain retries the remove without a
    second drop record for the same segment."""
    import shutil
    import struct

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64, max_segments=2)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    appended = []
    journal.on_append = lambda record, prev: appended.append(record)
    for t in (10, 20):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)  # g1, g3
    os.remove(journal.dir + "/g1")
    os.makedirs(journal.dir + "/g1/in-the-way")
    journal.append(jr.END_HAND, 0, 30, table)
    try:
        journal.maintain(table, 30)  # g5: one segment too many, g1 cannot be removed
    except OSError:
        pass
    else:
        raise AssertionError("removed a directory as a segment file")
    shutil.rmtree(journal.dir + "/g1")
    open(journal.dir + "/g1", "wb").close()
    journal.maintain(table, 40)
    drops = [struct.unpack_from("<II", r, jr.HEADER_SIZE) for r in appended if r[10] == jr.DROP]
    assert drops == [(1, 2)] and "g1" not in sizes(journal.dir)


def test_a_staged_record_rolled_back_in_one_slot_directory_is_the_fault_chain(tmp_path):
    """docs/journal.md, "On the board": a commit of one slots' directory rolled
    back while the other kept its later record leaves a gap in seq: the fault
    chain `staged records out of order after N`, naming record N + 1, never a
    shorter table."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)  # record 1 in s0
    for t in (10, 20):
        journal.append(jr.END_HAND, 0, t, table)  # 2 in odd/s1, 3 in s2
    assert journal.staged == 3 and journal.seq == 3
    os.remove(journal.dir + "/odd/s1")  # the odd directory's commit of record 2 rolled back
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    try:
        again.mount(Table())
    except jn.JournalError as e:
        assert (str(e), e.fault, e.seq) == ("chain: staged records out of order after 1", jn.CHAIN, 2)
    else:
        raise AssertionError("mounted a journal whose record 2 was rolled back")


def test_a_segment_too_short_for_its_header_is_the_fault_corrupt_naming_it(tmp_path):
    """A segment that holds anything holds its header first (docs/journal.md,
    Files); one cut inside it is the fault corrupt, not an empty segment."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    for t in (10, 20):
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)  # g1, g3
    with open(journal.dir + "/g3", "r+b") as f:
        f.truncate(3)
    again = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32, batch=2, segment_bytes=64)
    try:
        again.mount(Table())
    except jn.JournalError as e:
        assert (str(e), e.fault, e.seq) == ("corrupt: segment g3 has no header", jn.CORRUPT, 3)
    else:
        raise AssertionError("mounted a journal whose segment g3 lost its header")


def test_the_journal_as_the_board_makes_it_has_the_documented_production_settings(tmp_path):
    # docs/journal.md, "Figures": "the production settings (batch 32, 32 KiB segments,
    # 24 segments)", which its figures (29,700 rolls kept) are worked from. The board
    # makes its journal with the defaults (crapsboard/boot/power_up.py).
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "journal.md"), encoding="utf-8") as f:
        said = re.search(r"production settings \(batch (\d+), (\d+) KiB segments, (\d+) segments\)", f.read())
    assert said, "docs/journal.md no longer states the production settings"
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    batch, kib, segments = map(int, said.groups())
    assert (journal.batch, journal.segment_bytes, journal.max_segments) == (batch, kib * 1024, segments)
    assert tuple(map(int, said.groups())) == (32, 32, 24)


def test_a_journal_start_records_why_it_started(tmp_path):
    """docs/journal.md: a journal start's arg is its reason, 0 first use and 1 the
    power-up gesture (2 is the link's journal_reset)."""
    from crapsboard.journal import journal_boot

    for new_journal, reason in ((False, 0), (True, 1)):
        os.mkdir(tmp_path / str(reason))
        journal = jn.Journal(str(tmp_path / str(reason)), b"BOARD1", key=b"k" * 32)
        appended = []
        journal.on_append = lambda record, prev, out=appended: out.append(record)
        journal_boot.open_table_journal(Table(), journal, 1, 0, new_journal=new_journal)
        assert [(r[10], r[11] | r[12] << 8) for r in appended] == [(jr.JOURNAL_START, reason)]


def test_open_journal_says_whether_it_restored_and_gives_the_app_its_journal(tmp_path):
    """docs/journal.md: at power-up the board restores its journal (and shows restored —
    verify) or, finding none, starts one; open_journal says which."""
    from test_board_app import make

    from crapsboard.journal import journal_boot

    seen = []
    for _ in range(2):
        app, _clock = make()
        journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
        seen.append((journal_boot.open_journal(app, journal, 1, 0), app.restored, app.journal is journal))
    assert seen == [(jn.NONE, False, True), (jn.RESTORED, True, True)]
