"""A progressive hit survives a power cut (issue 22; docs/progressive.md, "A
power cut"): a roll that pays Make 'Em All Progressive's and Fired Up's top
awards at once is journalled as the roll and then one prog_hit per game. The
power is cut at every flash write of that roll, and again at every write of
the power-up after it (which journals the hits the cut left out); after each,
the journal holds the roll with exactly one prog_hit per game after it, with
the wagers keyed for that cycle, or neither the roll nor a hit. The same on
CPython and the MicroPython unix port, each with its own littlefs."""

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
HIT_DICE = 6 * 8 + 6  # the roll record's arg


def records(image):
    return read_image(image)[0]


def progressive_after_the_hit(image, first_seq):
    """The roll 6-6 if the journal holds it, and (game, wagers) of each prog_hit
    record after `first_seq`."""
    rolled = False
    hits = []
    for r in records(image):
        if r.seq <= first_seq:
            continue
        if r.kind == KIND_ROLL:
            assert r.arg == HIT_DICE and not rolled, "one roll only: the hit"
            rolled = True
        elif r.kind == KIND_PROG_HIT:
            assert rolled, "a prog_hit before its roll"
            hits.append((r.payload.decode(), r.arg))
    return rolled, hits


def boot(runtime, image, cut=0, keys="wait:100"):
    with Session(runtime, flash=image, cut_after=cut) as s:
        return s.send(keys)


BOTH_HITS = [('{"game": "FUP"}', FUP_WAGERS), ('{"game": "MEA"}', MEA_WAGERS)]


def check(image, first_seq, complete=True):
    """After a power-up that ran to the end (`complete`): the roll and both
    hits, or neither. After one cut short: no hit twice, none with another count."""
    rolled, hits = progressive_after_the_hit(image, first_seq)
    if not rolled:
        assert hits == []
    elif complete:
        assert sorted(hits) == BOTH_HITS
    else:
        assert len(set(hits)) == len(hits) and set(hits) <= set(BOTH_HITS)
    return rolled


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_cut_at_any_write_of_a_double_hit_or_of_the_power_up_after_it_keeps_each_hit_once(runtime, tmp_path):
    start = str(tmp_path / "start.img")
    state = boot(runtime, start, keys=BEFORE_THE_HIT)
    assert [e.get("count") for e in state["events"] if e["event"] == "prog_wager"] == [MEA_WAGERS, FUP_WAGERS]
    first_seq = state["flash"]["journal_seq"]
    # Uncut, the roll journals both hits, MEA's first (the order of its resolutions).
    uncut = str(tmp_path / "uncut.img")
    shutil.copy(start, uncut)
    state = boot(runtime, uncut, keys=THE_HIT)
    assert [(e["event"], e.get("game"), e.get("count")) for e in state["events"]] == [
        ("roll", None, None),
        ("prog_hit", "MEA", MEA_WAGERS),
        ("prog_hit", "FUP", FUP_WAGERS),
    ]
    writes = state["flash"]["writes"]
    repaired = rolled_only = 0
    cut_at_roll = str(tmp_path / "cut.img")
    for k in range(1, writes + 1):
        shutil.copy(start, cut_at_roll)
        assert boot(runtime, cut_at_roll, cut=k, keys=THE_HIT)["flash"]["power_cut"]
        check(cut_at_roll, first_seq, complete=False)
        _, hits_at_cut = progressive_after_the_hit(cut_at_roll, first_seq)
        # The power-up after it, cut at each of its writes in turn, then one uncut.
        cut_again = str(tmp_path / "again.img")
        for j in range(1, 100):
            shutil.copy(cut_at_roll, cut_again)
            cut = boot(runtime, cut_again, cut=j)["flash"]["power_cut"]
            check(cut_again, first_seq, complete=not cut)
            state = boot(runtime, cut_again)
            assert not state["flash"]["power_cut"] and state["flash"]["journal_fault"] is None
            if check(cut_again, first_seq):
                assert state["progressive"]["MEA"]["wagers"] == 0 and state["progressive"]["FUP"]["wagers"] == 0
            if not cut:
                break
        else:
            raise AssertionError("the power-up never finished uncut")
        state = boot(runtime, cut_at_roll)
        journalled = [(e["game"], e["count"]) for e in state["events"] if e["event"] == "prog_hit"]
        if check(cut_at_roll, first_seq):
            rolled_only += not hits_at_cut
            repaired += bool(journalled)
            # The power-up journals exactly the hits the cut left out.
            assert len(journalled) + len(hits_at_cut) == 2
        else:
            assert journalled == []
    assert repaired >= 2  # cuts fell after the roll and after MEA's hit
    assert rolled_only >= 1


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
