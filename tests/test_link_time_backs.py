"""The link's `time` on a board with a journal, under CPython (crapsboard/link/link_admin.py):
what it keeps of the clock sets that went back is what mounting the journal again finds
(docs/link.md, `time`: a day's 60 s back counts across restarts), and the marker of
`maintenance` is not left behind when its reset cannot be scheduled."""

import os

import pytest
from conftest import ROOT

from crapsboard.journal import journal as jn
from crapsboard.link import link_admin
from crapsboard.link.link import LinkError
from crapsboard.link.link_app import Handlers
from crapsboard.rules.engine import Table
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, App
from sim.portable.simboard import SimBoard

KEY = b"k" * 32
JAN_2027 = 1_798_761_600


def board_with_journal(folder):
    journal = jn.Journal(folder, b"BOARD1", key=KEY)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    return board_on(journal, folder)


def board_on(journal, folder):
    board = SimBoard(lay.load(os.path.join(ROOT, "hardware", "board.json")))
    board.down = KEYSWITCH_NC_BIT
    app = App(board, lay.load(os.path.join(ROOT, "hardware", "board.json")), journal=journal)
    return Handlers(app, {}, "b", lambda: None, folder), board


def mounted_again(folder):
    journal = jn.Journal(folder, b"BOARD1", key=KEY)
    journal.mount(Table())
    return journal


def test_the_backward_sets_kept_live_are_those_a_mount_finds_again(tmp_path):
    handlers, board = board_with_journal(str(tmp_path))
    sets = [JAN_2027, JAN_2027 + 100, JAN_2027 + 70, JAN_2027 + 200]  # first, forward, 30 s back, forward
    for k, unix in enumerate(sets):
        board.now = 1000 * (k + 1)
        link_admin.set_time(handlers, {"unix": unix})
        assert handlers.app.journal.backs == mounted_again(str(tmp_path)).backs, unix
    assert [s for _, s in handlers.app.journal.backs] == [31]  # the clock ran 1 s between the sets


def test_a_restarted_boards_first_time_counts_the_backward_set_its_journal_holds(tmp_path):
    # docs/link.md, `time`: 60 s back in a day, across restarts. Set back 30 s, then the
    # board restarts; its first `time`, before any record of this power-up, 31 s back:
    # 61 s in the day, refused, and the 30 s found in the journal named.
    folder = str(tmp_path)
    handlers, board = board_with_journal(folder)
    board.now = 1000
    link_admin.set_time(handlers, {"unix": JAN_2027})
    board.now = 2000
    link_admin.set_time(handlers, {"unix": JAN_2027 - 29})  # the board's clock was JAN_2027 + 1
    handlers, board = board_on(mounted_again(folder), folder)
    assert handlers.app.journal._ticks is None  # nothing recorded since the mount
    with pytest.raises(LinkError) as refused:
        link_admin.set_time(handlers, {"unix": JAN_2027 - 29 - 31})
    assert str(refused.value) == (
        "time refused: %d is 31 s before the board's clock %d (at most 60 s back in a day, 30 s used); journaled"
        % (JAN_2027 - 60, JAN_2027 - 29)
    )


@pytest.mark.filterwarnings("ignore:coroutine '_reset_later' was never awaited")
def test_a_maintenance_reset_that_cannot_be_scheduled_leaves_no_marker(tmp_path):
    handlers, _ = board_with_journal(str(tmp_path))
    with pytest.raises(RuntimeError):  # no event loop runs here: the task cannot be made
        link_admin.maintenance(handlers, {})
    assert not os.path.exists(handlers.path(link_admin.MAINTENANCE_FILE))  # the next boot plays on


def test_the_first_and_last_second_of_2024_to_2100_are_taken_one_outside_refused(tmp_path):
    # docs/link.md, `time`: unix 1704067200 (2024-01-01) to 4102444800 (2100-01-01), both taken.
    handlers, board = board_with_journal(str(tmp_path))
    board.now = 1000
    assert link_admin.set_time(handlers, {"unix": 1_704_067_200})["unix"] == 1_704_067_200
    board.now = 2000
    assert link_admin.set_time(handlers, {"unix": 4_102_444_800})["unix"] == 4_102_444_800
    for unix in (1_704_067_199, 4_102_444_801):
        with pytest.raises(LinkError, match=r"^time refused: %d is outside 1704067200\.\.4102444800 " % unix):
            link_admin.set_time(handlers, {"unix": unix})


def test_the_journal_clock_a_time_is_judged_at_moves_on_by_each_ms_and_wraps_at_32_bits():
    # docs/journal.md: a record's t is the journal clock, ms in 32 bits, wrapping; a
    # backward set is counted against the day before the t the time record will get.
    import types

    from crapsboard.link import link_admin

    def clock_at(clock, ticks, now):
        return link_admin._journal_clock(types.SimpleNamespace(clock=clock, _ticks=ticks), now)

    assert clock_at(2**31 + 5, 0, 10) == 2**31 + 15  # past 31 bits
    assert clock_at(2**32 - 10, 100, 131) == 21  # across the wrap, to an odd ms
    assert clock_at(7, None, 10_000) == 7  # no tick yet since the mount: the clock as kept


