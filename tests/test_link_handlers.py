"""The link's handlers under CPython (crapsboard/link/link_app.py) on a board built as the
board builds it: what a request the board cannot serve answers (docs/link.md)."""

import pytest
from test_link_config_json import _board

from crapsboard.link.link import LinkError

UNIX = 1_798_761_600  # 2027-01-01, a wall clock a host sets


def test_a_subscription_on_a_board_without_a_journal_is_one_clear_error(tmp_path):
    # docs/link.md, `subscribe`: records are pushed as the journal appends them; a board
    # keeping none has nothing to push, and says so.
    handlers = _board(str(tmp_path))
    for on in (True, False):
        with pytest.raises(LinkError) as refused:
            handlers.subscribe({"on": on})
        assert str(refused.value) == "this board keeps no journal: nothing to subscribe to"


def test_the_commands_loaded_at_their_first_use_answer_as_their_modules_do(tmp_path):
    # docs/link.md: `verified`, `progressive` and `received` load their module when the
    # floor first sends one; the handler answers with that module's reply or its error.
    handlers = _board(str(tmp_path)).table()
    reply = handlers["progressive"]({"game": "MEA", "state": "open", "amount": 123456, "at": 0})
    assert reply == {"game": "MEA", "state": "open", "amount": "$1,234.56"}
    for name, request in (
        ("received", {"journal": 1, "seq": 1, "head": "00", "receipt": "00"}),
        ("verified", {"by": "sup1", "alert": "fire-6", "journal": 1, "seq": 1}),
    ):
        with pytest.raises(LinkError) as refused:
            handlers[name](request)
        assert str(refused.value) == "this board keeps no journal", name


@pytest.mark.parametrize(
    "why, taken",
    [(" ", True), ("~", True), ("lost ~ 30 s", True), ("\x1f", False), ("\x7f", False), ("caf\u00e9", False)],
)
def test_a_closed_meters_reason_is_printable_ascii_from_space_to_tilde(tmp_path, why, taken):
    # docs/link.md, `progressive`: `why` is 1 to 60 printable ASCII characters (0x20-0x7E).
    handlers = _board(str(tmp_path)).table()
    request = {"game": "FUP", "state": "closed", "amount": 7, "at": 0, "why": why}
    if taken:
        assert handlers["progressive"](request) == {"game": "FUP", "state": "closed", "amount": "$0.07"}
    else:
        with pytest.raises(LinkError) as refused:
            handlers["progressive"](request)
        assert str(refused.value) == "why must be 1 to 60 printable ASCII characters"


@pytest.mark.parametrize(
    "amount, shown",
    [(0, "$0.00"), (10**12, "$10,000,000,000.00"), (-1, None), (10**12 + 1, None)],
)
def test_a_meters_amount_is_0_to_10_to_the_12_cents(tmp_path, amount, shown):
    # docs/link.md, `progressive`: amount in cents, 0 to 1,000,000,000,000.
    handlers = _board(str(tmp_path)).table()
    request = {"game": "MEA", "state": "open", "amount": amount, "at": 0}
    if shown is not None:
        assert handlers["progressive"](request) == {"game": "MEA", "state": "open", "amount": shown}
    else:
        with pytest.raises(LinkError) as refused:
            handlers["progressive"](request)
        assert str(refused.value) == "amount must be 0 to 1000000000000 cents"


@pytest.mark.parametrize("age_s, taken", [(0, True), (6, True), (7, False)])
def test_a_meter_sent_more_than_6_s_before_the_boards_clock_is_stale(tmp_path, age_s, taken):
    # docs/progressive.md: a meter older than 6 s (3 heartbeats) by the board's wall clock
    # is refused as stale; 6 s old is still taken.
    board = _board(str(tmp_path))
    board.keep["unix"] = (UNIX, board.now())  # a host set the clock just now
    request = {"game": "MEA", "state": "open", "amount": 5, "at": UNIX - age_s}
    if taken:
        assert board.table()["progressive"](request) == {"game": "MEA", "state": "open", "amount": "$0.05"}
    else:
        with pytest.raises(LinkError) as refused:
            board.table()["progressive"](request)
        assert str(refused.value) == "stale meter: sent at %d, the board's clock is %d" % (UNIX - age_s, UNIX)


def test_a_journal_reset_on_a_board_without_a_journal_is_one_clear_error(tmp_path):
    # docs/link.md, `journal_reset`: a board that keeps no journal has none to start again.
    handlers = _board(str(tmp_path)).table()
    with pytest.raises(LinkError) as refused:
        handlers["journal_reset"]({"journal": 1, "seq": 1, "head": "00", "receipt": "00"})
    assert str(refused.value) == "this board keeps no journal"


