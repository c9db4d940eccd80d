"""A progressive hit, and its void, survive a power cut
(docs/progressive.md, "A power cut" and "Undo"): a roll that pays Make 'Em All
Progressive's and Fired Up's top awards at once is journalled as the roll and
then one prog_hit per game; an undo of it as the undo and then one prog_void
per hit. The power is cut at every flash write of the roll (of the undo), and
again at every write of the power-up after each cut (which journals what the
cut left out); after each, the journal holds the roll with exactly one
prog_hit per game after it, with the wagers keyed for that cycle (the undo
with one prog_void per hit, naming its seq), or neither the roll (the undo)
nor a record of it. The same on CPython and the MicroPython unix port, each
with its own littlefs."""

import itertools
import shutil

import pytest

from host_tools.journal_log import read_image
from sim.session import Session

RUNTIMES = ("cpython", "micropython")
KIND_ROLL, KIND_PROG_HIT = 1, 24
MEA_WAGERS, FUP_WAGERS = 4, 7
OPEN = "floor:MEA:open:100000 floor:FUP:open:100000 "
# MEA: 2 6 3 4 5 8 9 10 11, nine numbers, no repeat, no 7 (4 wagers keyed
# before the first). Fired Up (FUP-01): 2 and 6-3 end cycles, 4 and 5 start
# no sequence, so its cycle is idle after the 5th roll: 7 wagers keyed there,
# then 8 9 10 11 of 8-9-10-11-12.
BEFORE_THE_HIT = OPEN + "# 1 4 # 1 1 3 3 1 2 2 2 2 3 " + OPEN + "# 2 7 # 4 4 4 5 5 5 5 6"
THE_HIT = "6 6"  # 12: MEA's tenth number and Fired Up's fifth


KIND_UNDO, KIND_PROG_VOID = 2, 25
UNDO = "key:on undo key:off"
BOTH_HITS = [('{"game": "FUP"}', FUP_WAGERS), ('{"game": "MEA"}', MEA_WAGERS)]


def records(image):
    return read_image(image)[0]


def boot(runtime, image, cut=0, keys="wait:100"):
    with Session(runtime, flash=image, cut_after=cut) as s:
        return s.send(keys)


def after(image, first_seq, step_kind, kind):
    """Whether the journal holds a record of `step_kind` after `first_seq`
    (one at most), and (payload, arg) of each record of `kind` after it."""
    stepped = False
    found = []
    for r in records(image):
        if r.seq <= first_seq:
            continue
        if r.kind == step_kind:
            assert not stepped, "one step only"
            stepped = True
        elif r.kind == kind:
            assert stepped, "a progressive record before its step"
            found.append((r.payload.decode(), r.arg))
    return stepped, found


def check(image, first_seq, step_kind, kind, expected, complete):
    """After a power-up that ran to the end (`complete`): the step and every
    expected record, or neither. Cut short: none twice, none unexpected."""
    stepped, found = after(image, first_seq, step_kind, kind)
    if not stepped:
        assert found == []
    elif complete:
        assert sorted(found) == sorted(expected)
    else:
        assert len(set(found)) == len(found) and set(found) <= set(expected)
    return stepped, found


def cut_at_every_write(runtime, tmp_path, start, keys, writes, check_image):
    """Play `keys` on a copy of the flash image `start` with the power cut at
    each of the `writes` in turn, then power up uncut; `check_image(image,
    complete)` after each. A cut that left the step without both its records
    leaves the power-up work to do: then also power up with a cut at each of
    its writes in turn, each followed by an uncut power-up. Returns, per cut
    in `keys`, what the image held at the cut, the events of the uncut
    power-up straight after it and how many of the power-up's writes were cut."""
    at_cut = str(tmp_path / "cut.img")
    again = str(tmp_path / "again.img")
    outcomes = []
    for k in writes:
        shutil.copy(start, at_cut)
        assert boot(runtime, at_cut, cut=k, keys=keys)["flash"]["power_cut"]
        stepped, found = held = check_image(at_cut, False)
        power_up_cuts = 0
        if stepped and len(found) < 2:
            power_up_cuts = cut_at_every_write_of_the_power_up(runtime, at_cut, again, check_image)
        state = boot(runtime, at_cut)
        check_image(at_cut, True)
        outcomes.append((held, state["events"], power_up_cuts))
    return outcomes


def cut_at_every_write_of_the_power_up(runtime, image, copy, check_image):
    """Power up a copy of `image` with the power cut at each of its writes in
    turn, each cut followed by an uncut power-up and `check_image(copy, True)`.
    Returns how many writes it cut."""
    for j in itertools.count(1):
        shutil.copy(image, copy)
        cut = boot(runtime, copy, cut=j)["flash"]["power_cut"]
        state = boot(runtime, copy)
        assert not state["flash"]["power_cut"] and state["flash"]["journal_fault"] is None
        check_image(copy, True)
        if not cut:
            return j - 1