def test_a_maintenance_marker_that_cannot_be_written_is_one_line_with_its_errno(tmp_path):
    # docs/link.md, `maintenance`: the marker is written before the reset is scheduled;
    # when the flash refuses it (here a folder is in its place: EISDIR, 21) the board
    # says so and plays on.
    handlers, _ = board_with_journal(str(tmp_path))
    os.mkdir(handlers.path(link_admin.MAINTENANCE_FILE))
    with pytest.raises(LinkError) as refused:
        link_admin.maintenance(handlers, {})
    assert str(refused.value) == "maintenance marker not written: OSError 21"


def test_a_backward_set_a_day_or_more_of_journal_clock_ago_no_longer_counts():
    # docs/link.md, `time`: at most 60 s back in a day of the journal clock (32-bit ms,
    # wrapping); an entry 24.9 days old (past 31 bits) is long out of the day.
    from crapsboard.journal.journal_codes import DAY_MS, within_day

    backs = [(0, 30), (2**31, 20)]
    assert within_day(backs, 2**31 + 1_000) == [(2**31, 20)]
    assert within_day([(2**32 - 500, 10)], 1_000) == [(2**32 - 500, 10)]  # across the wrap: 1.5 s old
    assert within_day([(0, 10)], DAY_MS - 1) == [(0, 10)] and within_day([(0, 10)], DAY_MS) == []


def test_a_journal_reset_that_cannot_start_the_new_journal_stops_appends_until_one_that_can(tmp_path, monkeypatch):
    # docs/link.md, `journal_reset`: the downloaded journal is marked, then a new one is
    # started. When that fails (here the flash is full), the mark is taken away again (the
    # journal in force will grow, so it is no proof of a download), the board stops taking
    # events (the journal fault) and the host is told, until a reset that works.
    import binascii
    import types

    from host_tools import keys

    handlers, _ = board_with_journal(str(tmp_path))
    handlers.link = types.SimpleNamespace(key=KEY)
    journal = handlers.app.journal
    head = binascii.hexlify(journal.hash).decode()
    receipt = keys.receipt_tag(keys.role_key(KEY, "receipt"), "b", journal.journal_id, journal.seq, head)
    full = OSError(28)

    def no_room(*args):
        raise full

    monkeypatch.setattr(journal, "start_new", no_room)
    request = {"journal": journal.journal_id, "seq": journal.seq, "head": head, "receipt": receipt}
    with pytest.raises(LinkError) as refused:
        link_admin.journal_reset(handlers, request)
    assert str(refused.value) == "journal not started: 28"
    assert not os.path.exists(journal.dir + "/" + link_admin.DOWNLOADED)
    assert handlers.app.journal_error is full

    monkeypatch.undo()  # room again: the same request starts journal 2, which takes events
    assert link_admin.journal_reset(handlers, request)["journal"]["id"] == journal.journal_id == 2
    assert handlers.app.journal_error is None


def test_the_mount_replays_each_time_record_as_the_live_link_judged_it(tmp_path):
    """docs/link.md, `time`: the wall clock and the day's backward sets a mount finds
    are what the running link kept, set after set: a set to exactly the board's clock
    (0 s back, no entry), a set 1,999 ms after the last (the board's clock 1 s on, not
    2), a refused set (journaled, not a clock), a set a day of journal clock after a
    backward one (which then counts no more), and one after the 32-bit journal clock
    ran on to 1 s past that first backward set's time modulo 2**32 (48.7 days later):
    that old set is long gone, although its time is again 1 s back."""
    folder = str(tmp_path)
    handlers, board = board_with_journal(folder)
    journal = handlers.app.journal

    def set_at(now, unix, refused=False):
        board.now = now
        if refused:
            with pytest.raises(LinkError):
                link_admin.set_time(handlers, {"unix": unix})
        else:
            link_admin.set_time(handlers, {"unix": unix})
        again = mounted_again(folder)
        assert (journal.wall, journal.backs) == (again.wall, again.backs), (now, unix)

    set_at(1_000, JAN_2027)
    set_at(3_000, JAN_2027 + 2)  # the board's clock: not back
    set_at(4_999, JAN_2027 + 3 - 30)  # 30 s back
    assert journal.backs == [(4_999, 30)]
    set_at(6_000, 5, refused=True)  # out of range
    assert journal.wall == (JAN_2027 - 27, 4_999)
    set_at(90_006_000, JAN_2027 - 27 + 90_001 - 10)  # 10 s back, a day and more later
    assert journal.backs == [(90_006_000, 10)]
    journal.clock = 4_999  # the journal clock 2**32 - 90,001,001 ms on since
    known = JAN_2027 - 27 + 90_001 - 10 + (2**32 - 90_000_001) // 1000
    set_at(90_007_000, known - 5)  # its record's t is 5,999
    assert journal.backs == [(5_999, 5)] and journal.wall == (known - 5, 5_999)
