"""Undo, checkpoints, bad input and mid-game configuration (docs/rules.md "Corrections",
docs/engine.md "Undo" and "Configuration changes"), beyond the rule vectors.

Expected states are worked by hand from the rules; where a whole state is
compared, it is against a fresh table fed the same events minus the one undone,
which is what "restores the exact state before the last roll" means.
"""

import pytest

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import FIRE_DONE, FIRE_WORKING, Table

STATE = (
    "rolls shooter point die1 die2 fire_state fire_points small_marks tall_marks "
    "all_marks bonus_done mea_marks fired_sequence fired_count"
).split()


def marks(*numbers):
    return sum(1 << n for n in numbers)


def state(table):
    return {name: getattr(table, name) for name in STATE}


def fed(events, config=None):
    table = Table(config)
    for ev in events:
        if ev == "end":
            table.end_hand()
        else:
            table.roll(*ev)
    return table


# ---- bad dice ---------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [(7, 1), (1, 7), (0, 3), (3, 0), (7, 7), (-1, 2), (2, 8), (9, 9)])
def test_a_face_outside_1_to_6_is_refused_and_nothing_changes(dice):
    table = fed([(2, 2), (1, 2), (3, 3)])
    before = state(table)
    with pytest.raises(ValueError):
        table.roll(*dice)
    assert state(table) == before
    assert table.undo() and state(table) == state(fed([(2, 2), (1, 2)]))  # the refused roll was not recorded


@pytest.mark.parametrize("dice", [(1, 1), (1, 6), (6, 1), (6, 6)])
def test_the_edge_faces_are_rolls(dice):
    table = Table()
    table.roll(*dice)
    assert (table.die1, table.die2, table.rolls) == (*dice, 1)


# ---- undo and configuration changes ------------------------------------------------------------


def test_undo_after_a_mid_game_reconfigure_returns_to_the_reconfigured_state_and_stops_there():
    table = fed([(2, 2), (1, 2)])  # point 4; 3 and 4 marked
    table.configure(cfg.parse({"rebet_after_win": False}, table.config))
    table.roll(5, 5)  # 10
    assert table.undo() is True
    assert (table.point, table.rolls, table.small_marks, table.tall_marks) == (4, 2, marks(3, 4), 0)
    assert table.all_marks == marks(3, 4) and table.mea_marks == marks(3, 4)
    assert table.config.rebet_after_win is False  # the new configuration stays
    assert table.undo() is False  # never across the configuration change
    assert (table.point, table.rolls, table.small_marks) == (4, 2, marks(3, 4))


def test_undo_right_after_a_reconfigure_has_nothing_to_undo():
    table = fed([(2, 2), (1, 2)])
    table.configure(cfg.parse({"bonus_window": "idle"}, table.config))  # a window option: accepted at any time
    assert table.undo() is False
    assert (table.point, table.rolls) == (4, 2)


def test_undo_after_reconfigure_with_a_rolled_win_under_the_new_rule():
    # rebet off from the middle of a cycle: the win then waits for a 7, and undo brings it back
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3)])
    table.configure(cfg.parse({"rebet_after_win": False}, table.config))
    table.roll(3, 3)  # All Small wins; with rebet off it waits for a 7
    assert not table.is_open(pt.ALL_SMALL)
    assert table.undo()
    assert table.small_marks == marks(2, 3, 4, 5) and table.bonus_done == 0
    assert table.in_progress(pt.ALL_SMALL)


# ---- undo of a Bonus Craps win with rebet off ----------------------------------------------------


def test_undo_of_an_all_small_win_with_rebet_off_reopens_nothing_and_the_win_can_be_rolled_again():
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3)], cfg.parse({"rebet_after_win": False}))
    table.roll(3, 3)
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)] == [(pt.ALL_SMALL, 5)]
    assert table.bonus_done == 1 << pt.ALL_SMALL
    assert table.undo()
    assert table.bonus_done == 0 and table.small_marks == marks(2, 3, 4, 5)
    assert table.in_progress(pt.ALL_SMALL) and not table.is_open(pt.ALL_SMALL)
    table.roll(3, 3)
    assert (pt.ALL_SMALL, 5) in [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)]


