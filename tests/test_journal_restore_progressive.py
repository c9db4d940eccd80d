"""docs/journal.md, Restoring, step 7, and docs/progressive.md, "A power
cut": the restore reports the games of the prog_hit records after the last
table event (`hits_after`) and, when that event is an undo, the hits of the
roll it took back that no prog_void after it names (`voids_due`: seq, game,
count each), counting back over rolls and hand ends as far as an undo
reaches (the engine holds 16 to 32 events, docs/rules.md, Corrections).
Hand-made journals on a real directory under CPython, remounted at each
step (the mutants of the restore code); the records' kinds
and payloads are spelled as docs/progressive.md's Messages table gives them."""

import pytest
from test_journal_restore import opened, started
from test_journal_staging import sizes

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules import paytable as pt
from crapsboard.rules.engine import Table

PROG_WAGER, PROG_HIT, PROG_VOID = 23, 24, 25  # docs/progressive.md, Messages
MEA, FUP = 0, 1  # the games as the board numbers them (table/progressive.py: GAMES)
GAME_NAMES = (b"MEA", b"FUP")  # as the payloads spell them
UNDO_REACH = 32  # the most events the engine holds for undo (docs/rules.md: "16 to 32")


class Play:
    """A journal written as the board writes it (unless a test says
    otherwise): each table event with the table after it, each progressive
    record after its event."""

    def __init__(self, directory):
        self.directory = directory
        self.table = Table()
        self.journal = started(directory)  # record 1
        self.t = 0

    def record(self, kind, arg, payload=b""):
        self.t += 10
        self.journal.append(kind, arg, self.t, self.table, payload)
        return self.journal.seq

    def roll(self, die1=2, die2=3):
        self.table.roll(die1, die2)
        return self.record(jr.ROLL, die1 * 8 + die2)

    def end_hand(self):
        self.table.end_hand()
        return self.record(jr.END_HAND, 0)

    def undo(self):
        """An undo record; whether the engine could take an event back
        (False: a record the board never writes, the table unchanged)."""
        taken = self.table.undo()
        self.record(jr.UNDO, 0)
        return taken

    def hit(self, game, wagers):
        return self.record(PROG_HIT, wagers, b'{"game": "' + GAME_NAMES[game] + b'"}')

    def void(self, game, hit_seq, wagers):
        return self.record(PROG_VOID, wagers, b'{"game": "%s", "hit": %d}' % (GAME_NAMES[game], hit_seq))

    def restored(self):
        """(hits_after, voids_due) after a power cycle."""
        journal = opened(self.directory)
        return journal.hits_after, journal.voids_due


def test_a_journal_without_a_table_event_has_no_hit_after_it_and_no_void_due(tmp_path):
    assert Play(tmp_path).restored() == ([], [])


def test_the_hits_after_the_last_roll_are_its_prog_hit_records_whatever_follows_them(tmp_path):
    play = Play(tmp_path)
    play.roll()
    assert play.restored() == ([], [])
    play.hit(MEA, 4)
    assert play.restored() == ([MEA], [])
    play.hit(FUP, 7)  # a roll hitting both: MEA's first
    play.record(jr.RESTART, 1)
    play.record(jr.SNAPSHOT, 0)
    assert play.restored() == ([MEA, FUP], [])
    play.roll(4, 4)  # the hits are the last roll's no more
    assert play.restored() == ([], [])
    play.end_hand()
    play.hit(FUP, 3)
    assert play.restored() == ([FUP], [])


def test_an_undo_of_a_roll_that_hit_leaves_each_hit_due_until_a_prog_void_names_it(tmp_path):
    """Seqs of two digits: the void names its hit by the whole number."""
    play = Play(tmp_path)
    for _ in range(8):
        play.roll(5, 5)  # records 2..9
    assert play.roll(6, 6) == 10
    mea_hit, fup_hit = play.hit(MEA, 4), play.hit(FUP, 7)
    assert (mea_hit, fup_hit) == (11, 12)
    assert play.undo()
    assert play.restored() == ([], [(11, MEA, 4), (12, FUP, 7)])
    play.void(MEA, 21, 4)  # names no hit the undo took back: changes nothing
    play.void(FUP, 1, 7)
    play.void(FUP, 2, 7)
    assert play.restored() == ([], [(11, MEA, 4), (12, FUP, 7)])
    play.void(MEA, 11, 4)
    assert play.restored() == ([], [(12, FUP, 7)])
    play.record(jr.RESTART, 1)  # a cut between the two voids: the power-up journals the other
    play.void(FUP, 12, 7)
    assert play.restored() == ([], [])


