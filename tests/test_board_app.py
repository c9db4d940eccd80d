"""App on a simulated board, stepped by hand: the event ring and its hook."""

import os

import pytest
from conftest import ROOT

from crapsboard.table import entry as en
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_BIT, KEYSWITCH_NC_BIT, App
from sim.portable.simboard import SimBoard

LAYOUT = lay.load(os.path.join(ROOT, "hardware", "board.json"))
IDLE = KEYSWITCH_NC_BIT  # the keyswitch off: its NC contact closed (neither closed is a fault)


class Clock:
    def __init__(self, app, board):
        self.app, self.board, self.t = app, board, 0
        self.idle = IDLE  # what is held between presses (the keyswitch's contacts)

    def run(self, ms):
        for _ in range(ms // 10):
            self.t += 10
            self.board.now = self.t
            self.app.step(self.t)

    def press(self, *labels):
        self.board.down = self.idle | sum(1 << LAYOUT.key_index(label) for label in labels)
        self.run(100)
        self.board.down = self.idle
        self.run(100)

    def keyswitch(self, on):
        self.idle = KEYSWITCH_BIT if on else IDLE
        self.board.down = self.idle
        self.run(100)

    def six_fire_points(self):
        """Roll each Fire Bet point (4, 5, 6, 8, 9, 10) and make it: the sixth made
        raises the Fire Bet's HOLD (rules/hold.py)."""
        for d1, d2 in ((2, 2), (3, 2), (3, 3), (4, 4), (5, 4), (5, 5)):
            for _ in range(2):  # the point set, then made
                self.press(str(d1))
                self.press(str(d2))


def make():
    board = SimBoard(LAYOUT)
    board.down = IDLE
    app = App(board, LAYOUT)
    return app, Clock(app, board)


def errors(app, since=0):
    """The errors the app logged after event `since`, oldest first."""
    return [app.event(s)[1] for s in range(since + 1, app.seq + 1) if app.event(s)[0] == en.ACT_ERROR]


def make_with_journal(folder, **settings):
    """make(), the app keeping a fresh journal in `folder` (Journal's `settings`)."""
    from crapsboard.journal import journal as jn
    from crapsboard.rules.engine import Table

    journal = jn.Journal(str(folder), b"BOARD1", key=b"k" * 32, **settings)
    journal.mount(Table())
    journal.start_new(Table(), 0, 1, 0)
    app, clock = make()
    app.journal = journal
    return app, clock, journal


def test_events_go_to_the_ring_and_the_hook_with_the_table_after_the_event():
    app, clock = make()
    seen = []
    app.on_event = lambda a, kind, arg, t: seen.append((kind, arg, a.table.rolls, a.table.res_count))
    clock.press("3")
    assert app.seq == 0 and seen == []  # half a roll is no event
    clock.press("4")
    clock.press("9")
    assert seen == [(en.ACT_ROLL, 3 * 8 + 4, 1, 5), (en.ACT_ERROR, en.ERR_NOT_A_DIE, 1, 5)]
    kind, arg, t = app.event(1)
    assert (kind, arg) == (en.ACT_ROLL, 28) and 100 < t < 400
    assert app.event(2)[:2] == (en.ACT_ERROR, en.ERR_NOT_A_DIE)
    assert app.event(0) is None and app.event(3) is None


def test_the_ring_keeps_the_last_32_events():
    app, clock = make()
    for _ in range(32 + 3):  # docs/board.md: App keeps the last 32
        clock.press("8")  # refused each time
    assert app.seq == 35
    assert app.event(3) is None and app.event(4) == (en.ACT_ERROR, en.ERR_NOT_A_DIE, app.event(4)[2])
    assert app.event(app.seq)[2] > app.event(4)[2]


def test_two_keys_at_once_on_the_matrix():
    app, clock = make()
    clock.press("3", "4")
    assert app.seq == 1 and app.event(1)[:2] == (en.ACT_ERROR, en.ERR_TWO_KEYS)
    assert app.table.rolls == 0


def test_a_single_contact_keyswitch_open_is_the_key_off_not_a_fault():
    # docs/board.md: only a changeover keyswitch (an NC contact, layout's nc_pin) can
    # show the fault "neither contact closed"; a single contact open is simply off
    import json

    from sim import devlayout

    data = json.loads(devlayout.compact_text(open(os.path.join(ROOT, "hardware", "board.json")).read()))
    data["buttons"]["supervisor_key"] = {"pin": 27, "active": "low", "pull": "up"}
    layout = lay.Layout(data)
    board = SimBoard(layout)
    board.down = 0  # nothing held: the key off, its one contact open
    app = App(board, layout)
    for t in range(10, 3000, 10):
        board.now = t
        app.step(t)
    assert not app.keyswitch_fault and not app.entry.key_on
    changeover = App(SimBoard(LAYOUT), LAYOUT)  # the shipped changeover with neither contact closed
    for t in range(10, 3000, 10):
        changeover.board.now = t
        changeover.step(t)
    assert changeover.keyswitch_fault


def test_neither_keyswitch_contact_is_judged_a_fault_one_debounce_window_after_the_first_scan():
    # docs/board.md: at power-up the contacts are judged as they stand one debounce
    # window (keypad.debounce_ms, 30 ms) after the first scan: here at 10 + 30 ms.
    assert LAYOUT.debounce_ms == 30
    board = SimBoard(LAYOUT)
    board.down = 0  # X3 unplugged: neither contact closed
    app = App(board, LAYOUT)
    faults = []
    for t in (10, 20, 30, 40):
        board.now = t
        app.step(t)
        faults.append(app.keyswitch_fault)
    assert faults == [False, False, False, True]


def test_a_key_accepted_before_the_keyswitch_contact_is_no_keyswitch_fault():
    # docs/board.md: at power-up the keyswitch is judged once its contacts are accepted.
    # Here the keypad's first key is held from the first scan and the NC contact closes
    # one debounce window (30 ms) later: the key is accepted alone, and that is no reason
    # to judge the keyswitch while its contact is still being debounced (neither closed
    # would be a fault).
    first_key = next(label for row in LAYOUT.labels for label in row if LAYOUT.key_index(label) == 0)
    board = SimBoard(LAYOUT)
    board.down = 1 << LAYOUT.key_index(first_key)
    app = App(board, LAYOUT)
    for t in range(10, 500, 10):
        board.now = t
        if t == 10 + LAYOUT.debounce_ms:
            board.down |= KEYSWITCH_NC_BIT
        app.step(t)
    assert en.ERR_KEYSWITCH_FAULT not in errors(app) and not app.keyswitch_fault


def test_a_progressive_count_the_journal_cannot_take_is_no_event(tmp_path):
    # docs/progressive.md: a count is journalled (kind 23) before it shows; a stopped
    # journal takes none, so the count is not taken and no prog_wager event is logged
    from crapsboard.journal import journal as jn
    from crapsboard.rules.engine import Table
    from crapsboard.table import progressive as pg

    app, clock = make()
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    journal.mount(Table())
    journal.start_new(app.table, 0, 1, 0)
    app.journal = journal
    seen = []
    app.on_event = lambda a, kind, arg, t: seen.append((kind, arg))
    app.progressive.told(pg.MEA, pg.S_OPEN, 100000, 0)
    clock.press("#")
    clock.press("1")
    clock.press("5")
    clock.press("#")
    assert seen == [(en.ACT_PROG_WAGER, pg.MEA << 8 | 5)] and app.progressive.count[pg.MEA] == 5
    seen.clear()
    app.journal_error = OSError(28, "no space")
    app.progressive.told(pg.MEA, pg.S_OPEN, 100000, clock.t)
    for label in ("#", "1", "3", "#"):
        clock.press(label)
    assert [kind for kind, _ in seen if kind == en.ACT_PROG_WAGER] == []
    assert app.progressive.count[pg.MEA] == 5


class _Flag:
    def __init__(self):
        self.level = 1  # the eFuse's open-drain FAULT, pulled up: high while the feed is on

    def value(self):
        return self.level


def test_a_feed_fault_flag_shows_after_the_keys_debounce_of_30_ms_and_not_before():
    # docs/lamps.md: a feed's FAULT flag counts once it has held as long as a key's
    # debounce (30 ms, the layout's debounce_ms), so a glitch shows nothing
    board = SimBoard(LAYOUT)
    board.down = IDLE
    board.feed_faults = [_Flag(), _Flag(), _Flag()]
    app = App(board, LAYOUT)
    clock = Clock(app, board)
    clock.run(200)
    board.feed_faults[1].level = 0  # F2 latched off from here
    seen = []
    for _ in range(6):
        clock.run(10)
        seen.append((clock.t, app.lamps.feed_fault))
    first = seen[0][0]  # the first look at the flag low
    assert [f for t, f in seen if t < first + 30] == [0, 0, 0]
    assert [f for t, f in seen if t >= first + 30] == [2, 2, 2]
    board.feed_faults[1].level = 1
    clock.run(20)
    assert app.lamps.feed_fault == 2  # back on for 20 ms: not yet
    clock.run(20)
    assert app.lamps.feed_fault == 0


def test_an_undo_names_the_seq_of_the_table_event_it_took_back():
    # docs/link.md, the undo event's `undid`: the event taken back, by its seq; events
    # that are no table event (an error, the keyswitch) are skipped over.
    app, clock = make()
    clock.press("2")
    clock.press("3")  # seq 1: a roll
    clock.press("9")  # seq 2: not a die
    clock.press("4")
    clock.press("4")  # seq 3: a roll
    clock.keyswitch(True)  # seq 4: a supervisor
    assert [app.event(s)[0] for s in (1, 2, 3, 4)] == [en.ACT_ROLL, en.ACT_ERROR, en.ACT_ROLL, en.ACT_AUTH_ON]
    clock.press("A")  # seq 5
    assert app.event(5)[0] == en.ACT_UNDO and app.undone_seq == 3
    clock.press("A")  # seq 6
    assert app.event(6)[0] == en.ACT_UNDO and app.undone_seq == 1
    clock.press("5")
    clock.press("5")  # seq 7: a roll again
    clock.press("A")
    assert app.undone_seq == 7


def test_an_end_hand_is_a_table_event_an_undo_names_and_its_win_is_celebrated():
    # docs/lamps.md, "A win": an END HAND that pays the Fire Bet (4 points made, seed
    # 001) flashes its lamps as a roll's win does; an undo then names the END HAND.
    from crapsboard.table.lamps import BLINK_FAST

    app, clock = make()
    for d1, d2 in ((2, 2), (3, 2), (3, 3), (4, 4)):
        for _ in range(2):  # the point set, then made
            clock.press(str(d1))
            clock.press(str(d2))
    clock.keyswitch(True)
    app.render(clock.t)
    assert BLINK_FAST not in app.lamps.blink  # the point made last celebrated no win
    clock.press("B")
    assert app.event(app.seq)[0] == en.ACT_END_HAND
    end_hand = app.seq
    app.render(clock.t)
    assert BLINK_FAST in app.lamps.blink
    clock.press("A")
    assert app.event(app.seq)[0] == en.ACT_UNDO and app.undone_seq == end_hand


def test_the_restored_mark_is_cleared_when_a_supervisor_comes_on():
    # docs/board.md: "restored" shows until a supervisor acknowledges, by turning the
    # key on (or the PIN); turning it off again is not what clears it.
    app, clock = make()
    app.restored = True
    clock.keyswitch(True)
    assert not app.restored


def test_with_the_journal_stopped_no_table_key_is_taken_not_even_a_refused_undo(tmp_path):
    # docs/board.md: a write the journal cannot make stops it (a journal fault) and no table event is taken after
    # it, so an undo with nothing to take back is no `nothing_to_undo` event either.
    app, clock, _ = make_with_journal(tmp_path)
    app.journal_error = OSError(28, "No space left on device")  # as _append records a failed write
    clock.keyswitch(True)
    after = app.seq
    clock.press("A")  # undo, with nothing to undo
    clock.press("B")  # end hand
    clock.press("2")
    clock.press("3")  # a roll
    assert app.seq == after and app.table.rolls == 0


def test_an_undo_stops_the_celebration_of_the_win_it_took_back():
    # docs/lamps.md, "A win": a win's lamps flash fast for 4 s, and undo ends it at once.
    from crapsboard.table.lamps import BLINK_FAST

    app, clock = make()

    def flashing():
        app.render(clock.t)  # the lamp frame the app's render task would draw now
        return BLINK_FAST in app.lamps.blink

    clock.keyswitch(True)
    for d1, d2 in ((1, 1), (1, 2), (2, 2), (2, 3)):
        clock.press(str(d1))
        clock.press(str(d2))
    assert not flashing()
    clock.press("3")
    clock.press("3")  # the 6: All Small wins
    assert flashing()
    clock.press("A")  # well within the 4 s
    assert not flashing()


def test_a_progressive_count_is_an_event_naming_its_game_and_count():
    # docs/keys.md: `# GAME COUNT #` (1 MEA Progressive, 2 Fired Up); the app's event carries
    # game << 8 | count, as table/events.py reads it, so each game's count stays its own.
    from crapsboard.table import progressive as pg

    app, clock = make()
    for game in (pg.MEA, pg.FUP):
        app.progressive.told(game, pg.S_OPEN, 100_000, clock.t)
    for label in "#27#":
        clock.press(label)
    for label in "#112#":
        clock.press(label)
    assert [app.event(s)[:2] for s in (1, 2)] == [(en.ACT_PROG_WAGER, 1 << 8 | 7), (en.ACT_PROG_WAGER, 12)]
    assert app.progressive.count == [12, 7]


def test_a_roll_with_progressive_wagers_in_action_is_one_event():
    # The roll is logged before its hits (app.py _apply): with wagers in action and
    # no hit, the roll is one ROLL event, as without them.
    from crapsboard.table import progressive as pg

    app, clock = make()
    app.progressive.told(pg.FUP, pg.S_OPEN, 100_000, clock.t)
    for label in "#25#":
        clock.press(label)
    clock.press("3")
    clock.press("4")  # a 7 on the come-out: no hit, no loss
    assert [app.event(s)[:2] for s in range(1, app.seq + 1)] == [
        (en.ACT_PROG_WAGER, 1 << 8 | 5),
        (en.ACT_ROLL, 3 * 8 + 4),
    ]


def test_a_progressive_count_that_would_take_a_games_total_past_99_is_refused_and_shown():
    # docs/progressive.md: 1-99 wagers a game; a count that would pass 99 in all is the
    # `prog_count` error on the lamps, and the 60 in action stay as they were.
    from crapsboard.table import progressive as pg

    app, clock = make()
    app.progressive.told(pg.MEA, pg.S_OPEN, 100_000, clock.t)
    for label in "#160#":
        clock.press(label)
    assert app.entry.error == 0 and app.progressive.count[pg.MEA] == 60
    for label in "#140#":
        clock.press(label)
    assert app.entry.error == en.ERR_PROG_COUNT
    assert app.progressive.count[pg.MEA] == 60
    assert [app.event(s)[:2] for s in (1, 2)] == [
        (en.ACT_PROG_WAGER, pg.MEA << 8 | 60),
        (en.ACT_ERROR, en.ERR_PROG_COUNT),
    ]
    assert app.event(3) is None


def test_a_restored_table_says_so_until_a_supervisor_has_seen_it():
    # docs/board.md: after a restart the status lamp shows "restored" while the table is
    # ready, until a supervisor turns the key; a half-entered roll shows as such meanwhile.
    app, clock = make()
    app.restored = True  # as power-up sets it after a journal restore
    assert app.status(clock.t) == en.ST_RESTORED
    clock.board.down = IDLE | 1 << LAYOUT.key_index("3")
    clock.run(100)
    assert app.status(clock.t) == en.ST_HALF
    clock.board.down = IDLE
    clock.run(100)
    clock.press("*")  # the half roll dropped: ready, and still restored
    assert app.status(clock.t) == en.ST_RESTORED
    clock.keyswitch(True)
    clock.keyswitch(False)
    assert app.status(clock.t) == en.ST_READY


@pytest.mark.parametrize("keys", [("A",), ("B",), ("3", "4")], ids=["undo", "end-hand", "seven-out-roll"])
def test_an_event_the_journal_cannot_record_is_not_shown_nor_logged(tmp_path, keys):
    # docs/board.md: an event is shown only once durable; an UNDO, END HAND or roll whose
    # record the flash cannot take stops the journal, leaves the hand as it was (a roll
    # is taken back from the table, an undo's table put back) and logs no event.
    from crapsboard.journal import journal_record as jr

    app, clock, journal = make_with_journal(tmp_path)
    clock.press("2")
    clock.press("2")  # a point of 4
    clock.keyswitch(True)
    seq = app.seq
    os.symlink("/dev/full", os.path.join(journal.dir, jr.slot_name(journal.staged)))  # the next write fails
    for key in keys:
        clock.press(key)
    assert app.journal_error is not None
    assert app.table.rolls == 1 and app.table.point == 4 and app.table.shooter == 1
    assert app.seq == seq  # no event


def test_of_the_dealers_errors_only_a_wrong_pin_is_journaled(tmp_path):
    # docs/journal.md: a wrong PIN is recorded so that the lockout survives a restart; the
    # other errors (here a key that is no die) are shown and logged, never journaled.
    app, clock, journal = make_with_journal(tmp_path)
    seq = journal.seq
    clock.press("9")
    assert app.event(app.seq)[:2] == (en.ACT_ERROR, en.ERR_NOT_A_DIE)
    assert journal.seq == seq


def test_the_journal_is_kept_within_its_segments_while_the_table_plays(tmp_path):
    # docs/journal.md: after an event is shown the journal's slow part runs: staged records
    # go into segments, a full segment is rotated, and beyond max_segments the oldest is
    # dropped. Small settings here, so a few dozen rolls cross each step.
    app, clock, journal = make_with_journal(tmp_path, batch=2, segment_bytes=512, max_segments=2)
    for _ in range(40):
        for die in "23":  # a 5, then (as the point) made again and again
            clock.press(die)
            app.render(clock.t)  # the frame shown: the slow part may run at the next scan
            clock.run(20)
    assert app.seq == 40 and app.journal_error is None
    segments = journal.segments()
    assert len(segments) <= 2 and segments[0][0] > 1  # the oldest dropped
    assert all(size < 512 + 2 * 200 for _, _, size in segments)  # each rotated once full


def test_keys_and_buttons_held_at_power_up_count_only_once_released_and_pressed_again():
    """docs/board.md, the power-up gesture: app.ignore_held_keys takes what is held
    then (a key of the matrix, END HAND) as no press until released."""
    from crapsboard.table import keypad
    from crapsboard.table.layout_names import BUTTONS

    app, clock = make()
    end_hand = 1 << (keypad.BUTTON_SHIFT + BUTTONS.index("end_hand"))
    nine = 1 << LAYOUT.key_index("9")
    clock.board.down = IDLE | nine | end_hand
    app.ignore_held_keys()
    clock.run(300)
    assert app.seq == 0  # neither counted while held
    clock.board.down = IDLE
    clock.run(100)
    clock.press("9")
    assert app.seq == 1 and app.event(1)[:2] == (en.ACT_ERROR, en.ERR_NOT_A_DIE)


def test_only_the_keys_held_at_power_up_are_ignored():
    # app.ignore_held_keys holds what reads down then, and nothing else: a key
    # pressed in the very next scan, as the held one is let go, counts at once.
    app, clock = make()
    clock.board.down = IDLE | 1 << LAYOUT.key_index("9")
    app.ignore_held_keys()
    clock.board.down = IDLE | 1 << LAYOUT.key_index("3")
    clock.run(100)
    clock.board.down = IDLE
    clock.run(100)
    clock.press("4")
    assert app.seq == 1 and app.event(1)[:2] == (en.ACT_ROLL, 3 * 8 + 4)


def test_a_journal_the_app_holds_as_stopped_takes_no_record_even_when_it_could(tmp_path):
    """docs/link.md, `journal_reset`: a reset the board could not start leaves the
    journal in force and the app's journal stopped (journal_error); nothing is
    appended after it, the keyswitch's turn included, until a new journal starts."""
    app, clock, journal = make_with_journal(tmp_path)
    clock.press("3")
    clock.press("3")
    seq = journal.seq
    app.journal_error = OSError(28)  # as link_admin.journal_reset leaves it
    clock.keyswitch(True)
    clock.keyswitch(False)
    assert journal.seq == seq and app.status(clock.t) == en.ST_JOURNAL_FAULT


def test_a_feed_flag_latched_at_power_up_is_taken_only_once_it_has_read_the_same_for_the_debounce():
    # docs/lamps.md: a flag that reads low for keypad.debounce_ms (30 ms) is a fault, from
    # the first scan as at any other: low from power-up, it is not shown at the first
    # scan, and is shown 30 ms later.
    class Flag:
        def __init__(self, level):
            self.level = level

        def value(self):
            return self.level

    board = SimBoard(LAYOUT)
    board.down = KEYSWITCH_NC_BIT
    board.feed_faults = [Flag(0), Flag(1), Flag(1)]  # feed 1's eFuse latched off from the start
    app = App(board, LAYOUT)
    assert app.debouncer.debounce_ms == 30
    app.step(5000)
    assert app.lamps.feed_fault == 0
    app.step(5020)
    assert app.lamps.feed_fault == 0
    app.step(5030)
    assert app.lamps.feed_fault == 0b001


def _roll(clock, *dice):
    for d1, d2 in dice:
        clock.press(str(d1))
        clock.press(str(d2))


MEA_TEN = ((1, 1), (3, 3), (1, 2), (2, 2), (2, 3), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6))  # 2 6 3 4 5 8 9 10 11 12


