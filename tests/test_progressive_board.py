"""The board's side of the linked progressive (docs/progressive.md, docs/keys.md):
the dealer's count of progressive wagers (`#`, game, 1-99, `#`), refused while
seed 003 does not take the wager or the floor's meter is not open, journalled
as kind 23 and shown on `mea.open` / `fired.open` while in action; a top award
journalled as kind 24 with the count keyed for that cycle; all restored after a
power cut. The same hand-worked vectors on CPython and the MicroPython unix port."""

import pytest

from sim.session import Session

RUNTIMES = ("cpython", "micropython")
# MEA Progressive: the ten numbers once each, no 7 and no repeat (2 3 4 5 6 8 9 10 11 12).
TEN_NUMBERS = "1 1 1 2 2 2 2 3 3 3 4 4 4 5 5 5 5 6 6 6"
# Fired Up (PT-BJS-FUP-01): 6-5-4-3-2, the whole sequence.
FIRED_SEQUENCE = "3 3 2 3 2 2 1 2 1 1"


def events(state):
    return [(e["event"], e.get("reason") or e.get("count")) for e in state["events"]]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_count_is_refused_while_the_floor_was_never_heard_and_nothing_changes(runtime):
    with Session(runtime) as s:
        state = s.send("# 1 5 #")
        assert events(state) == [("error", "prog_closed")]
        assert state["progressive"]["MEA"] == {
            "state": "closed",
            "amount": "$0.00",
            "cents": 0,
            "wagers": 0,
            "closed": "no word from the floor for 6 s",
        }
        assert state["lamps"]["mea.open"]["color"] == "#00ff00"  # no floor: the window as before
        assert events(s.send("3 4")) == [("roll", None)]  # `#` ended it: dice again


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_counts_open_add_up_to_99_and_bad_ones_are_refused(runtime):
    with Session(runtime) as s:
        state = s.send("floor:MEA:open:3779094 # 1 5 #")
        assert events(state) == [("prog_wager", 5)]
        assert state["progressive"]["MEA"] == {"state": "open", "amount": "$37,790.94", "cents": 3779094, "wagers": 5}
        assert state["lamps"]["mea.open"] == {"on": True, "color": "#0040ff", "blink": False}  # blue: in action
        state = s.send("# 1 9 4 # # 1 9 5 #")  # 5 + 94 = 99 taken; 99 + 95 refused
        assert events(state) == [("prog_wager", 94), ("error", "prog_count")]
        assert state["progressive"]["MEA"]["wagers"] == 99
        state = s.send("# 2 0 # # 2 # # # # 1 1 2 3 4 5 6 # # 3 #")
        assert events(state) == [("error", "prog_count")] * 4 + [("error", "unexpected_key")]
        assert state["hand"]["rolls"] == 0  # the digits after a cut-short count were dropped, never dice
        assert state["progressive"]["MEA"]["wagers"] == 99 and state["progressive"]["FUP"]["wagers"] == 0


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_closed_pending_stale_and_a_begun_cycle_refuse_the_count(runtime):
    with Session(runtime) as s:
        state = s.send("floor:MEA:pending:100000 # 1 3 #")
        assert events(state) == [("error", "prog_closed")]
        assert state["lamps"]["mea.open"] == {"on": True, "color": "#a000ff", "blink": True}
        state = s.send("floor:MEA:open:100000 wait:5000 # 1 3 #")  # 5 s + the keys: under 6 s
        assert events(state) == [("prog_wager", 3)]
        state = s.send("wait:6000")
        assert state["progressive"]["MEA"]["state"] == "closed"
        assert state["lamps"]["mea.open"]["color"] == "#0040ff"  # the 3 keyed still in action
        state = s.send("floor:FUP:open:5000 floor:MEA:open:5000 2 2")  # MEA's cycle has begun (4)
        assert events(s.send("# 1 2 #")) == [("error", "prog_window")]
        assert events(s.send("floor:MEA:closed:5000 # 2 2 #")) == [("prog_wager", 2)]  # FUP: 4 starts no sequence yet
        state = s.send("wait:6200")
        assert state["lamps"]["mea.open"]["color"] == "#0040ff"
        state = s.send("3 4")  # a 7: MEA's wagers lose, its window opens; FUP's mismatch ends them
        assert state["progressive"]["MEA"]["wagers"] == 0 and state["progressive"]["FUP"]["wagers"] == 0
        assert state["lamps"]["mea.open"] == {"on": True, "color": "#ff0000", "blink": False}  # closed: red


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_top_award_journals_the_wagers_keyed_for_that_cycle(runtime):
    with Session(runtime) as s:
        s.send("floor:MEA:open:100000 floor:FUP:open:100000 # 1 4 # # 2 7 #")
        state = s.send(FIRED_SEQUENCE)
        assert [e for e in events(state) if e[0] != "roll"] == [("prog_hit", 7)]
        assert state["progressive"]["FUP"]["wagers"] == 0  # the cycle ended with the award
        state = s.send("3 4 floor:MEA:open:100000 # 1 4 #")  # a 7 ends MEA's cycle (6 5 4 3 2), then 4 keyed afresh
        assert [e for e in events(state) if e[0] != "roll"] == [("prog_wager", 4)]
        state = s.send(TEN_NUMBERS)
        assert [e for e in events(state) if e[0] != "roll"] == [("prog_hit", 4)]
        # No wagers keyed: a top award journals no hit.
        state = s.send("3 4 " + TEN_NUMBERS)
        assert [e for e in events(state) if e[0] != "roll"] == []


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_undo_puts_a_cycle_and_its_wagers_back(runtime):
    with Session(runtime) as s:
        state = s.send("floor:MEA:open:100000 # 1 6 # 2 2 3 4")
        assert state["progressive"]["MEA"]["wagers"] == 0  # the 7 ended them
        state = s.send("key:on undo key:off")
        assert state["progressive"]["MEA"]["wagers"] == 6


