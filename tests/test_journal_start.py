"""docs/journal.md, Supervisor: a new journal keeps the one it replaces as
journal.old (one kept) and its first record (kind 18) names the old journal
id, its last verified seq and chain head; and it drops its own segments with
a drop record each, whatever the journal before it dropped. The journal on
a real directory under CPython (the mutants of Journal.start_new)."""

import hashlib
import os
import struct

import pytest

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table

KEY = b"k" * 32


def payload(record):
    # docs/journal.md, Record format: a 14-byte header whose last byte is the
    # state's length S, the state, the payload, then link, MAC and CRC (20 bytes).
    state_size = record[jr.HEADER_SIZE - 1]
    return record[jr.HEADER_SIZE + state_size : len(record) - 20]


def chain_hash(prev, record):
    # H(seq) = sha256(H(seq - 1) || record up to the link)
    return hashlib.sha256(prev + record[: len(record) - 20]).digest()


def test_a_new_journal_names_the_old_one_by_id_last_seq_and_chain_head(tmp_path):
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    appended = []
    journal.on_append = lambda record, prev: appended.append((record, prev))
    journal.start_new(table, 0, 0x0A0B0C0D, 0)
    for t in (10, 20):
        table.roll(3, 4)
        journal.append(jr.ROLL, 3 * 8 + 4, t, table)
    old_head = chain_hash(appended[-1][1], appended[-1][0])
    journal.start_new(table, 30, 7, 1)  # the power-up gesture
    start, _ = appended[-1]
    assert (start[10], start[11] | start[12] << 8) == (jr.JOURNAL_START, 1)
    # u32 old journal id, u32 its last seq (3: the start and two rolls), its chain head's first 8 bytes
    assert payload(start) == bytes([0x0D, 0x0C, 0x0B, 0x0A, 3, 0, 0, 0]) + old_head[:8]
    assert len(start) == 131  # "the state and 16 bytes of payload, 131 bytes"