def test_undo_of_the_seven_after_a_rebet_off_win_brings_the_wait_back():
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)], cfg.parse({"rebet_after_win": False}))
    table.roll(3, 4)  # the 7: All Small opens again
    assert table.bonus_done == 0 and table.is_open(pt.ALL_SMALL)
    assert table.undo()
    assert table.bonus_done == 1 << pt.ALL_SMALL and not table.is_open(pt.ALL_SMALL)
    assert table.small_marks == 0 and table.all_marks == marks(2, 3, 4, 5, 6)


# ---- undo across the checkpoint ------------------------------------------------------------------


def sixteen_then(last_two):
    """16 events that leave nothing special, then `last_two` (these count among the 16)."""
    filler = [(1, 1), (6, 6), (1, 2), (5, 6)] * 4  # craps and yo on the come-out: no point, no Fired Up
    return filler[: 16 - len(last_two)] + list(last_two)


def test_undo_across_a_checkpoint_taken_mid_fired_up_sequence():
    events = sixteen_then([(3, 3), (2, 3)])  # Fired Up 6, 5 on events 15 and 16
    table = fed(events)
    assert table.fired_count == 2 and table.fired_matched() == [6, 5]
    table.roll(2, 2)  # 4: the third match, past the 16th event
    assert table.fired_count == 3
    assert table.undo()
    assert table.fired_count == 2 and table.fired_matched() == [6, 5]
    assert table.die1 == 2 and table.die2 == 3 and table.rolls == 16
    assert state(table) == state(fed(events))
    table.roll(1, 2)  # 3 does not follow 6 5: ends at two matches
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)][-1] == (pt.FIRED_UP, 2)


def test_undo_across_a_checkpoint_taken_mid_fire_and_bonus_cycles():
    events = [(2, 2), (2, 2), (1, 4), (1, 4), (3, 3), (3, 3), (4, 4), (4, 4)]  # 4 5 6 8 made
    events += [(1, 1), (1, 2), (5, 6), (6, 6), (4, 5), (4, 5), (5, 5), (1, 2)]  # point 9 made; point 10
    assert len(events) == 16
    table = fed(events)
    assert table.point == 10 and table.fire_points == marks(4, 5, 6, 8, 9)
    table.roll(6, 4)  # 10 made: the sixth point pays at once
    assert table.fire_state == FIRE_DONE
    assert table.undo()
    assert table.point == 10 and table.fire_points == marks(4, 5, 6, 8, 9) and table.fire_state == FIRE_WORKING
    assert state(table) == state(fed(events))


def test_undo_across_a_checkpoint_after_an_end_hand():
    events = sixteen_then([(2, 2), "end"])
    table = fed(events)
    assert table.shooter == 2 and table.point == 0
    table.roll(3, 3)
    assert table.undo()
    assert state(table) == state(fed(events)) and table.shooter == 2


@pytest.mark.parametrize("extra", [1, 5, 15, 16, 17, 31, 32, 33])
def test_the_last_event_can_always_be_undone(extra):
    rng_events = [((i * 5) % 6 + 1, (i * 7 + 3) % 6 + 1) for i in range(extra)]
    table = fed(rng_events)
    assert table.undo()
    assert state(table) == state(fed(rng_events[:-1]))


def test_undo_restores_the_dice_of_the_roll_before():
    table = fed([(2, 5), (6, 1)])
    assert table.undo() and (table.die1, table.die2) == (2, 5)


def test_undo_on_a_fresh_table_is_false_and_changes_nothing():
    table = Table()
    before = state(table)
    assert table.undo() is False and state(table) == before


# ---- Fired Up paytable mid-sequence ------------------------------------------------------------------


def test_a_fired_up_paytable_change_mid_sequence_is_refused():
    table = fed([(3, 3)])  # 6: FUP-01 sequence 6-5-4-3-2 started
    assert table.in_progress(pt.FIRED_UP)
    old = table.config
    with pytest.raises(cfg.ConfigError) as e:
        table.configure(cfg.parse({"paytables": {"fired_up": "PT-BJS-FUP-02"}}, old))
    assert e.value.key == "paytables.fired_up"
    assert table.config is old and table.fired_count == 1
    table.roll(2, 3)  # 5: the sequence goes on under the old paytable
    assert table.fired_count == 2


