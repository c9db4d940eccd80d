"""No phantom rolls from the PIN key (RULES/keys: supervisor PIN): after a
refused or cut-short PIN entry, the digits typed up to #, * or the timeout
(10 s) are PIN digits and are dropped, never dice. On both runtimes."""

import json
import os
import re

import pytest

from crapsboard.table import entry as en
from sim.pin_hash import config_entry
from sim.session import Session

RUNTIMES = ("cpython", "micropython")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN_CONFIG = json.dumps({"supervisor_pin": config_entry("2468", b"pin entry tests")})


def kinds(state):
    return [(e["event"], e.get("reason")) for e in state["events"]]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_pin_2468_enter_without_a_pin_records_no_roll(runtime):
    with Session(runtime) as s:
        state = s.send("pin 2 4 6 8 enter")
        assert kinds(state) == [("error", "no_pin")]
        assert state["hand"]["rolls"] == 0 and state["hand"]["point"] is None
        state = s.send("end")  # the docs' example goes on: refused, nothing ended
        assert kinds(state) == [("error", "not_authorised")] and state["hand"]["shooter"] == 1
        state = s.send("3 4")  # after #, two die presses are a roll again
        assert kinds(state) == [("roll", None)]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_pin_cut_short_by_another_key_drops_its_remaining_digits(runtime):
    with Session(runtime, config_text=PIN_CONFIG) as s:
        state = s.send("pin 2 4 undo 6 8 enter 3 4")
    assert kinds(state) == [("error", "unexpected_key"), ("roll", None)]
    assert [e["dice"] for e in state["events"] if e["event"] == "roll"] == [[3, 4]]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_too_long_pin_drops_the_digits_after_it_until_clear(runtime):
    with Session(runtime, config_text=PIN_CONFIG) as s:
        state = s.send("pin 1 2 3 4 5 6 7 8 9 2 4 clear 5 5")
    assert kinds(state) == [("error", "pin_too_long"), ("roll", None)]
    assert state["hand"]["point"] == 10


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_after_the_timeout_digits_are_dice_again(runtime):
    with Session(runtime) as s:
        state = s.send("pin wait:10000 2 4")
    assert kinds(state) == [("error", "no_pin"), ("roll", None)]


def test_a_pin_key_refused_for_a_pending_roll_drops_the_digits_that_follow():
    e = en.Entry(None)
    t = 0
    actions = []
    for key in (3, en.K_PIN, 2, 4, 6, 8, en.K_ENTER, 1, 2):
        t += 200
        actions.append(e.press(key, t))
    assert actions[1] == en.ACT_ERROR and e.error == en.ERR_ROLL_PENDING
    assert actions[2:7] == [en.ACT_NONE] * 5  # 2 4 6 8 # : no roll
    assert actions[8] == en.ACT_ROLL and (e.die1, e.die2) == (1, 2)


def test_the_status_lamp_shows_pin_entry_while_digits_are_dropped():
    e = en.Entry(None)
    e.press(en.K_PIN, 0)
    assert e.status(100) == en.ST_ERROR
    assert e.status(en.ERROR_MS + 1) == en.ST_PIN
    assert e.tick(en.HALF_MS) == en.ACT_NONE and e.status(en.HALF_MS) == en.ST_READY


def docs_keys():
    with open(os.path.join(ROOT, "docs", "keys.md"), encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_docs_pin_example_works_exactly_as_written_with_the_docs_config(runtime):
    text = docs_keys()
    (example,) = [line for line in text.splitlines() if line.startswith("pin 2 4 6 8 enter end ")]
    keys = example.split("#")[0].strip()
    config_text = re.search(r'```json\n(\{"supervisor_pin".*\})\n```', text).group(1)
    with Session(runtime, config_text=config_text) as s:
        state = s.send(keys)
    assert kinds(state) == [("supervisor_on", None), ("end_hand", None)]
    (end,) = [e for e in state["events"] if e["event"] == "end_hand"]
    assert end["via"] == "pin" and end["shooter"] == 2
    assert [(r["wager"], r["outcome"]) for r in end["resolved"]] == [("fire", "returned")]
