"""Properties of the engine over random dice streams, and agreement with an
independent plain-sets reading of docs/rules.md (tests/reference_model.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st
from reference_model import BONUS, FIRED_UP_SEQUENCES, WAGERS, Reference

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules import report
from crapsboard.rules.engine import Table

die = st.integers(min_value=1, max_value=6)
roll = st.tuples(die, die)
event = st.one_of(roll, roll, roll, roll, roll, roll, roll, roll, st.just("end"))
configs = st.fixed_dictionaries(
    {
        "offered": st.lists(st.sampled_from(WAGERS), min_size=1, unique=True),
        "rebet_after_win": st.booleans(),
        "fired_up": st.sampled_from(sorted(FIRED_UP_SEQUENCES)),
        "fire_window": st.sampled_from(cfg.FIRE_WINDOW_NAMES),
        "bonus_window": st.sampled_from(cfg.BONUS_WINDOW_NAMES),
    }
)

STATE_FIELDS = (
    "rolls shooter point die1 die2 fire_state fire_points small_marks tall_marks "
    "all_marks bonus_done mea_marks fired_sequence fired_count shooter_start bonus_fresh"
).split()


def make_table(c):
    config = cfg.parse(
        {
            "offered": c["offered"],
            "rebet_after_win": c["rebet_after_win"],
            "paytables": {"fired_up": c["fired_up"]},
            "fire_window": c["fire_window"],
            "bonus_window": c["bonus_window"],
        }
    )
    return Table(config)


def resolutions(table):
    return [
        (pt.WAGER_NAMES[table.res_wager[i]], table.res_level[i], table.res_outcome[i] == pt.OUT_RETURNED)
        for i in range(table.res_count)
    ]


def view(table):
    offered = [w for w in range(pt.WAGER_COUNT) if table.config.is_offered(w)]
    return {
        "point": table.point or None,
        "shooter": table.shooter,
        "open": {pt.WAGER_NAMES[w]: table.is_open(w) for w in offered},
        "marks": {pt.WAGER_NAMES[w]: report.wager_marks(table, w) for w in offered},
    }


def snapshot(table):
    return tuple(getattr(table, name) for name in STATE_FIELDS)


def apply(table, ev):
    if ev == "end":
        table.end_hand()
    else:
        table.roll(*ev)
    return resolutions(table)


@settings(max_examples=300, deadline=None)
@given(configs, st.lists(event, max_size=250))
def test_engine_agrees_with_the_reference_model(c, events):
    table = make_table(c)
    ref = Reference(c["offered"], c["rebet_after_win"], c["fired_up"], c["fire_window"], c["bonus_window"])
    for ev in events:
        got = apply(table, ev)
        want = ref.end_hand() if ev == "end" else ref.roll(*ev)
        assert sorted(got) == sorted(want)
        assert view(table) == {
            "point": ref.point,
            "shooter": ref.shooter,
            "open": ref.open(),
            "marks": ref.marks(),
        }


@settings(max_examples=300, deadline=None)
@given(configs, st.lists(roll, max_size=300))
def test_cycle_properties_on_random_streams(c, rolls):
    table = make_table(c)
    rebet = c["rebet_after_win"]
    for d1, d2 in rolls:
        before = {w: table.marks(w) for w in range(pt.WAGER_COUNT)}
        point_before = table.point
        waiting_before = table.bonus_done
        got = apply(table, (d1, d2))
        names = [w for w, _, _ in got]
        # A cycle never resolves twice on one roll.
        assert len(names) == len(set(names))
        for wager, level, _ in got:
            w = pt.WAGER_NAMES.index(wager)
            assert 0 <= level <= table.config.paytables[w].top_level()
        total = d1 + d2
        if total == 7:
            # Every 7 ends every Bonus Craps and progressive cycle in action.
            for w in (pt.ALL_SMALL, pt.ALL_TALL, pt.MAKE_EM_ALL, pt.MEA_PROGRESSIVE, pt.FIRED_UP):
                assert table.marks(w) == 0
                if table.config.is_offered(w) and not waiting_before & (1 << w):
                    assert pt.WAGER_NAMES[w] in names
            if point_before == 0:
                assert "fire" not in names  # a come-out 7 never touches the Fire Bet
        for w in range(pt.WAGER_COUNT):
            offered = table.config.is_offered(w)
            if offered and pt.WAGER_NAMES[w] not in names and total != 7 and w != pt.FIRE:
                # Marks only grow within a cycle.
                assert before[w] & table.marks(w) == before[w]
        if total != 7 or not point_before:
            assert before[pt.FIRE] & table.fire_points == before[pt.FIRE]
        if not rebet:
            for name in BONUS:
                w = pt.WAGER_NAMES.index(name)
                if (name, 5 if w != pt.MAKE_EM_ALL else 10, False) in got:
                    assert not table.is_open(w)


@settings(max_examples=200, deadline=None)
@given(configs, st.lists(event, min_size=1, max_size=60))
def test_undo_restores_the_exact_prior_state(c, events):
    table = make_table(c)
    history = [snapshot(table)]
    for ev in events:
        apply(table, ev)
        history.append(snapshot(table))
    # Undo walks back at least one event, and each step lands exactly on a prior state.
    steps = 0
    while table.undo():
        steps += 1
        assert snapshot(table) == history[-1 - steps]
        assert table.res_count == 0
    assert steps >= 1
    # ... and the table carries on from there exactly as a fresh replay would.
    replayed = make_table(c)
    for ev in events[: len(events) - steps]:
        apply(replayed, ev)
    assert snapshot(replayed) == snapshot(table)


def test_fire_resolves_once_per_shooter_on_a_long_stream():
    import random

    rng = random.Random(7)
    table = Table()
    fire_resolutions = 0
    for _ in range(20000):
        got = apply(table, (rng.randint(1, 6), rng.randint(1, 6)))
        fire_resolutions += sum(1 for w, _, _ in got if w == "fire")
    # Every finished shooter resolved exactly one Fire Bet; the current one has not yet.
    assert fire_resolutions == table.shooter - 1 or (fire_resolutions == table.shooter and table.fire_state == 2)


def test_engine_wager_constants_match_the_paytables():
    from crapsboard.rules import engine

    for name in ("FIRE", "ALL_SMALL", "ALL_TALL", "MAKE_EM_ALL", "MEA_PROGRESSIVE", "FIRED_UP"):
        assert getattr(engine, "_" + name) == getattr(pt, name), name
    bits = (engine._SMALL_BIT, engine._TALL_BIT, engine._ALL_BIT, engine._MEA_BIT, engine._FIRED_BIT)
    wagers = (pt.ALL_SMALL, pt.ALL_TALL, pt.MAKE_EM_ALL, pt.MEA_PROGRESSIVE, pt.FIRED_UP)
    assert bits == tuple(1 << w for w in wagers)