def test_an_undo_reaches_back_over_rolls_and_hand_ends_one_event_at_a_time(tmp_path):
    play = Play(tmp_path)
    play.roll(4, 4)
    first = play.hit(FUP, 5)
    play.end_hand()
    play.roll(6, 6)
    second = play.hit(MEA, 2)
    play.roll(3, 4)
    assert play.restored() == ([], [])
    assert play.undo()  # the 7: no hit
    assert play.restored() == ([], [])
    assert play.undo()  # the 12 and its MEA hit
    assert play.restored() == ([], [(second, MEA, 2)])
    play.void(MEA, second, 2)
    assert play.restored() == ([], [])
    assert play.undo()  # the hand end
    assert play.restored() == ([], [])
    assert play.undo()  # the 8 and its Fired Up hit
    assert play.restored() == ([], [(first, FUP, 5)])


def test_a_hit_taken_back_and_voided_is_not_due_again_at_a_later_undo(tmp_path):
    """The roll that replaces an undone one sits where it was: undoing it
    leaves due only its own hits."""
    play = Play(tmp_path)
    play.roll(6, 6)
    hit = play.hit(MEA, 4)
    assert play.undo()
    play.void(MEA, hit, 4)
    play.roll(2, 2)
    assert play.restored() == ([], [])
    assert play.undo()
    assert play.restored() == ([], [])
    play.roll(5, 5)
    again = play.hit(MEA, 3)
    assert play.undo()
    assert play.restored() == ([], [(again, MEA, 3)])


def test_voids_are_due_only_while_the_last_table_event_is_the_undo(tmp_path):
    """docs/journal.md, step 7: "when that [the last table event] is an
    undo". A journal with an undo's voids missing and a roll after it owes none."""
    play = Play(tmp_path)
    play.roll(6, 6)
    play.hit(FUP, 7)
    assert play.undo()
    play.roll(2, 2)
    assert play.restored() == ([], [])


def events(play, count, hit_at=None):
    """`count` table events, rolls with a hand end every fifth; a Fired Up
    hit of 6 wagers after the `hit_at`-th. The hit's seq, if any."""
    hit = None
    for i in range(1, count + 1):
        if i % 5:
            play.roll(1 + i % 6, 1 + i % 5)
        else:
            play.end_hand()
        if i == hit_at:
            hit = play.hit(FUP, 6)
    return hit


def test_the_undo_that_takes_back_the_32nd_event_back_voids_its_hits(tmp_path):
    """A roll that hit, then 31 events: the engine can undo all 32."""
    play = Play(tmp_path)
    play.roll(6, 6)
    hit = play.hit(MEA, 4)
    events(play, UNDO_REACH - 1)
    for _ in range(UNDO_REACH - 1):
        assert play.undo()
    assert play.restored() == ([], [])
    assert play.undo()  # the engine still takes it back: 32 events
    assert play.restored() == ([], [(hit, MEA, 4)])


def test_the_restore_forgets_a_hit_33_events_back_which_no_undo_reaches(tmp_path):
    """The engine never undoes 33 events back (after 33 it holds 17), so the
    restore keeps no hit that far back: bounded memory on the board. The
    journal below goes on writing undo records the engine refused, which
    the board never writes, to show that the hit is gone; a later hit is kept."""
    play = Play(tmp_path)
    play.roll(6, 6)
    play.hit(MEA, 4)
    later = events(play, UNDO_REACH, hit_at=19)  # events 2 to 33; a hit after the 20th
    for _ in range(13):
        assert play.undo()
    assert play.restored() == ([], [])
    assert play.undo()  # the 20th event and its Fired Up hit
    assert play.restored() == ([], [(later, FUP, 6)])
    play.void(FUP, later, 6)
    taken = [play.undo() for _ in range(UNDO_REACH - 14)]
    assert taken == [True] * 3 + [False] * 15  # the engine holds 17 events after 33
    assert play.restored() == ([], [])
    play.undo()  # 33 events back: the first roll
    assert play.restored() == ([], [])