def _mea_hit_after(clock, app, rolls_before):
    """`rolls_before` rolls of 2 and a 7, then 4 Make 'Em All wagers keyed and the ten
    numbers: the last roll hits."""
    from crapsboard.table import progressive as pg

    _roll(clock, *([(1, 1)] * rolls_before), (3, 4))
    app.progressive.told(pg.MEA, pg.S_OPEN, 100_000, clock.t)
    for label in "#14#":
        clock.press(label)
    _roll(clock, *MEA_TEN)


def test_a_hit_is_voided_by_the_undo_of_its_roll_however_many_rolls_came_before_it():
    # docs/progressive.md, Undo: an undo that takes back a roll with prog_hit records after it
    # voids each hit. Here 70 rolls before the hit (past the app's ring of 64 table events),
    # one roll after it, and a board without a journal: undo, undo voids the hit.
    app, clock = make()
    seen = []
    app.on_event = lambda a, kind, arg, t: seen.append(kind)
    _mea_hit_after(clock, app, 70)
    assert seen.count(en.ACT_PROG_HIT) == 1
    _roll(clock, (1, 2))
    clock.keyswitch(True)
    clock.press("A")
    assert seen.count(en.ACT_PROG_VOID) == 0  # the roll after the hit: nothing to void
    clock.press("A")
    assert seen.count(en.ACT_PROG_VOID) == 1


