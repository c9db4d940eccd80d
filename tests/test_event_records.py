"""The app's event records (docs/board.md, "Every roll, undo, end hand…"),
written by crapsboard/table/events.py under CPython: a roll names its dice
and total; an undo names the event it took back in `undid` (its `seq`, and
`dice` and `total` for a roll, or `"event": "end_hand"`), for every pair of
dice, so each die's every face is read back as it was rolled."""

import json

import pytest

from crapsboard.rules.engine import Table
from crapsboard.table import entry as en
from crapsboard.table import events

PAIRS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]
KEY = en.VIA_NAMES.index("key")


@pytest.mark.parametrize("d1, d2", PAIRS)
def test_a_roll_names_its_dice_and_total(d1, d2):
    table = Table()
    table.roll(d1, d2)
    record = json.loads(events.event_json(table, 4, en.ACT_ROLL, d1 * 8 + d2, 1000))
    assert (record["seq"], record["t"], record["event"]) == (4, 1000, "roll")
    assert (record["dice"], record["total"]) == ([d1, d2], d1 + d2)


def test_a_roll_carries_the_shooter_the_point_and_the_table_rolls_after_it():
    # docs/board.md, the event records: a roll's record gives the table after it. Worked by
    # hand: 4 is the point, made; 10 the point, then a seven out passes the dice (shooter 2);
    # 12 on the come-out leaves no point; `rolls` counts the table's rolls.
    table = Table()
    seen = []
    for seq, (d1, d2) in enumerate([(2, 2), (1, 3), (5, 5), (3, 4), (6, 6)], 1):
        table.roll(d1, d2)
        record = json.loads(events.event_json(table, seq, en.ACT_ROLL, d1 * 8 + d2, 1000 * seq))
        seen.append((record["shooter"], record["point"], record["rolls"]))
    assert seen == [(1, 4, 1), (1, None, 2), (1, 10, 3), (2, None, 4), (2, None, 5)]


@pytest.mark.parametrize("d1, d2", PAIRS)
def test_an_undo_names_the_roll_it_took_back_with_its_dice_and_total(d1, d2):
    table = Table()
    table.roll(d1, d2)
    table.undo()
    record = json.loads(events.event_json(table, 7, en.ACT_UNDO, KEY, 4680, undone_seq=5))
    assert (record["event"], record["via"]) == ("undo", "key")
    assert record["undid"] == {"seq": 5, "event": "roll", "dice": [d1, d2], "total": d1 + d2}


def test_an_undo_of_a_hand_end_names_the_hand_end():
    table = Table()
    table.roll(2, 2)
    table.end_hand()
    table.undo()
    record = json.loads(events.event_json(table, 9, en.ACT_UNDO, KEY, 5000, undone_seq=8))
    assert record["undid"] == {"seq": 8, "event": "end_hand"}


@pytest.mark.parametrize(
    "kind, name", [(en.ACT_PROG_WAGER, "prog_wager"), (en.ACT_PROG_HIT, "prog_hit"), (en.ACT_PROG_VOID, "prog_void")]
)
@pytest.mark.parametrize("game, game_name", [(0, "MEA"), (1, "FUP")])
def test_a_progressive_record_names_its_kind_game_and_count(kind, name, game, game_name):
    # docs/progressive.md, Messages: kinds 23-25 with the count of wagers; the app's
    # arg carries the game above the count (game << 8 | count)
    record = json.loads(events.event_json(Table(), 9, kind, game << 8 | 99, 2500))
    assert record == {"seq": 9, "t": 2500, "event": name, "game": game_name, "count": 99}
    assert json.loads(events.event_json(Table(), 9, kind, game << 8 | 1, 2500))["count"] == 1


@pytest.mark.parametrize("die", range(1, 7))
def test_a_clear_names_the_die_of_the_half_roll_it_dropped(die):
    # docs/board.md, Events: a clear of a half-entered roll is an event; its arg is the
    # face keyed first, written as `die`.
    record = json.loads(events.event_json(Table(), 3, en.ACT_CLEAR, die, 2500))
    assert record == {"seq": 3, "t": 2500, "event": "clear", "die": die}


def test_an_undo_gives_the_table_it_restored_and_reverses_what_the_roll_resolved():
    # docs/board.md, the event records: an undo's record gives the table after it and
    # `reversed`, the resolutions it took back. Worked by hand: 4 is the point; the 7
    # then ends the hand (shooter 2), every wager lost; undoing it brings back shooter 1
    # on the point of 4 after 1 roll, and reverses exactly the 7's resolutions.
    table = Table()
    table.roll(2, 2)
    table.roll(3, 4)
    seven = json.loads(events.event_json(table, 2, en.ACT_ROLL, 3 * 8 + 4, 2000))
    assert (seven["shooter"], seven["point"], seven["rolls"]) == (2, None, 2)
    assert seven["resolved"] and {r["outcome"] for r in seven["resolved"]} == {"loss"}
    table.undo()
    undo = json.loads(events.event_json(table, 3, en.ACT_UNDO, KEY, 3000, undone_seq=2))
    assert (undo["shooter"], undo["point"], undo["rolls"]) == (1, 4, 1)
    assert undo["reversed"] == seven["resolved"]