@pytest.mark.parametrize(
    "kind, payload, words",
    [
        (PROG_HIT, b'{"game": "XYZ"}', "a prog_hit record without its game"),
        (PROG_HIT, b"", "a prog_hit record without its game"),
        (PROG_VOID, b'{"game": "MEA"}', "a prog_void record without its hit"),
        (PROG_VOID, b'{"game": "MEA", "hit": 12', "a prog_void record without its hit"),
        (PROG_WAGER, b'{"game": "XYZ", "roll": 3}', "a prog_wager record without its game and roll"),
        (PROG_WAGER, b'{"game": "FUP"}', "a prog_wager record without its game and roll"),
        (PROG_WAGER, b'{"game": "MEA", "roll": 3', "a prog_wager record without its game and roll"),
    ],
)
def test_a_progressive_record_without_its_game_or_hit_is_the_fault_corrupt_naming_it(tmp_path, kind, payload, words):
    """The restore refuses such a record as a fault, and writes nothing."""
    play = Play(tmp_path)
    play.roll(6, 6)
    bad = play.record(kind, 4, payload)
    files = sizes(play.journal.dir)
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"k" * 32)
    with pytest.raises(jn.JournalError) as e:
        journal.mount(Table())
    assert (str(e.value), e.value.fault, e.value.seq) == ("corrupt: record %d: %s" % (bad, words), jn.CORRUPT, bad)
    assert sizes(play.journal.dir) == files


def test_counts_keyed_again_before_the_same_roll_add_up_after_a_restore(tmp_path):
    """docs/keys.md, the progressive wagers' count: keyed again before that
    roll (late bets), the counts add up, and a power cut keeps them; a count
    keyed at a later roll starts afresh (journal.prog: (count, roll) per game)."""
    play = Play(tmp_path)
    play.record(jr.PROG_WAGER, 4, b'{"game": "MEA", "roll": 0}')
    play.record(jr.PROG_WAGER, 3, b'{"game": "MEA", "roll": 0}')
    play.record(jr.PROG_WAGER, 2, b'{"game": "FUP", "roll": 0}')
    assert opened(tmp_path).prog == [(7, 0), (2, 0)]
    play.roll(3, 4)
    play.record(jr.PROG_WAGER, 5, b'{"game": "MEA", "roll": 1}')
    assert opened(tmp_path).prog == [(5, 1), (2, 0)]


def test_the_hold_of_the_last_roll_is_the_same_with_a_state_record_after_it(tmp_path):
    """docs/journal.md, Restoring: the last roll's HOLD (crapsboard/rules/hold.py)
    is rebuilt from the table before it; what follows the roll without a table
    event (one or two state records, a clock set after them) must not lose it,
    nor an END HAND before the rolls since the last state record."""
    ten = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6)]
    holds = []
    cases = [  # (snapshots after the rolls, an END HAND first, a clock set last)
        (0, False, False),
        (1, False, False),
        (1, True, False),
        (2, False, False),
        (1, False, True),
    ]
    for snapshots, hand_ended_first, time_last in cases:
        directory = tmp_path / ("%d-%s-%s" % (snapshots, hand_ended_first, time_last))
        directory.mkdir()
        play = Play(directory)
        if hand_ended_first:  # the rolls since the last state record then start with an END HAND
            play.end_hand()
        for d1, d2 in ten:
            last = play.roll(d1, d2)
        for _ in range(snapshots):
            play.record(jr.SNAPSHOT, 0)
        if time_last:
            play.record(jr.TIME, 0, (1_798_761_600).to_bytes(8, "little"))
        hold = opened(directory).hold
        assert hold[0] == last and hold[1] & (1 << pt.MEA_PROGRESSIVE)  # the top award held for surveillance
        holds.append(hold[1:])
    assert holds == [holds[0]] * len(cases)
