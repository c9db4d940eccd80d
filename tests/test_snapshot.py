"""snapshot: the table's rule state survives dumps/loads, and a bad snapshot changes nothing."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crapsboard.journal import snapshot, snapshot_read
from crapsboard.rules import config as cfg
from crapsboard.rules.engine import Table

FIELDS = (
    "rolls", "shooter", "point", "die1", "die2", "fire_state", "fire_points", "small_marks",
    "tall_marks", "all_marks", "bonus_done", "mea_marks", "fired_sequence", "fired_count",
    "shooter_start", "bonus_fresh",  # the engine
)  # fmt: skip
FIELDS = tuple(f for f in FIELDS if hasattr(Table(), f))
RULE_CONFIG = tuple(
    k for k in ("offered", "rebet_after_win", "fire_window", "bonus_window") if hasattr(cfg.Config(), k)
)


def state(table):
    c = table.config
    return [getattr(table, f) for f in FIELDS] + [getattr(c, k) for k in RULE_CONFIG] + [[p.ident for p in c.paytables]]


def feed(table, events):
    for e in events:
        if e == "undo":
            table.undo()
        elif e == "end":
            table.end_hand()
        else:
            table.roll(*e)


events = st.lists(
    st.one_of(st.tuples(st.integers(1, 6), st.integers(1, 6)), st.sampled_from(["undo", "end"])), max_size=300
)
configs = st.sampled_from(
    [
        {},
        {"rebet_after_win": False},
        {"offered": ["fire", "fired_up"], "paytables": {"fire": "3"}},
        {"paytables": {"all_small": "PT1", "mea_progressive": "PT-BJS-MEA-01"}, "rebet_after_win": False},
        {"fire_window": "first_roll", "bonus_window": "idle"},
        {"fire_window": "first_roll", "rebet_after_win": False, "bonus_window": "idle"},
        {"fire_window": "first_roll"},  # each window alone: the snapshot keeps them apart
        {"bonus_window": "idle"},
    ]
)


@settings(max_examples=200, deadline=None)
@given(configs, events, events, st.integers(0, 2**32 - 1))
def test_round_trip_then_the_same_future(config_obj, before, after, seq):
    table = Table(cfg.parse(config_obj))
    feed(table, before)
    data = snapshot.dumps(table, seq)
    restored = Table()
    assert snapshot_read.loads(data, restored) == seq
    assert state(restored) == state(table)
    assert restored.undo() is False  # undo never reaches back across a restart
    rolls = [e for e in after if e not in ("undo", "end")]
    for roll in rolls:
        assert table.roll(*roll) == restored.roll(*roll)
        assert table.res_wager[: table.res_count] == restored.res_wager[: restored.res_count]
        assert table.res_level[: table.res_count] == restored.res_level[: restored.res_count]
    assert state(restored) == state(table)


def test_a_hand_in_play_is_captured():
    table = Table()
    feed(table, [(2, 2), (2, 2), (3, 3), (1, 2)])  # point 4 made, point 6 set, a 3 marked
    restored = Table()
    snapshot_read.loads(snapshot.dumps(table, 9), restored)
    assert (restored.point, restored.fire_points, restored.rolls) == (6, 1 << 4, 4)
    assert restored.small_marks == table.small_marks == (1 << 4) | (1 << 6) | (1 << 3)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d[:10],
        lambda d: d + b"\x00",
        lambda d: b"\x02" + d[1:],
        lambda d: d[:13] + b"\x07" + d[14:],  # point 7
        lambda d: d[:-3] + b"ZZZ",
        lambda d: with_field(d, 7, 7),  # the second die of the last roll is 7
        lambda d: with_field(d, 6, 7),  # the first die is 7
        lambda d: with_field(with_field(d, 15, 0), 16, 99),  # Fired Up: 99 numbers of a sequence matched
    ],
)
def test_a_bad_snapshot_is_refused_and_the_table_keeps_its_state(damage):
    """Refused: cut, too long, another version, an impossible point, unknown
    paytables, a die that is not 1-6 (the mutants of snapshot_read),
    a Fired Up count beyond its sequence."""
    source = Table()
    feed(source, [(3, 3), (2, 3)])
    data = snapshot.dumps(source, 5)
    bad = damage(data)
    target = Table()
    feed(target, [(1, 1), (4, 4)])
    before = state(target)
    with pytest.raises(snapshot_read.SnapshotError):
        snapshot_read.loads(bad, target)
    assert state(target) == before


def test_the_pin_is_not_rule_state_and_comes_from_the_board_configuration():
    board_config = cfg.parse(
        {"rebet_after_win": False, "supervisor_pin": {"pbkdf2_sha256": "ab" * 32, "salt": "cd" * 8, "iterations": 10}}
    )
    table = Table(cfg.parse({"offered": ["fire"]}))
    feed(table, [(4, 4)])
    restored = Table()
    snapshot_read.loads(snapshot.dumps(table, 3), restored, base=board_config)
    assert restored.config.offered == 1 and restored.config.rebet_after_win is True
    assert restored.point == 8
    assert restored.config.supervisor_pin == board_config.supervisor_pin
    assert restored.config.supervisor_pin[2] == bytes.fromhex("ab" * 32)


def test_a_fired_up_paytable_changed_while_idle_is_captured_and_restored():
    # docs/rules.md: Fired Up may change while no sequence is in progress.
    # 8 starts the tall sequence (8 9 10 11 12), 2 ends it; PT-BJS-FUP-04 has
    # only the small four (5 4 3 2), so the last sequence's index is not its.
    from crapsboard.rules import paytables as pt
    from crapsboard.rules import report

    table = Table()
    feed(table, [(4, 4), (1, 1)])
    table.configure(cfg.parse({"paytables": {"fired_up": "PT-BJS-FUP-04"}}))
    assert report.wager_marks(table, pt.FIRED_UP) == []
    restored = Table()
    snapshot_read.loads(snapshot.dumps(table, 3), restored)  # was refused: "Fired Up sequence out of range"
    assert restored.config.paytables[pt.FIRED_UP].ident == "PT-BJS-FUP-04"
    for t in (table, restored):
        feed(t, [(2, 3), (1, 3)])
        assert report.wager_marks(t, pt.FIRED_UP) == [5, 4]


def with_field(data, index, value):
    """Snapshot bytes with field `index` of snapshot.FORMAT set to `value`."""
    import struct

    fmt = snapshot.FORMAT
    codes = fmt[1:]
    offset = struct.calcsize("<" + codes[:index])
    size = struct.calcsize("<" + codes[index])
    return data[:offset] + value.to_bytes(size, "little") + data[offset + size :]


def accepted(data):
    try:
        snapshot_read.decode(data)
    except snapshot_read.SnapshotError:
        return False
    return True


def fresh_snapshot():
    return snapshot.dumps(Table(), 0)


# Field indexes of snapshot.FORMAT (snapshot.py's list of fields).
ROLLS, SHOOTER_START, POINT, DIE1, DIE2, FIRE_STATE = 2, 4, 5, 6, 7, 8
FIRE_POINTS, SMALL, TALL, ALL, BONUS_DONE, MEA = 9, 10, 11, 12, 13, 14
FIRED_SEQUENCE, FIRED_COUNT, BONUS_FRESH, OFFERED, REBET, FIRE_WINDOW, BONUS_WINDOW = 15, 16, 17, 18, 19, 20, 21


@pytest.mark.parametrize(
    "field, good",
    [
        (POINT, {0, 4, 5, 6, 8, 9, 10}),  # no point, or a point number (docs/rules.md)
        (DIE1, set(range(7))),  # 0 before the first roll, else a die's face
        (DIE2, set(range(7))),
        (FIRE_STATE, {0, 1, 2}),  # the engine's three Fire Bet states
        (OFFERED, set(range(1 << 6))),  # a mask of the six wagers
        (REBET, {0, 1}),
        (FIRE_WINDOW, {0, 1}),  # two names each in docs/rules.md
        (BONUS_WINDOW, {0, 1}),
    ],
)
def test_a_byte_field_is_accepted_exactly_on_the_values_the_table_can_hold(field, good):
    """Every value of the byte: the ones the engine can hold restore, every
    other one is refused (the edges of the snapshot_read mutants)."""
    data = fresh_snapshot()
    assert {v for v in range(256) if accepted(with_field(data, field, v))} == good


@pytest.mark.parametrize("field", [FIRE_POINTS, SMALL, TALL, ALL, MEA])
def test_marks_are_accepted_exactly_on_the_totals_that_can_be_marked(field):
    """A mark mask's bit n is the total n: 2-6 and 8-12 can be marked, 7 and
    the bits outside 2-12 cannot (each of the 16 bits alone, and all the good
    ones at once)."""
    data = fresh_snapshot()
    good = [2, 3, 4, 5, 6, 8, 9, 10, 11, 12]
    assert [n for n in range(16) if accepted(with_field(data, field, 1 << n))] == good
    assert accepted(with_field(data, field, sum(1 << n for n in good)))


@pytest.mark.parametrize("field", [BONUS_DONE, BONUS_FRESH])
def test_bonus_flags_are_accepted_exactly_on_the_three_bonus_wagers(field):
    """Bits 1-3 are All Small, All Tall and Make 'Em All (pt.WAGER_NAMES);
    Fire (bit 0), MEA, Fired Up and the bits beyond are refused."""
    data = fresh_snapshot()
    assert [n for n in range(8) if accepted(with_field(data, field, 1 << n))] == [1, 2, 3]
    assert accepted(with_field(data, field, 0x0E))


def test_the_shooter_start_is_accepted_up_to_the_rolls_and_not_beyond():
    data = with_field(fresh_snapshot(), ROLLS, 5)
    assert [s for s in range(8) if accepted(with_field(data, SHOOTER_START, s))] == [0, 1, 2, 3, 4, 5]


def test_a_fired_up_sequence_in_progress_must_fit_the_paytable_in_force():
    """The default Fired Up paytable has two sequences of five numbers: with a
    count of 1-4 the sequence is 0 or 1 and a count of 5 or more is refused;
    with no count (nothing in progress) any index is kept."""
    data = fresh_snapshot()
    held = {
        (s, c)
        for s in range(4)
        for c in range(8)
        if accepted(with_field(with_field(data, FIRED_SEQUENCE, s), FIRED_COUNT, c))
    }
    assert held == {(s, 0) for s in range(4)} | {(s, c) for s in (0, 1) for c in range(1, 5)}


def test_the_format_is_the_one_journals_in_the_field_hold():
    """A fresh table's snapshot after event 7, field by field as docs/journal.md
    lists them: version 1 first (a board's journal written by this firmware
    must stay readable by the next), then the six default paytable ids, each
    after its length byte."""
    import struct

    from crapsboard.rules import paytables as pt

    table = Table()
    # version, seq, rolls, shooter 1, shooter start, point, dice, Fire state and points, marks,
    # bonus done, MEA, Fired Up sequence and count, the three bonus wagers not yet rolled on (0x0E);
    # all six wagers offered, rebet, windows
    fields = (1, 7, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0E, 63, 1, 0, 0)
    fixed = struct.pack("<BIIIIBBBBHHHHBHBBBBBBB", *fields)
    ids = b"".join(bytes((len(p.ident),)) + p.ident.encode() for p in table.config.paytables)
    assert [p.ident for p in table.config.paytables][pt.FIRE] == "1"
    assert snapshot.dumps(table, 7) == fixed + ids
    assert len(fixed + ids) == 81  # docs/journal.md: 81 bytes with the default paytables
    assert snapshot_read.decode(fixed + ids)[0] == 7


def test_the_fixed_fields_alone_are_refused_as_cut_short_in_the_paytables():
    """The restore's fault names why (journal_restore passes the message on)."""
    data = fresh_snapshot()
    with pytest.raises(snapshot_read.SnapshotError, match="cut short in the paytables"):
        snapshot_read.decode(data[: snapshot.FIXED_SIZE])
    with pytest.raises(snapshot_read.SnapshotError, match="not a version 1 table snapshot"):
        snapshot_read.decode(data[: snapshot.FIXED_SIZE - 1])