def test_a_hit_voided_once_is_not_voided_again_by_the_undo_of_the_roll_in_its_place():
    # docs/progressive.md, Undo: the undo of the hit's roll voids it; the roll keyed
    # in its place (no hit) and undone in turn voids nothing more.
    app, clock = make()
    seen = []
    app.on_event = lambda a, kind, arg, t: seen.append(kind)
    _mea_hit_after(clock, app, 0)
    clock.keyswitch(True)
    clock.press("A")
    assert seen.count(en.ACT_PROG_VOID) == 1
    _roll(clock, (1, 2))
    clock.press("A")
    assert seen.count(en.ACT_PROG_VOID) == 1 and seen[-1] == en.ACT_UNDO


def test_the_app_keeps_a_hit_only_while_an_undo_could_reach_its_roll():
    # The board's heap holds a hit for the undo of its roll while that roll is among the
    # last 63 table events (the app's ring of 64, far past the undo's reach), then drops
    # it, so a long shift of hits never grows the heap.
    app, clock = make()
    _mea_hit_after(clock, app, 0)
    assert len(app._hits) == 1
    _roll(clock, *([(1, 1)] * 62))
    assert len(app._hits) == 1
    _roll(clock, (1, 1))
    assert app._hits == []
    # Two hits 11 table events apart: the first goes at its turn, though the second stays.
    _mea_hit_after(clock, app, 0)
    _mea_hit_after(clock, app, 0)
    assert len(app._hits) == 2
    _roll(clock, *([(1, 1)] * 52))
    assert len(app._hits) == 1