def test_fired_up_withdrawn_mid_sequence_is_refused():
    table = fed([(4, 4)])  # 8: the 8-9-10-11-12 sequence started
    with pytest.raises(cfg.ConfigError) as e:
        table.configure(cfg.parse({"offered": ["fire", "all_small", "all_tall", "make_em_all", "mea_progressive"]}))
    assert e.value.key == "offered.fired_up"
    assert table.config.is_offered(pt.FIRED_UP)


def test_a_fired_up_paytable_change_when_idle_is_taken():
    table = fed([(3, 3), (6, 6)])  # 6 then 12: the sequence ended
    assert not table.in_progress(pt.FIRED_UP)
    table.configure(cfg.parse({"paytables": {"fired_up": "PT-BJS-FUP-04"}}, table.config))
    table.roll(2, 3)  # 5 starts FUP-04's 5-4-3-2
    assert table.fired_count == 1 and table.fired_matched() == [5]


# ---- how far back ----------------------------------------------------------------------------------


def test_sixteen_rolls_can_all_be_undone_one_by_one_and_no_more():
    events = [((i * 5) % 6 + 1, (i * 7 + 3) % 6 + 1) for i in range(16)]
    table = fed(events)
    for back in range(1, 17):
        assert table.undo() is True, back
        assert state(table) == state(fed(events[:-back])), back
    assert table.undo() is False
    assert state(table) == state(Table())


# ---- queries -----------------------------------------------------------------------------------------


def test_a_fresh_table_has_resolved_nothing():
    assert Table().res_count == 0
    assert Table(cfg.parse({"rebet_after_win": False})).res_count == 0


def test_pays_per_unit_from_the_paytable_in_force():
    table = Table()
    assert table.pays(pt.FIRE, 4) == 25  # docs/rules.md: Fire 4 points, 25 for 1 (table 1)
    assert table.pays(pt.FIRE, 6) == 1000 and table.pays(pt.FIRE, 3) == 0
    assert table.pays(pt.ALL_SMALL, 5) == 34  # seed 002 Pay Table 1: 34 to 1
    table.configure(cfg.parse({"paytables": {"fire": "3"}}))
    assert table.pays(pt.FIRE, 3) == 7  # table 3 pays three points


def test_a_won_wager_waiting_for_a_seven_is_neither_open_nor_in_action():
    # rebet off: the win is paid and taken down, so its paytable may change while it waits
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)], cfg.parse({"rebet_after_win": False}))
    assert table.is_open(pt.ALL_SMALL) is False
    assert table.in_progress(pt.ALL_SMALL) is False
    table.configure(cfg.parse({"rebet_after_win": False, "paytables": {"all_small": "PT2"}}))
    assert table.config.paytables[pt.ALL_SMALL].ident == "PT2"


def test_a_refused_change_names_the_wager_with_the_right_article():
    # docs/architecture.md: messages read as English ("an all_small ...", "a fire ...").
    table = fed([(2, 2)])  # point 4: Fire in action, All Small closed under after_seven
    with pytest.raises(cfg.ConfigError, match="^paytables.fire: a fire cycle is in progress"):
        table.configure(cfg.parse({"paytables": {"fire": "3"}}, table.config))
    with pytest.raises(cfg.ConfigError, match="^paytables.all_small: an all_small cycle is in progress"):
        table.configure(cfg.parse({"paytables": {"all_small": "PT2"}}, table.config))


# ---- what a restart carries (docs/journal.md: the table state in a snapshot) -----------------------

SIX_POINTS = [(2, 2), (2, 2), (2, 3), (2, 3), (3, 3), (3, 3), (4, 4), (4, 4), (4, 5), (4, 5), (5, 5), (5, 5)]


def test_a_table_after_six_points_made_restarts_with_fire_closed_until_the_next_shooter():
    # RULES: all six points made pays at once; no new Fire Bet until the next shooter.
    from crapsboard.journal import snapshot, snapshot_read

    table = fed(SIX_POINTS)
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)][0] == (pt.FIRE, 6)
    restored = Table()
    snapshot_read.loads(snapshot.dumps(table, len(SIX_POINTS)), restored)
    assert state(restored) == state(table)
    assert not restored.is_open(pt.FIRE) and not restored.in_progress(pt.FIRE)
    restored.roll(3, 4)  # come-out 7, no point on: the same shooter, Fire still closed
    assert restored.shooter == 1 and not restored.is_open(pt.FIRE)
    restored.end_hand()  # the next shooter: Fire open, and the end hand resolved no Fire
    assert restored.res_count == 0 and restored.is_open(pt.FIRE)