def test_the_count_and_its_records_survive_a_power_cut(tmp_path):
    image = str(tmp_path / "board.img")
    with Session("micropython", flash=image) as s:
        s.send("floor:MEA:open:100000 floor:FUP:open:100000 # 1 5 # # 1 2 # # 2 9 # 2 2")
    with Session("micropython", flash=image) as s:
        state = s.send("wait:100")
        assert state["progressive"]["MEA"]["wagers"] == 7  # 5 + 2 before the roll, in action on 4
        assert state["progressive"]["FUP"]["wagers"] == 0  # 4 started no Fired Up sequence: lost
        assert state["progressive"]["MEA"]["state"] == "closed"  # the floor's word is not kept


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_pay_rule_and_why_closed_are_shown_as_the_board_says_them(runtime):
    from sim.tui.text import progressive_line

    with Session(runtime) as s:
        state = s.send("wait:0")
        assert state["progressive"]["MEA"]["closed"] == "no word from the floor for 6 s"
        assert progressive_line(state) == ""  # no floor, no wagers: nothing under the board
        state = s.send("floor:MEA:open:100000:shared floor:FUP:closed:5000:positional # 1 2 #")
        assert state["progressive"]["MEA"] == {
            "state": "open",
            "amount": "$1,000.00",
            "cents": 100000,
            "wagers": 2,
            "pays": "shared by winning wagers",
        }
        fup = state["progressive"]["FUP"]
        assert (fup["pays"], fup["closed"]) == ("each winning wager in turn", "closed by the floor")
        assert progressive_line(state) == (
            "MEA $1,000.00 open, shared by winning wagers (2 wagers in action) · FUP $50.00 closed: closed by the floor"
        )
        state = s.send("floor:MEA:open:100000 wait:6000")  # said without a rule: an older gateway
        assert "pays" not in state["progressive"]["MEA"]
        assert state["progressive"]["MEA"]["closed"] == "no word from the floor for 6 s"
        assert progressive_line(state) == ("MEA $1,000.00 closed: no word from the floor for 6 s (2 wagers in action)")


def test_a_bad_pay_rule_in_a_key_script_is_refused_with_nothing_run():
    from sim.session import KeyScriptError

    with Session("cpython") as s:
        with pytest.raises(KeyScriptError, match="RULE shared or positional"):
            s.send("floor:MEA:open:100000:equal # 1 2 #")
        assert s.send("wait:0")["progressive"]["MEA"]["state"] == "closed"


def test_the_progressive_records_payloads_are_spelled_as_docs_progressive_gives_them():
    from crapsboard.table import progressive as pg

    assert pg.payload(pg.MEA) == b'{"game": "MEA"}'  # prog_hit
    assert pg.payload(pg.FUP, b"roll", 12) == b'{"game": "FUP", "roll": 12}'  # prog_wager
    assert pg.payload(pg.MEA, b"hit", 7) == b'{"game": "MEA", "hit": 7}'  # prog_void


