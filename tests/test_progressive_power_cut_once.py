"""One power cut of docs/progressive.md's "A power cut", fast enough for a
mutant's limits (tests/test_progressive_power_cut.py cuts at every write):
the cut falls after the roll that paid both top awards is journalled and
before its prog_hit records; the power-up that restores the roll journals
one prog_hit per game, with the wagers keyed for that cycle, before any input."""

import shutil

from test_progressive_power_cut import (
    BEFORE_THE_HIT,
    BOTH_HITS,
    KIND_PROG_HIT,
    KIND_ROLL,
    THE_HIT,
    after,
    boot,
    records,
)


def test_a_cut_between_a_roll_and_its_hits_is_made_good_by_the_next_power_up(tmp_path):
    start = str(tmp_path / "start.img")
    boot("cpython", start, keys=BEFORE_THE_HIT)
    first_seq = records(start)[-1].seq
    image = str(tmp_path / "board.img")
    for cut in range(1, 40):  # the first cut that leaves the roll without its hits
        shutil.copy(start, image)
        assert boot("cpython", image, cut=cut, keys=THE_HIT)["flash"]["power_cut"]
        stepped, found = after(image, first_seq, KIND_ROLL, KIND_PROG_HIT)
        if stepped:
            break
    assert stepped and found == []
    state = boot("cpython", image)
    assert sorted((e["game"], e["count"]) for e in state["events"] if e["event"] == "prog_hit") == [
        ("FUP", 7),
        ("MEA", 4),
    ]
    assert sorted(after(image, first_seq, KIND_ROLL, KIND_PROG_HIT)[1]) == sorted(BOTH_HITS)