@pytest.mark.parametrize("since_ms, seconds", [(999, 0), (1_000, 1), (1_999, 1), (60_000, 60)])
def test_the_boards_clock_counts_whole_seconds_since_a_host_set_it(tmp_path, since_ms, seconds):
    # docs/link.md, `time`: the board keeps the wall clock a host set by its own ticks.
    board = _board(str(tmp_path))
    board.keep["unix"] = (UNIX, board.now() - since_ms)
    assert board.clock() == UNIX + seconds


def test_the_journals_first_is_the_oldest_record_the_board_still_holds(tmp_path):
    # docs/link.md, `hello` and `status`: the journal's `first` is the oldest record held;
    # once the oldest segments are dropped (max_segments), it is where `events` starts.
    from test_board_app import make_with_journal
    from test_link_events_files import every_page

    from crapsboard.journal import journal_record as jr
    from crapsboard.link.link_app import Handlers

    app, _, journal = make_with_journal(tmp_path, batch=2, segment_bytes=64, max_segments=2)
    for t in range(10, 200, 10):
        journal.append(jr.END_HAND, 0, t, app.table)
        journal.maintain(app.table, t)
    segments = journal.segments()
    assert len(segments) == 2 and 1 < segments[0][0] < segments[1][0]  # the oldest dropped
    state = Handlers(app, {}, "b", lambda: None, str(tmp_path)).journal_state()
    assert state["first"] == every_page(journal, 8)[0]["seq"] == segments[0][0]
    assert state["seq"] == journal.seq


def test_a_journal_holding_no_record_gives_first_and_seq_0(tmp_path):
    # docs/link.md, `hello` and `status`: a board that found no journal (appends refused
    # until one is started) holds no record: first and seq are both 0.
    from test_board_app import make
    from test_journal_restore import opened

    from crapsboard.link.link_app import Handlers

    app, _ = make()
    app.journal = opened(tmp_path)
    state = Handlers(app, {}, "b", lambda: None, str(tmp_path)).journal_state()
    assert (state["seq"], state["first"]) == (0, 0)


def test_the_wall_clock_from_the_journal_moves_on_across_the_journal_clocks_32_bit_wrap(tmp_path):
    # docs/link.md, `time`: the board's wall clock is the last one set, moved on by the
    # journal clock since; that clock is 32 bits of ms (about 49.7 days) and wraps.
    import types

    from crapsboard.link import link_admin

    journal = types.SimpleNamespace(wall=(UNIX, 2**32 - 500), clock=1_500, _ticks=None)
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), clock=lambda: None)
    assert link_admin.board_clock(handlers, 0) == UNIX + 2  # 500 ms to the wrap, 1,500 after it
    journal.clock = 2**32 - 1  # 499 ms later, before the wrap
    assert link_admin.board_clock(handlers, 0) == UNIX
    journal.wall, journal.clock = (UNIX, 0), 2**31 + 5_000  # 24.9 days on: past 31 bits
    assert link_admin.board_clock(handlers, 0) == UNIX + 2**31 // 1000 + 5


def test_a_subscription_holds_the_link_loaded_until_it_is_ended(tmp_path):
    # docs/link.md, Memory: a link with a subscription is not forgotten in a silence
    # (it has records to push); `subscribe` off lets it go again.
    from test_board_app import make_with_journal

    from crapsboard.link import link_app

    app, _, _ = make_with_journal(tmp_path)
    link, handlers = link_app.build(app, {}, "b", lambda: None)
    assert not link.hold
    assert handlers.subscribe({"on": True}) == {"on": True} and link.hold
    assert handlers.subscribe({"on": False}) == {"on": False} and not link.hold


def test_the_link_built_at_a_hosts_first_byte_keeps_the_clock_the_last_one_was_set_to(tmp_path, monkeypatch):
    # docs/link.md, Memory: the link is forgotten in a silence, the wall clock a host set is
    # not: the link link_wait builds next (link_app.board_link) takes it from the task.
    import json
    import types

    from crapsboard.link import link_app

    monkeypatch.chdir(tmp_path)  # the board's files (link_key, its counter): none here
    app = _board(str(tmp_path)).app
    app.board.now = 5_000
    task = types.SimpleNamespace(keep={"unix": (UNIX, 2_000)})  # set 3 s ago
    link = link_app.board_link(app, {}, b"\x24\x0a\xc4\x00\x00\x01", lambda: None, task)
    hello = json.loads(bytes(link.feed(b'{"id": 1, "cmd": "hello"}\n')))
    assert hello["ok"] is True and hello["unix"] == UNIX + 3