# ---- counting marks -------------------------------------------------------------------------------


def test_the_level_of_a_cycle_is_how_many_numbers_it_marked_for_every_mark_mask():
    # docs/engine.md: a resolution's level is the numbers marked (or points made); the
    # marks of any cycle are totals 2-6 and 8-12, so every subset of them is counted.
    from crapsboard.rules.engine import popcount

    totals = [2, 3, 4, 5, 6, 8, 9, 10, 11, 12]
    for subset in range(1 << len(totals)):
        mask = sum(1 << totals[i] for i in range(len(totals)) if subset >> i & 1)
        assert popcount(mask) == bin(subset).count("1"), mask


def test_a_fresh_table_is_the_first_shooter_coming_out_with_every_cycle_empty():
    # docs/engine.md: point 0 = off, dice = the last roll (0: none yet); every Bonus Craps
    # cycle "has not had a roll yet" at the start. The journal's first snapshot holds this.
    for table in (Table(), Table(cfg.parse({"rebet_after_win": False, "fire_window": "first_roll"}))):
        assert (table.rolls, table.shooter, table.shooter_start, table.point) == (0, 1, 0, 0)
        assert (table.die1, table.die2) == (0, 0)
        assert (table.fire_state, table.fire_points) == (0, 0)
        assert (table.small_marks, table.tall_marks, table.all_marks, table.mea_marks) == (0, 0, 0, 0)
        assert table.bonus_done == 0
        assert table.bonus_fresh == (1 << pt.ALL_SMALL) | (1 << pt.ALL_TALL) | (1 << pt.MAKE_EM_ALL)
        assert (table.fired_count, table.fired_matched()) == (0, [])


@pytest.mark.parametrize("fired_up", ["PT-BJS-FUP-04", "PT-BJS-FUP-06"])
def test_a_table_under_a_one_sequence_fired_up_paytable_restarts_from_its_snapshot(fired_up):
    # FUP-04 (5-4-3-2) and FUP-06 (8-9-10-11-12) have one sequence each.
    from crapsboard.journal import snapshot, snapshot_read

    config = cfg.parse({"paytables": {"fired_up": fired_up}})
    for events in ([], [(1, 1)], [(1, 1), (3, 4)]):  # nothing, then rolls that start no sequence
        table = fed(events, config)
        restored = Table()
        snapshot_read.loads(snapshot.dumps(table, 1), restored)
        assert state(restored) == state(table)
        assert restored.is_open(pt.FIRED_UP)


def test_after_a_fired_up_paytable_change_only_the_new_tables_first_numbers_start_a_sequence():
    # RULES: the first roll must equal the first number of one of the paytable's sequences;
    # one that starts none reports a Fired Up loss at level 0. FUP-01 starts 6 and 8; FUP-04 only 5.
    table = fed([(3, 3), (6, 6)])  # FUP-01: 6 started, 12 ended it
    table.configure(cfg.parse({"paytables": {"fired_up": "PT-BJS-FUP-04"}}, table.config))
    for dice in ((3, 3), (4, 4)):  # 6 and 8 are no first numbers any more
        table.roll(*dice)
        assert table.fired_count == 0
        fired = [table.res_level[i] for i in range(table.res_count) if table.res_wager[i] == pt.FIRED_UP]
        assert fired == [0]


def test_end_hands_where_the_undo_ring_moves_on_undo_like_rolls():
    # docs/engine.md: 16 to 32 events are held and the history moves on when the ring is
    # full, whatever the event; end hands here are the 17th and 33rd event (where the
    # ring moves on) and others between, over slots that held rolls before.
    events = [((i * 5) % 6 + 1, (i * 7 + 3) % 6 + 1) for i in range(60)]
    for position in (5, 16, 23, 32, 41, 50, 54):
        events[position] = "end"
    for length in (17, 33, 45, 52, 56, 60):
        table = fed(events[:length])
        for back in range(1, 17):
            assert table.undo() is True, (length, back)
            assert state(table) == state(fed(events[: length - back])), (length, back)


# ---- what an undo reports (RULES "Corrections": which event it reversed and its resolutions) ----


def reversed_of(table):
    return [(table.rev_wager[i], table.rev_level[i], table.rev_outcome[i]) for i in range(table.rev_count)]