def _play(dice_text, keyed):
    """A real Table through the dice of `dice_text` with `keyed` = {game: (count,
    roll it was keyed before)}; the Progressive and the HOLD after the last roll."""
    from crapsboard.rules.engine import Table
    from crapsboard.table import progressive as pg
    from crapsboard.table.hold_state import HoldState

    table, prog, hold = Table(), pg.Progressive(), HoldState()
    faces = [int(f) for f in dice_text.split()]
    for n in range(0, len(faces), 2):
        for game, (count, at) in keyed.items():
            if at == n // 2:
                assert prog.add(table, game, count)
        points = table.fire_points
        table.roll(faces[n], faces[n + 1])
        hold.rolled(table, points, 1, n // 2 + 1)
    for game, (count, at) in keyed.items():
        if at == len(faces) // 2:  # keyed after the last roll
            assert prog.add(table, game, count)
    return table, prog, hold


def test_a_restored_top_award_is_found_with_the_wagers_keyed_for_its_cycle():
    # docs/progressive.md, "A power cut": the roll is restored without its prog_hit
    # records; the hits are found again from the HOLD and the keyings kept
    from crapsboard.table import progressive as pg

    table, prog, hold = _play(TEN_NUMBERS, {pg.MEA: (4, 0)})
    assert prog.hits_restored(table, hold) == [(pg.MEA, 4)]
    table, prog, hold = _play(FIRED_SEQUENCE, {pg.FUP: (7, 0), pg.MEA: (2, 0)})
    assert prog.hits_restored(table, hold) == [(pg.FUP, 7)]  # MEA: 5 numbers, no award
    table, prog, hold = _play(TEN_NUMBERS, {})
    assert prog.hits_restored(table, hold) == []  # an award with no wager keyed: no hit
    table, prog, hold = _play("3 4 " + TEN_NUMBERS, {pg.MEA: (4, 0)})
    assert prog.hits_restored(table, hold) == []  # keyed for the cycle the 7 ended
    table, prog, hold = _play("3 4 " + TEN_NUMBERS, {pg.MEA: (4, 1)})
    assert prog.hits_restored(table, hold) == [(pg.MEA, 4)]
    table, prog, hold = _play("2 2", {pg.MEA: (3, 1), pg.FUP: (5, 1)})
    assert prog.hits_restored(table, hold) == []  # keyed after a roll that paid nothing


def test_the_keyings_the_journal_restored_are_taken_with_their_roll():
    from crapsboard.table import progressive as pg

    table, _, _ = _play("3 4 3 4 2 2", {})  # three rolls: MEA's cycle has one number (4)
    prog = pg.Progressive()
    prog.restore([(6, 2), (9, 1)])  # MEA keyed before the third roll, FUP before the second
    assert (prog.count, prog.roll) == ([6, 9], [2, 1])
    assert prog.wagers(table, pg.MEA) == 6  # one roll since, one number marked: in action
    assert prog.wagers(table, pg.FUP) == 0  # its cycle ended with the 4 on the third roll
    prog.restore([None, None])  # nothing found: the keyings stay as they were
    assert (prog.count, prog.roll) == ([6, 9], [2, 1])


@pytest.mark.parametrize(
    "cents, said",
    [
        (0, "$0.00"),
        (5, "$0.05"),
        (12_345, "$123.45"),  # three digits: one group, no comma before it
        (100_030, "$1,000.30"),
        (12_345_678, "$123,456.78"),
        (3_779_094, "$37,790.94"),
        (123_456_789, "$1,234,567.89"),
        (123_456_789_012, "$1,234,567,890.12"),  # four groups: each new one goes in front
    ],
)
def test_an_amount_is_stated_in_dollars_grouped_by_thousands(cents, said):
    # docs/progressive.md: the board states the meter as "$37,790.94" (link status, progressive).
    from crapsboard.table import progressive as pg

    assert pg.currency(cents) == said


def test_the_meter_states_are_numbered_as_the_link_names_them():
    # The link keeps a `progressive` request's state as its index in STATE_NAMES; the app
    # and the lamps compare it with S_*: one numbering (docs/progressive.md, Messages).
    from crapsboard.table import progressive as pg

    assert pg.STATE_NAMES == ("closed", "open", "locked", "pending")
    assert (pg.S_CLOSED, pg.S_OPEN, pg.S_LOCKED, pg.S_PENDING) == (0, 1, 2, 3)


def test_a_meter_the_floor_last_spoke_of_6_s_ago_is_closed():
    # docs/progressive.md, "Times": a table shows the progressive closed 6 s after
    # the last fresh meter; at 5.999 s it is still as the floor said.
    from crapsboard.table import progressive as pg

    prog = pg.Progressive()
    prog.told(pg.MEA, pg.S_OPEN, 100_000, 1000)
    assert prog.state(pg.MEA, 1000 + 5999) == pg.S_OPEN
    assert prog.state(pg.MEA, 1000 + 6000) == pg.S_CLOSED
    assert prog.state(pg.FUP, 0) == pg.S_CLOSED  # never heard of