def test_a_paytable_name_cut_short_is_refused_as_cut_short_not_as_an_unknown_name():
    # The first paytable's name: its length byte, then that many bytes. Cut one byte
    # short of its end, the name is not read as a shorter one.
    data = fresh_snapshot()
    name_length = data[snapshot.FIXED_SIZE]
    assert name_length >= 1
    with pytest.raises(snapshot_read.SnapshotError, match="^snapshot cut short in the paytables$"):
        snapshot_read.decode(data[: snapshot.FIXED_SIZE + name_length])


def test_bytes_past_the_paytables_are_refused_by_their_count():
    """The restore's fault names why: here how many bytes follow the snapshot."""
    data = fresh_snapshot()
    with pytest.raises(snapshot_read.SnapshotError, match="^snapshot has 3 bytes too many$"):
        snapshot_read.decode(data + b"\x00\x01\x02")


def test_loading_a_snapshot_clears_the_tables_undo_history_and_last_outcome():
    # snapshot_read.loads: "The table's undo history is cleared": the rolls before
    # a restore cannot be undone into a state the snapshot does not hold.
    # Nor does the last event's outcome outlive it: the seven-out's resolutions are gone.
    table = Table()
    table.roll(2, 2)
    table.roll(3, 4)
    assert table.res_count > 0
    seq = snapshot_read.loads(fresh_snapshot(), table)
    assert seq == 0 and table.rolls == 0 and table.res_count == 0
    assert table.undo() is False


def test_after_a_snapshot_is_loaded_an_undo_goes_back_to_the_loaded_state():
    # snapshot_read.loads starts the undo history at the state it loaded: the first
    # roll after a restore is undone to that state, not to a fresh table.
    played = Table()
    for dice in ((2, 2), (5, 5), (3, 3)):
        played.roll(*dice)
    saved = snapshot.dumps(played, 0)
    table = Table()
    snapshot_read.loads(saved, table)
    table.roll(6, 6)
    assert table.undo() is True
    assert snapshot.dumps(table, 0) == saved and table.rolls == 3