def test_undo_reports_the_roll_it_took_back_and_that_rolls_resolutions():
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3)])  # 2 3 4 5 marked; Fired Up lost on each (no 6 or 8)
    table.roll(3, 3)  # 6: All Small wins at 5 numbers, Fired Up starts 6-5-4-3-2
    assert table.undo() is True
    assert table.undone == 3 * 8 + 3  # the event code: d1 * 8 + d2
    assert reversed_of(table) == [(pt.ALL_SMALL, 5, pt.OUT_WIN)]
    assert table.res_count == 0  # docs/engine.md: res_count at 0 after an undo
    assert table.undo() is True  # the roll before: 5, a Fired Up loss at level 0
    assert table.undone == 2 * 8 + 3
    assert reversed_of(table) == [(pt.FIRED_UP, 0, pt.OUT_LOSS)]


def test_undo_reports_an_end_hand_and_the_fire_bets_it_returned():
    table = fed([(5, 6)])  # come-out 11: no point, Fire still in its window
    table.end_hand()
    assert table.undo() is True
    assert table.undone == 0  # 0 = end hand
    assert reversed_of(table) == [(pt.FIRE, 0, pt.OUT_RETURNED)]
    assert table.res_count == 0 and table.shooter == 1


def test_an_end_hand_after_four_points_made_settles_fire_as_a_win():
    # RULES open point 2: after a point, the end hand resolves Fire by the points made, as at a
    # seven-out; table 1 pays 4 points 25 for 1, a win. The roll before resolved a Fired Up loss.
    table = fed([(2, 2), (2, 2), (2, 3), (2, 3), (3, 3), (3, 3), (4, 4), (4, 4), (1, 2)])
    table.end_hand()
    fire = [(table.res_wager[i], table.res_level[i], table.res_outcome[i]) for i in range(table.res_count)]
    assert fire == [(pt.FIRE, 4, pt.OUT_WIN)]


def test_reset_makes_a_fresh_table_with_nothing_resolved_and_nothing_to_undo():
    # Table.reset(): "a fresh table" — the journal's boot uses it when an old journal could not be
    # trusted, so nothing of that table may be reported or undone afterwards.
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4)])  # All Small won on the 6
    table.roll(3, 4)  # a 7: every cycle resolves
    assert table.res_count > 0
    table.reset()
    assert state(table) == state(Table())
    assert table.res_count == 0 and table.rev_count == 0
    assert table.undo() is False
    assert state(table) == state(Table())


def test_a_wager_not_offered_is_never_open_for_betting():
    # docs/engine.md: is_open(w) is "offered and open for betting"; docs/lamps.md: lamps of a
    # wager that is not offered stay dark. At the start every offered wager is open.
    table = Table(cfg.parse({"offered": ["fire"]}))
    assert table.is_open(pt.FIRE) is True
    for w in range(1, pt.WAGER_COUNT):
        assert table.is_open(w) is False, w


def test_fired_up_marks_are_the_numbers_matched_so_far():
    # docs/engine.md: marks(w) is a mask (bit n = number n); for Fired Up, the numbers matched.
    table = fed([(3, 3), (2, 3), (2, 2)])  # 6 5 4 of 6-5-4-3-2
    assert table.marks(pt.FIRED_UP) == marks(6, 5, 4)
    assert table.fired_matched() == [6, 5, 4]


def test_a_won_wager_waiting_for_a_seven_is_not_open_under_the_idle_window_either():
    # docs/lamps.md: with rebet_after_win off a won All Small waits for the next 7 and small.open
    # stays dark, although under "idle" a wager with nothing marked is otherwise open.
    table = fed([(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)], cfg.parse({"rebet_after_win": False, "bonus_window": "idle"}))
    assert table.small_marks == 0 and table.is_open(pt.ALL_SMALL) is False
    table.roll(3, 4)
    assert table.is_open(pt.ALL_SMALL) is True


def test_a_fired_up_resolution_carries_the_numbers_it_matched():
    # docs/engine.md: res_marks is the mask the wager settled with (what the lamps flash).
    table = fed([(3, 3), (2, 3), (2, 2)])  # 6 5 4
    table.roll(3, 4)  # 7 ends it at three matches
    fired = [table.res_marks[i] for i in range(table.res_count) if table.res_wager[i] == pt.FIRED_UP]
    assert fired == [marks(6, 5, 4)]