def power_ups_complete(outcomes, name):
    """Of cut_at_every_write's outcomes: the power-up after each cut journals
    exactly the records `name` the cut left out, and each of its writes was
    cut too (two a record). Returns how many cuts left records out, and how
    many of those left the step without any."""
    repaired = step_only = 0
    for (stepped, at_cut), events, power_up_cuts in outcomes:
        journalled = [e for e in events if e["event"] == name]
        assert len(journalled) == (2 - len(at_cut) if stepped else 0)
        assert power_up_cuts >= 2 * len(journalled)
        repaired += bool(journalled)
        step_only += stepped and not at_cut
    return repaired, step_only


def progressive_events(state, name):
    return [(e["game"], e["count"]) for e in state["events"] if e["event"] == name]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_cut_at_any_write_of_a_double_hit_or_of_the_power_up_after_it_keeps_each_hit_once(runtime, tmp_path):
    start = str(tmp_path / "start.img")
    state = boot(runtime, start, keys=BEFORE_THE_HIT)
    assert progressive_events(state, "prog_wager") == [("MEA", MEA_WAGERS), ("FUP", FUP_WAGERS)]
    first_seq = state["flash"]["journal_seq"]
    # Uncut, the roll journals both hits, MEA's first (the order of its resolutions).
    uncut = str(tmp_path / "uncut.img")
    shutil.copy(start, uncut)
    state = boot(runtime, uncut, keys=THE_HIT)
    assert [e["event"] for e in state["events"]] == ["roll", "prog_hit", "prog_hit"]
    assert progressive_events(state, "prog_hit") == [("MEA", MEA_WAGERS), ("FUP", FUP_WAGERS)]

    def check_image(image, complete):
        return check(image, first_seq, KIND_ROLL, KIND_PROG_HIT, BOTH_HITS, complete)

    writes = range(1, state["flash"]["writes"] + 1)
    outcomes = cut_at_every_write(runtime, tmp_path, start, THE_HIT, writes, check_image)
    repaired, rolled_only = power_ups_complete(outcomes, "prog_hit")
    assert repaired >= 2  # cuts fell after the roll and after MEA's hit
    assert rolled_only >= 1


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_cut_at_any_write_of_the_undo_of_a_double_hit_or_of_the_power_up_after_it_voids_each_hit_once(
    runtime, tmp_path
):
    # Undo never reaches back across a restart: the roll and its undo are one power-up.
    start = str(tmp_path / "start.img")
    boot(runtime, start, keys=BEFORE_THE_HIT)
    uncut = str(tmp_path / "uncut.img")
    shutil.copy(start, uncut)
    hit_writes = boot(runtime, uncut, keys=THE_HIT)["flash"]["writes"]
    shutil.copy(start, uncut)
    state = boot(runtime, uncut, keys=THE_HIT + " " + UNDO)
    events = [e["event"] for e in state["events"]]
    assert events == [
        "roll",
        "prog_hit",
        "prog_hit",
        "supervisor_on",
        "undo",
        "prog_void",
        "prog_void",
        "supervisor_off",
    ]
    # Each void names its hit's seq, in the hits' order.
    assert progressive_events(state, "prog_void") == [("MEA", MEA_WAGERS), ("FUP", FUP_WAGERS)]
    hits = [r for r in records(uncut) if r.kind == KIND_PROG_HIT]
    voids = [('{"game": "MEA", "hit": %d}' % hits[0].seq, MEA_WAGERS)]
    voids += [('{"game": "FUP", "hit": %d}' % hits[1].seq, FUP_WAGERS)]
    assert [(r.payload.decode(), r.arg) for r in records(uncut) if r.kind == KIND_PROG_VOID] == voids
    assert state["progressive"]["MEA"]["wagers"] == MEA_WAGERS and state["progressive"]["FUP"]["wagers"] == FUP_WAGERS

    def check_image(image, complete):
        return check(image, hits[1].seq, KIND_UNDO, KIND_PROG_VOID, voids, complete)

    # The cuts in the roll's own writes are the test above.
    writes = range(hit_writes + 1, state["flash"]["writes"] + 1)
    outcomes = cut_at_every_write(runtime, tmp_path, start, THE_HIT + " " + UNDO, writes, check_image)
    repaired, undone_only = power_ups_complete(outcomes, "prog_void")
    assert repaired >= 2  # cuts fell after the undo and after MEA's void
    assert undone_only >= 1


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_undo_voids_the_hits_of_the_roll_it_takes_back_and_no_other(runtime, tmp_path):
    image = str(tmp_path / "board.img")
    # The hit, a 7 after it; undo the 7 (no void), then the hit (its two voids);
    # the same roll again hits again, and its undo voids the new hits.
    state = boot(runtime, image, keys=BEFORE_THE_HIT + " " + THE_HIT + " 3 4 key:on undo undo key:off")
    assert [(e["event"], e.get("game")) for e in state["events"] if e["event"] not in ("roll", "prog_wager")] == [
        ("prog_hit", "MEA"),
        ("prog_hit", "FUP"),
        ("supervisor_on", None),
        ("undo", None),
        ("undo", None),
        ("prog_void", "MEA"),
        ("prog_void", "FUP"),
        ("supervisor_off", None),
    ]
    assert state["progressive"]["MEA"]["wagers"] == MEA_WAGERS  # in action again, for the roll to come
    state = boot(runtime, image, keys=THE_HIT + " " + UNDO)
    assert (
        progressive_events(state, "prog_hit")
        == progressive_events(state, "prog_void")
        == [
            ("MEA", MEA_WAGERS),
            ("FUP", FUP_WAGERS),
        ]
    )
    journal = records(image)
    hits = [r.seq for r in journal if r.kind == KIND_PROG_HIT]
    voided = [r.payload.decode() for r in journal if r.kind == KIND_PROG_VOID]
    assert len(hits) == 4 and len(voided) == 4
    assert voided == ['{"game": "%s", "hit": %d}' % (game, seq) for game, seq in zip(["MEA", "FUP"] * 2, hits)]
    # Each void follows the undo that took its roll back (the 7's undo is the first).
    _, hit_undo, again_undo = [r.seq for r in journal if r.kind == KIND_UNDO]
    voids = [r.seq for r in journal if r.kind == KIND_PROG_VOID]
    assert voids == [hit_undo + 1, hit_undo + 2, again_undo + 1, again_undo + 2]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_without_a_journal_an_undo_still_shows_the_voids(runtime):
    with Session(runtime) as s:
        state = s.send(BEFORE_THE_HIT + " " + THE_HIT + " key:on undo key:off")
    assert progressive_events(state, "prog_void") == [("MEA", MEA_WAGERS), ("FUP", FUP_WAGERS)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_undo_voids_the_last_rolls_hits_not_an_earlier_rolls(runtime):
    # Two rolls with hits in one session (MEA's 4 and Fired Up's 7 at THE_HIT, then MEA's 3
    # at its next ten numbers): the undo takes back the later roll and voids its hit alone.
    ten = "1 1 3 3 1 2 2 2 2 3 4 4 4 5 5 5 5 6 6 6"
    with Session(runtime) as s:
        state = s.send(BEFORE_THE_HIT + " " + THE_HIT + " " + OPEN + "# 1 3 # " + ten + " " + UNDO)
    assert progressive_events(state, "prog_hit") == [("MEA", MEA_WAGERS), ("FUP", FUP_WAGERS), ("MEA", 3)]
    assert progressive_events(state, "prog_void") == [("MEA", 3)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_restored_roll_whose_hits_are_all_journalled_journals_none_again(runtime, tmp_path):
    image = str(tmp_path / "board.img")
    boot(runtime, image, keys=BEFORE_THE_HIT + " " + THE_HIT)
    state = boot(runtime, image)
    assert [e for e in state["events"] if e["event"] == "prog_hit"] == []
    assert sum(r.kind == KIND_PROG_HIT for r in records(image)) == 2


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_top_award_with_no_wagers_in_action_is_no_hit_after_a_restart_either(runtime, tmp_path):
    # MEA's 4 wagers were keyed for a cycle a 7 ended; the next cycle wins unwagered.
    image = str(tmp_path / "board.img")
    ten = "1 1 3 3 1 2 2 2 2 3 4 4 4 5 5 5 5 6 6 6"
    state = boot(runtime, image, cut=0, keys=OPEN + "# 1 4 # 3 4 " + ten)
    assert [e for e in state["events"] if e["event"] == "prog_hit"] == []
    state = boot(runtime, image)
    assert [e for e in state["events"] if e["event"] == "prog_hit"] == []
    assert sum(r.kind == KIND_PROG_HIT for r in records(image)) == 0


def test_every_fired_up_sequence_has_a_lamp_per_roll():
    # After a restart the board counts a Fired Up cycle's rolls by the lamps
    # its top award lit (table/progressive.hits_restored): one number a roll,
    # none twice, in every paytable of docs/rules.md.
    from crapsboard.rules import paytables

    sequences = [s for t in paytables.tables(paytables.FIRED_UP) for s in t.sequences]
    assert sorted(map(tuple, sequences)) == [(5, 4, 3, 2)] * 2 + [(6, 5, 4, 3, 2)] * 2 + [(8, 9, 10, 11, 12)] * 4
    assert all(len(set(s)) == len(s) for s in sequences)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_rolls_after_one_games_hit_are_taken_and_undone_as_any_other(runtime, tmp_path):
    # A hit of Make 'Em All alone (no Fired Up wagers keyed), then two rolls: each is taken,
    # and an undo takes the last back with no void (the hit was an earlier roll's).
    image = str(tmp_path / "board.img")
    keys = OPEN + "# 1 4 # 1 1 3 3 1 2 2 2 2 3 4 4 4 5 5 5 5 6 " + THE_HIT + " 3 4 2 5 key:on undo key:off"
    state = boot(runtime, image, keys=keys)
    events = [(e["event"], e.get("game")) for e in state["events"] if e["event"] not in ("roll", "supervisor_on")]
    assert events == [("prog_wager", "MEA"), ("prog_hit", "MEA"), ("undo", None), ("supervisor_off", None)]
    assert [e["dice"] for e in state["events"] if e["event"] == "roll"][-3:] == [[6, 6], [3, 4], [2, 5]]