def test_a_configuration_the_journal_cannot_record_is_not_applied(tmp_path):
    # docs/link.md, config_set: applied only once its CONFIG record is durable; a journal
    # that cannot take it stops, and the table keeps the configuration it had.
    from crapsboard.journal import journal_record as jr
    from crapsboard.rules import config as cfg

    app, clock, journal = make_with_journal(tmp_path)
    old = app.table.config
    assert old.rebet_after_win
    os.symlink("/dev/full", os.path.join(journal.dir, jr.slot_name(journal.staged)))  # the next write fails
    assert app.configure(cfg.parse({"rebet_after_win": False}), clock.t) is False
    assert app.table.config is old and app.journal_error is not None


def test_the_journals_slow_part_runs_once_after_each_appended_event_and_never_idle(tmp_path):
    # app.py: maintain (block copies and erases, 45-400 ms on the chip) follows an
    # appended event, once it is on the lamps with no key down, and never an idle table.
    app, clock, journal = make_with_journal(tmp_path)
    maintained = []
    journal.maintain = lambda table, t: maintained.append(t)
    for _ in range(10):
        app.render(clock.t)
        clock.run(100)
    assert maintained == []
    clock.press("3")
    clock.press("4")
    assert maintained == []  # not shown yet
    app.render(clock.t)
    clock.run(100)
    assert len(maintained) == 1 and journal.seq >= 2
    for _ in range(5):
        app.render(clock.t)
        clock.run(100)
    assert len(maintained) == 1