def test_under_the_idle_window_a_bonus_wager_with_marks_keeps_its_paytable():
    # docs/engine.md "Configuration changes": refused while the wager has bets in action; under
    # "idle" All Small is in action once it has a number marked.
    table = fed([(1, 1)], cfg.parse({"bonus_window": "idle"}))  # 2 marked
    assert table.in_progress(pt.ALL_SMALL) is True
    with pytest.raises(cfg.ConfigError) as e:
        table.configure(cfg.parse({"bonus_window": "idle", "paytables": {"all_small": "PT2"}}))
    assert e.value.key == "paytables.all_small"
    assert table.config.paytables[pt.ALL_SMALL].ident == "PT1"


TALL_FIVE = [(4, 4), (4, 5), (5, 5), (5, 6), (6, 6)]  # 8 9 10 11 12
ALL_TEN = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)] + TALL_FIVE  # 2-6 and 8-12


def test_with_rebet_off_a_won_all_tall_marks_nothing_until_the_seven():
    # RULES (Bonus Craps): with rebet_after_win off a won wager waits for the next 7.
    table = fed(TALL_FIVE, cfg.parse({"rebet_after_win": False}))
    assert (pt.ALL_TALL, 5) in [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)]
    for dice in TALL_FIVE:  # the same five again: no marks, no second win
        table.roll(*dice)
        assert table.tall_marks == 0
        assert pt.ALL_TALL not in table.res_wager[: table.res_count]


def test_with_rebet_off_a_won_make_em_all_marks_nothing_until_the_seven():
    table = fed(ALL_TEN, cfg.parse({"rebet_after_win": False}))
    assert (pt.MAKE_EM_ALL, 10) in [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)]
    for dice in ALL_TEN:
        table.roll(*dice)
        assert table.all_marks == 0
        assert pt.MAKE_EM_ALL not in table.res_wager[: table.res_count]


def test_with_rebet_on_a_won_make_em_all_starts_over_with_nothing_marked():
    from crapsboard.journal import snapshot, snapshot_read

    table = fed(ALL_TEN)
    assert table.all_marks == 0 and table.marks(pt.MAKE_EM_ALL) == 0
    restored = Table()
    snapshot_read.loads(snapshot.dumps(table, 10), restored)  # a restart right after the win
    assert state(restored) == state(table)
    table.roll(3, 4)  # a 7 at once: the new cycle had no roll and marked nothing
    mea = [table.res_level[i] for i in range(table.res_count) if table.res_wager[i] == pt.MAKE_EM_ALL]
    assert mea == [0]


def test_a_progressive_ended_by_a_repeated_number_carries_the_numbers_it_had():
    # RULES (MEA Progressive): a number rolled again ends the cycle, paid by the distinct numbers;
    # docs/engine.md: res_marks is the mask it settled with.
    table = fed([(1, 1), (1, 2), (2, 2)])  # 2 3 4
    table.roll(1, 2)  # 3 again
    mea = [
        (table.res_level[i], table.res_marks[i])
        for i in range(table.res_count)
        if table.res_wager[i] == pt.MEA_PROGRESSIVE
    ]
    assert mea == [(3, marks(2, 3, 4))]


def test_a_fired_up_roll_that_starts_no_sequence_settles_with_nothing_matched():
    table = fed([(3, 3), (1, 1)])  # 6 started, 2 ended it at one match
    table.roll(1, 2)  # 3 starts no FUP-01 sequence: a loss at level 0, nothing matched
    fired = [
        (table.res_level[i], table.res_marks[i]) for i in range(table.res_count) if table.res_wager[i] == pt.FIRED_UP
    ]
    assert fired == [(0, 0)]


def test_a_seven_does_not_settle_again_a_bonus_wager_that_won_since_the_last_seven():
    # RULES: every 7 reports each Bonus Craps wager that has not already won since the last 7.
    table = fed(ALL_TEN, cfg.parse({"rebet_after_win": False}))  # All Small, All Tall, Make 'Em All won
    table.roll(3, 4)
    settled = table.res_wager[: table.res_count]
    assert pt.ALL_SMALL not in settled and pt.ALL_TALL not in settled and pt.MAKE_EM_ALL not in settled
    assert pt.MEA_PROGRESSIVE in settled
