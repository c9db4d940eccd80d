"""What is a HOLD and how long "verified — pay" shows (docs/rules.md, "The
floor: alerts"; docs/lamps.md, "Verified — pay"; docs/link.md, `verified`),
on the engine and crapsboard/table/hold_state.py directly, under CPython: the
roll that makes the shooter's 6th Fire Bet point or pays the MEA's top award
(the meter) raises a HOLD for that wager and no other roll does; a clearance
shows until the next roll, undo or hand end, and a restore from the journal
brings back what it found."""

from crapsboard.rules import hold
from crapsboard.rules import paytable as pt
from crapsboard.rules.engine import Table
from crapsboard.table.hold_state import HoldState

# The shooter makes 4, 5, 6, 8, 9 and 10 (pairs of dice): the 6th point is the 12th roll.
TO_SIXTH_POINT = [(2, 2), (3, 1), (2, 3), (4, 1), (3, 3), (5, 1), (4, 4), (6, 2), (5, 4), (6, 3), (5, 5), (6, 4)]
# Every total from 2 to 12 but 7: the MEA Progressive's ten numbers, its top award on the 10th roll.
MEA_TOP = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6)]
POINTS = (4, 5, 6, 8, 9, 10)


def play(rolls, state=None, journal_id=7):
    """Each roll's raised wagers (bit w), the HoldState keeping them as the app does."""
    table = Table()
    state = state or HoldState()
    raised = []
    for seq, (d1, d2) in enumerate(rolls, 2):
        before = table.fire_points
        table.roll(d1, d2)
        state.rolled(table, before, journal_id, seq)
        raised.append(state.wagers)
    return table, state, raised


def test_the_sixth_fire_bet_point_raises_the_fire_bets_hold_and_no_earlier_roll_does():
    table, state, raised = play(TO_SIXTH_POINT)
    assert raised == [0] * 11 + [1 << pt.FIRE]
    assert (state.journal, state.seq) == (7, 13)
    assert bin(state.marks[pt.FIRE]).count("1") == len(POINTS)


def test_a_roll_after_the_sixth_point_raises_no_second_hold():
    table, state, raised = play(TO_SIXTH_POINT + [(2, 2), (1, 3)])
    assert raised[-3:] == [1 << pt.FIRE, 0, 0]


def test_the_meas_top_award_is_a_hold_marked_with_its_ten_numbers():
    table, state, raised = play(MEA_TOP)
    assert raised[:9] == [0] * 9
    assert raised[9] == 1 << pt.MEA_PROGRESSIVE
    assert bin(state.marks[pt.MEA_PROGRESSIVE]).count("1") == 10


def test_hold_raised_without_marks_gives_the_same_wagers():
    table = Table()
    for d1, d2 in TO_SIXTH_POINT[:-1]:
        table.roll(d1, d2)
    before = table.fire_points
    table.roll(*TO_SIXTH_POINT[-1])
    assert hold.raised(table, before) == 1 << pt.FIRE
    assert hold.raised(table, table.fire_points) == 0  # six points before: nothing new


def test_a_hold_shows_nothing_until_it_is_verified_then_shows_its_wagers():
    table, state, raised = play(TO_SIXTH_POINT)
    assert state.showing() == 0
    state.verified = True
    assert state.showing() == 1 << pt.FIRE


def test_the_next_roll_undo_or_hand_end_ends_verified_pay():
    for move in ("roll", "undo", "end_hand"):
        table, state, raised = play(TO_SIXTH_POINT)
        state.verified = True
        if move == "roll":
            before = table.fire_points
            table.roll(2, 2)
            state.rolled(table, before, 7, 14)
        else:
            state.moved(7, 14)
        assert state.showing() == 0, move
        assert (state.journal, state.seq, state.wagers, state.verified) == (7, 14, 0, False), move


class Restored:
    def __init__(self, journal_id, found):
        self.journal_id = journal_id
        self.hold = found


def test_a_restore_brings_back_the_hold_and_its_clearance_from_the_journal():
    marks = [0] * pt.WAGER_COUNT
    marks[pt.FIRE] = 0b111111
    state = HoldState()
    state.restore(Restored(3, (13, 1 << pt.FIRE, marks, True)))
    assert (state.journal, state.seq, state.wagers, state.marks, state.verified) == (3, 13, 1, marks, True)
    assert state.showing() == 1 << pt.FIRE


def test_a_restore_that_found_no_table_event_shows_nothing_for_that_journal():
    table, state, raised = play(TO_SIXTH_POINT)
    state.verified = True
    state.restore(Restored(4, None))
    assert (state.journal, state.seq, state.wagers, state.verified) == (4, 0, 0, False)
    assert state.showing() == 0


def test_a_new_state_is_no_journal_no_event_nothing_shown():
    state = HoldState()
    assert (state.journal, state.seq, state.wagers, state.verified) == (0, 0, 0, False)
    assert state.marks == [0] * pt.WAGER_COUNT
    assert state.showing() == 0
