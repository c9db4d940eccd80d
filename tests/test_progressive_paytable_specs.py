"""The Make 'Em All and Fired Up Progressive paytables as docs/rules.md
transcribes them from seed 003 (the tables under "Make 'Em All Progressive
paytables" and the Fired Up one): the Fired Up sequences, each level's pay
and its Dealer Envy, a fixed amount for a 1-unit base bet once per event, or
per winning player where the table marks `*`; written in a resolution as
docs/replay.md's `envy` field says (crapsboard/rules/report.py over the
built paytables, under CPython)."""

import pytest

from crapsboard.rules import paytable as pt
from crapsboard.rules import paytables, report

FIXED = "units for a 1-unit base bet"
# numbers 5-10 -> pay, from the table (0-4 numbers lose).
PAYS = {
    "PT-BJS-MEA-01": (2, 5, 10, 50, 300, "meter"),
    "PT-BJS-MEA-02": (2, 5, 10, 50, 300, "meter"),
    "PT-BJS-MEA-03": (2, 5, 10, 50, 300, "meter"),
    "PT-BJS-MEA-04": (2, 5, 10, 50, 300, "meter"),
    "PT-BJS-MEA-05": (3, 6, 10, 40, 200, "meter"),
    "PT-BJS-MEA-06": (3, 6, 10, 40, 200, "meter"),
}
# numbers -> (amount, per) where the table gives Envy in brackets.
ENVY = {
    "PT-BJS-MEA-01": {10: (1000, "event"), 9: (200, "event")},
    "PT-BJS-MEA-02": {10: (1000, "event"), 9: (50, "player")},
    "PT-BJS-MEA-03": {10: (1000, "event"), 9: (50, "player"), 8: (5, "player"), 7: (2, "player"), 6: (1, "player")},
    "PT-BJS-MEA-04": {},
    "PT-BJS-MEA-05": {10: (1000, "event"), 9: (50, "player")},
    "PT-BJS-MEA-06": {},
}


@pytest.mark.parametrize("ident", sorted(PAYS))
def test_each_level_pays_as_the_table_says(ident):
    table = paytables.find(pt.MEA_PROGRESSIVE, ident)
    assert [report.pay_value(table.pays[n]) for n in range(11)] == [0] * 5 + list(PAYS[ident])
    assert [table.outcome(n) == pt.OUT_WIN for n in range(11)] == [False] * 5 + [True] * 6


@pytest.mark.parametrize("ident", sorted(ENVY))
def test_each_levels_dealer_envy_is_the_tables_bracket(ident):
    table = paytables.find(pt.MEA_PROGRESSIVE, ident)
    expected = [None] * 11
    for numbers, (amount, per) in ENVY[ident].items():
        expected[numbers] = {"amount": amount, "unit": FIXED, "per": per}
    assert [report.envy_record(table.envy[n]) for n in range(11)] == expected


def test_the_six_tables_of_each_game_are_those_of_the_seed():
    assert sorted(paytables.ids(pt.MEA_PROGRESSIVE)) == sorted(PAYS)
    assert sorted(paytables.ids(pt.FIRED_UP)) == sorted(FUP)


# Fired Up: matching rolls 0-5 -> pay ("—": the table stops at 4), envy, the sequences.
FUP = {
    "PT-BJS-FUP-01": ((0, 1, 5, 40, 300, "meter"), {5: (1000, "event"), 4: (100, "event")}, ("65432", "89ABC")),
    "PT-BJS-FUP-02": ((0, 1, 5, 40, 300, "meter"), {}, ("65432", "89ABC")),
    "PT-BJS-FUP-03": ((0, 2, 20, 200, "meter"), {4: (1000, "event"), 3: (200, "event")}, ("5432",)),
    "PT-BJS-FUP-04": ((0, 2, 20, 200, "meter"), {}, ("5432",)),
    "PT-BJS-FUP-05": ((0, 2, 20, 200, 1000, "meter"), {5: (2000, "event"), 4: (60, "player")}, ("89ABC",)),
    "PT-BJS-FUP-06": ((0, 3, 6, 40, 200, "meter"), {}, ("89ABC",)),
}


@pytest.mark.parametrize("ident", sorted(FUP))
def test_each_fired_up_table_is_the_docs_sequences_pays_and_envy(ident):
    pays, envy, sequences = FUP[ident]
    table = paytables.find(pt.FIRED_UP, ident)
    assert [report.pay_value(p) for p in table.pays] == list(pays)
    expected = [None] * len(pays)
    for rolls, (amount, per) in envy.items():
        expected[rolls] = {"amount": amount, "unit": FIXED, "per": per}
    assert [report.envy_record(e) for e in table.envy] == expected
    assert table.sequences == tuple(tuple(int(c, 16) for c in seq) for seq in sequences)
    # One matching roll on FUP-01 and FUP-02 is the stake back: a push.
    assert table.outcome(1) == (pt.OUT_PUSH if pays[1] == 1 else pt.OUT_WIN)


# docs/rules.md, "Fire Bet paytables" (seed 000, Exhibit 2): id -> (unit, pays for 3, 4, 5, 6 points)
FIRE = {
    "1": ("for 1", (0, 25, 250, 1000)),
    "2": ("to 1", (0, 24, 249, 999)),
    "3": ("for 1", (7, 30, 150, 300)),
    "4": ("to 1", (6, 29, 149, 299)),
    "5": ("for 1", (0, 40, 200, 500)),
    "6": ("to 1", (0, 39, 199, 499)),
}


@pytest.mark.parametrize("ident", sorted(FIRE))
def test_each_fire_bet_table_is_the_docs(ident):
    unit, pays = FIRE[ident]
    table = paytables.find(pt.FIRE, ident)
    assert pt.UNIT_NAMES[table.unit] == unit
    assert [report.pay_value(table.pays[n]) for n in range(7)] == [0, 0, 0] + list(pays)