def test_a_third_journal_replaces_journal_old_with_the_second(tmp_path):
    """One old journal is kept: starting a journal again removes journal.old,
    its odd slots' directory too, and keeps the journal it replaces."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    for journal_id in (1, 2, 3):
        journal.start_new(table, 0, journal_id, 0)  # journals 2 and 3: record 1 straight into g1
        for t in (10, 20):
            journal.append(jr.END_HAND, 0, t, table)  # records 2 and 3: s0 and odd/s1
    with open(journal.dir + ".old/head", "rb") as f:
        assert jread.decode_head(f.read())[1] == 2
    assert sorted(os.listdir(journal.dir + ".old/odd")) == ["s1"]
    with open(journal.dir + ".old/odd/s1", "rb") as f:
        assert jr.peek_seq(f.read(), 0) == 3


def play_hands(journal, table, times):
    """A hand ended at each of `times`, maintained after each as the app does:
    (the drop records' (first, last) seqs, the segments removed meanwhile)."""
    appended, removed = [], []
    journal.on_append = lambda record, prev: appended.append(record)
    for t in times:
        before = set(os.listdir(journal.dir))
        journal.append(jr.END_HAND, 0, t, table)
        journal.maintain(table, t)
        removed += sorted(int(name[1:]) for name in before - set(os.listdir(journal.dir)) if name[0] == "g")
    drops = [r for r in appended if r[10] == jr.DROP]
    assert all(r[11:13] == b"\0\0" for r in drops)  # docs/journal.md: a drop record's arg is 0
    return [struct.unpack_from("<II", r, jr.HEADER_SIZE) for r in drops], removed


def test_a_new_journal_started_on_a_running_board_records_every_drop_of_its_own(tmp_path):
    """The link's journal_reset starts a new journal on the running board's
    Journal: its segments are dropped with a drop record each (payload u32
    first, u32 last seq), from its first segment on, although the journal
    before it had dropped segments up to a higher seq."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, batch=2, segment_bytes=64, max_segments=2)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    dropped_before, _ = play_hands(journal, table, range(10, 100, 10))
    assert dropped_before and dropped_before[-1][1] >= 10
    journal.start_new(table, 100, 2, 2)
    journal.maintain(table, 100)  # as after every event
    drops, removed = play_hands(journal, table, range(110, 200, 10))
    # Record 1 (131 bytes: it names the old journal) went straight into g1,
    # which then rotated: the first segment dropped holds record 1 alone.
    assert drops[0] == (1, 1)
    assert [first for first, _ in drops] == removed


def test_nothing_is_appended_to_a_journal_before_it_is_verified(tmp_path):
    """docs/journal.md: a journal is extended only after its restore verified
    it. Before mount, append is refused as corrupt and writes nothing."""
    from crapsboard.journal.journal_codes import CORRUPT

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    table.roll(3, 4)
    try:
        journal.append(jr.ROLL, 3 * 8 + 4, 10, table)
    except jn.JournalError as e:
        assert e.fault == CORRUPT and str(e) == "corrupt: journal not mounted"
    else:
        raise AssertionError("an unverified journal took a record")
    assert os.listdir(str(tmp_path)) == []


def test_a_record_the_flash_has_no_room_for_is_refused_and_not_counted(tmp_path):
    """docs/journal.md: an event is shown only once durable. A full flash
    (here the next staging file is /dev/full, a real ENOSPC at its write)
    refuses the append as FULL, the journal's seq does not move, and the
    journal takes nothing more until it is mounted again."""
    from crapsboard.journal.journal_codes import FULL

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    seq = journal.seq
    slot = os.path.join(journal.dir, jr.slot_name(journal.staged))
    if os.path.exists(slot):
        os.remove(slot)
    os.symlink("/dev/full", slot)
    table.roll(3, 4)
    for _ in range(2):
        try:
            journal.append(jr.ROLL, 3 * 8 + 4, 10, table)
        except jn.JournalError as e:
            assert e.fault == FULL
        else:
            raise AssertionError("a record the flash could not hold was taken")
        assert journal.seq == seq


def test_a_flush_the_flash_has_no_room_for_is_the_fault_full_naming_the_next_record(tmp_path):
    """The same in `maintain`: the segment the staged batch goes into cannot be
    written (here it is /dev/full), so the journal stops with FULL naming the
    record it could not make room for, the one after its last."""
    from crapsboard.journal.journal_codes import FULL

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, batch=2)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.append(jr.END_HAND, 0, 10, table)  # records 1 and 2 staged: a flush is due
    os.symlink("/dev/full", os.path.join(journal.dir, "g1"))
    try:
        journal.maintain(table, 20)
    except jn.JournalError as e:
        assert (e.fault, e.seq, str(e)) == (FULL, 3, "full: no room for record 3")
    else:
        raise AssertionError("a flush the flash could not hold went through")
    # stopped: the app's next maintain touches nothing until the journal is mounted again
    files = {name: os.path.getsize(os.path.join(journal.dir, name)) for name in os.listdir(journal.dir)}
    journal.maintain(table, 30)
    assert {name: os.path.getsize(os.path.join(journal.dir, name)) for name in os.listdir(journal.dir)} == files


def test_a_new_journal_carries_the_wall_clock_over_more_than_24_days_of_journal_clock(tmp_path):
    """The journal clock is 32 bits of ms (docs/journal.md): a new journal's wall
    clock moves on by all of the old clock since the last set, here 3e9 ms
    (34.7 days: past 2**31 ms), rounded down to the second."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.clock, journal._ticks = 3_000_000_000, None
    journal.wall = (1_767_225_600, 0)  # set at journal clock 0
    journal.start_new(table, 0, 2, 0)
    assert journal.wall == (1_767_225_600 + 3_000_000, 0)


def test_a_new_journal_carries_the_wall_clock_over_the_journal_clocks_wrap(tmp_path):
    """The wall clock was set 5 s of journal clock before the 32-bit clock wrapped
    and the journal is replaced 3 s after: the new journal's wall is 8 s on."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.clock, journal._ticks = 3_000, None
    journal.wall = (1_767_225_600, 2**32 - 5_000)
    journal.start_new(table, 0, 2, 0)
    assert journal.wall == (1_767_225_600 + 8, 0)


def test_the_clock_a_signed_time_is_stamped_with_wraps_at_32_bits():
    """A record's t is 32 bits (docs/journal.md, the journal clock): the clock
    `time` reads for the next record wraps there, as the journal's own does."""
    from types import SimpleNamespace

    from crapsboard.link import link_admin

    journal = SimpleNamespace(clock=0xFFFF_FFF0, _ticks=1000)
    assert link_admin._journal_clock(journal, 1000 + 0x20) == 0x10


def test_a_new_journal_carries_the_days_backward_clock_sets_onto_its_own_clock(tmp_path):
    """A clock set back within the last day still counts after a journal reset
    (docs/link.md, `time`): its time is moved onto the new journal's clock, which
    starts at 0, so it lies before 0 modulo 2**32 and is still within the day."""
    from crapsboard.journal.journal_codes import within_day

    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.clock, journal._ticks = 5_000, None
    journal.backs = [(4_000, 30)]  # 30 s set back 1 s of journal clock ago
    journal.start_new(table, 0, 2, 0)
    assert journal.backs == [(2**32 - 1_000, 30)]
    assert within_day(journal.backs, 0) == journal.backs


def test_a_backward_clock_set_counts_for_less_than_a_day_of_the_journal_clock():
    # docs/journal.md: the clock may go back 60 s in all over a day of the journal clock;
    # a set exactly a day (86,400,000 ms) old counts no more, across the 32-bit wrap too
    from crapsboard.journal.journal_codes import within_day

    day = 86_400_000
    backs = [(1000, 30), (5000, 20)]
    assert within_day(backs, 1000 + day - 1) == backs
    assert within_day(backs, 1000 + day) == [(5000, 20)]
    assert within_day(backs, 5000 + day) == []
    wrapped = [(0xFFFFFF00, 10)]
    assert within_day(wrapped, (0xFFFFFF00 + day - 1) & 0xFFFFFFFF) == wrapped
    assert within_day(wrapped, (0xFFFFFF00 + day) & 0xFFFFFFFF) == []


def test_on_a_floor_the_oldest_segment_goes_once_the_floor_holds_its_last_record(tmp_path):
    """docs/journal.md: a board on a floor drops a segment only when the recorder's
    receipt covers it: a receipt one record short keeps it, one for its last
    record lets it go."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY, batch=2, segment_bytes=64, max_segments=2)
    journal.mount(table)
    journal.start_new(table, 0, 1, 0)
    journal.on_floor = True
    drops, removed = play_hands(journal, table, range(10, 200, 10))
    assert (drops, removed) == ([], [])  # nothing received: every segment kept
    assert len(journal._segments) > 2
    first, last, _ = journal._segments[0]
    journal.received = last - 1
    journal.maintain(table, 200)
    assert journal._segments[0][0] == first and os.path.exists(journal.dir + "/g%d" % first)
    journal.received = last
    journal.maintain(table, 210)
    assert journal._segments[0][0] == last + 1 and not os.path.exists(journal.dir + "/g%d" % first)


def test_a_new_journals_clock_starts_at_0_at_its_start_record(tmp_path):
    # docs/journal.md, the journal clock: each journal counts the ms the board was on
    # from 0 at its JOURNAL_START; the old journal's clock runs on only into the wall
    # clock it carries over.
    from test_journal_restore import started

    journal = started(tmp_path)
    table = Table()
    journal.append(jr.END_HAND, 0, 1_000, table)
    journal.append(jr.END_HAND, 0, 4_000, table)
    assert journal.clock == 4_000
    journal.start_new(table, 9_000, 2)
    assert journal.clock == 0
    journal.append(jr.END_HAND, 0, 9_250, table)
    assert journal.clock == 250


def test_a_journal_started_over_one_cut_before_its_head_names_no_records_before_it(tmp_path):
    # A start cut between creating the journal's directory and writing its head
    # leaves an empty directory: the board finds no journal, keeps that directory
    # as journal.old, and its first journal (id 1) names journal 0 record 0 with no
    # chain head before it (docs/journal.md, Supervisor).
    from crapsboard.journal import journal_boot

    os.mkdir(tmp_path / "journal")
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    appended = []
    journal.on_append = lambda record, prev: appended.append(record)
    assert journal_boot.open_table_journal(Table(), journal, 1, 0) == jn.NONE
    assert os.listdir(tmp_path / "journal.old") == []
    assert (journal.journal_id, journal.seq) == (1, 1)
    assert [(r[10], payload(r)) for r in appended] == [(jr.JOURNAL_START, bytes(8))]


def test_a_new_journal_on_a_floor_keeps_its_segments_until_the_floor_receives_its_records(tmp_path):
    """docs/journal.md: a receipt is for one journal's records. A board whose floor
    held the old journal up to record 40 starts a new one (the link's
    journal_reset): the new journal's first segment, record 1 alone here (batches of
    one, segments of 64 bytes), is kept until a receipt for the new journal covers it."""
    from test_journal_restore import started

    table = Table()
    journal = started(tmp_path, batch=1, segment_bytes=64, max_segments=1)
    journal.on_floor, journal.received = True, 40
    journal.start_new(table, 10, 2, 2)
    journal.maintain(table, 10)
    assert journal._segments[0][:2] == [1, 1]
    drops, removed = play_hands(journal, table, range(20, 100, 10))
    assert (drops, removed) == ([], []) and journal._segments[0][:2] == [1, 1]
    journal.received = 1
    drops, removed = play_hands(journal, table, [100])
    assert (drops, removed) == ([(1, 1)], [1])


@pytest.mark.parametrize("last, now", [(1_000, 9_500), (2**30 - 500, 8_000)], ids=["ticks", "across the tick wrap"])
def test_a_new_journal_carries_the_wall_clock_on_by_the_ticks_since_the_old_ones_last_record(tmp_path, last, now):
    """docs/journal.md, the journal clock: the board was on from the old journal's last
    record (at tick `last`) to the new journal's start (tick `now`, 8.5 s later; the
    board's ticks wrap at 2**30 ms), so the wall clock the new journal carries moves
    on by those 8.5 s, rounded down to 8."""
    table = Table()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=KEY)
    journal.mount(table)
    journal.start_new(table, last - 500, 1, 0)
    journal.append(jr.END_HAND, 0, last, table)
    assert journal.clock == 500
    journal.wall = (1_767_225_600, 500)  # set at that last record
    journal.start_new(table, now, 2, 0)
    assert journal.wall == (1_767_225_600 + 8, 0)


def test_a_new_journal_carries_the_clocks_on_from_an_old_clock_past_2_31_ms_to_the_ms(tmp_path):
    """As above, from an old journal clock of 3e9 ms (34.7 days on: past 2**31): the
    clock at the new start is 3,000,008,501, an odd number of ms, 9,000 ms after the
    wall clock was set (+9 s exactly) and 9,499 ms after a backward set, which the
    new journal's clock, starting at 0, holds 9,499 ms before it (modulo 2**32)."""
    from test_journal_restore import started

    table = Table()
    journal = started(tmp_path)
    journal.append(jr.END_HAND, 0, 1_000, table)
    journal.clock = 3_000_000_000  # the journal's clock at that record, 34.7 days on
    journal.wall = (1_767_225_600, 3_000_000_000 - 499)
    journal.backs = [(3_000_000_000 - 998, 30)]
    journal.start_new(table, 1_000 + 8_501, 2, 0)
    assert journal.wall == (1_767_225_600 + 9, 0)
    assert journal.backs == [(2**32 - 9_499, 30)]


def test_each_record_takes_the_journal_clock_to_the_ms(tmp_path):
    # docs/journal.md, the journal clock: ms since the journal started, every one of them
    # (odd ones too), as the record's t.
    from test_journal_restore import started

    journal = started(tmp_path)
    table = Table()
    appended = []
    journal.on_append = lambda record, prev: appended.append(struct.unpack_from("<I", record, 6)[0])
    for now in (1_001, 1_002, 4_003):
        journal.append(jr.END_HAND, 0, now, table)
    assert appended == [1_001, 1_002, 4_003] and journal.clock == 4_003