def test_a_journal_that_fails_completing_a_restore_leaves_the_scan_running(tmp_path):
    # The first scan journals the voids a power cut left out (app.py
    # _complete_restored); a journal that cannot write then is stopped and shown
    # as such, and the scan task goes on (its idle collection included).
    from crapsboard.journal import journal_record as jr

    app, clock, journal = make_with_journal(tmp_path)
    app.restored = True
    journal.voids_due = [(7, 1, 3)]  # the hit at seq 7: game 1 (Fired Up), 3 wagers
    os.symlink("/dev/full", os.path.join(journal.dir, jr.slot_name(journal.staged)))
    app.step(10)
    assert app.journal_error is not None and app.status(10) == en.ST_JOURNAL_FAULT
    assert app.event(app.seq)[:2] == (en.ACT_PROG_VOID, 1 << 8 | 3)
    assert app.collect_when_idle() is False  # no frame shown since the event
    app.render(20)
    assert app.collect_when_idle() is True


def test_a_journal_whose_slow_part_fails_is_stopped_and_shown(tmp_path):
    # docs/board.md: a write the journal cannot make stops it (a journal fault); the
    # slow part's writes (a rotation's snapshot, a DROP record) are writes too.
    from crapsboard.journal.journal_codes import FULL, JournalError

    app, clock, journal = make_with_journal(tmp_path)

    def full(table, t):
        raise JournalError(FULL, "no room for the rotation's snapshot")

    journal.maintain = full
    clock.press("3")
    clock.press("4")
    app.render(clock.t)
    clock.run(100)
    assert isinstance(app.journal_error, JournalError)
    assert app.status(clock.t) == en.ST_JOURNAL_FAULT
