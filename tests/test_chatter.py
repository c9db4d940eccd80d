"""One noisy input never freezes the others: every input is debounced on its
own (docs/keys.md, `chatter:KEY:MS`). Both runtimes."""

import pytest

from crapsboard.table import keypad
from sim.session import KeyScriptError, Session

RUNTIMES = ["cpython", "micropython"]


@pytest.fixture(params=RUNTIMES)
def session(request):
    with Session(request.param) as s:
        yield s


def rolls(state):
    return [e["dice"] for e in state["events"] if e["event"] == "roll"]


def test_a_roll_is_entered_while_the_lamp_test_button_chatters(session):
    state = session.send("chatter:btn:test:20 3 4 chatter:btn:test:off")
    assert rolls(state) == [[3, 4]]
    assert not [e for e in state["events"] if e["event"] == "error"]


def test_a_key_held_for_a_second_registers_while_another_key_chatters(session):
    state = session.send("chatter:9:20 hold:5:1000 2 chatter:9:off")
    assert rolls(state) == [[5, 2]]


def test_the_keyswitch_turns_off_while_a_key_chatters(session):
    on = session.send("key:on chatter:7:20 wait:500")
    assert on["supervisor"] is True
    off = session.send("key:off wait:200 chatter:7:off")
    assert off["supervisor"] is False


def test_a_chattering_keyswitch_never_authorises(session):
    state = session.send("chatter:keyswitch:20 wait:5000")
    assert state["supervisor"] is False
    state = session.send("3 4 undo chatter:keyswitch:off")
    assert [e.get("reason") for e in state["events"] if e["event"] == "error"] == ["not_authorised"]


def test_chatter_tokens_are_checked(session):
    for bad in ("chatter:3", "chatter:banana:20", "chatter:3:0", "chatter::20", "chatter:3:fast"):
        with pytest.raises(KeyScriptError):
            session.send(bad)


def test_the_debouncer_accepts_a_steady_bit_beside_a_flipping_one():
    d = keypad.Debouncer(30)
    noisy, key = 1 << 2, 1 << 5
    presses = []
    for t in range(0, 1000, 10):
        raw = (noisy if (t // 20) % 2 else 0) | (key if t >= 100 else 0)
        presses.append(d.update(raw, t))
    assert presses.count(key) == 1 and presses.index(key) <= 16  # 100 ms + window + one chatter period
    assert d.stable == key  # the noisy bit never held still for 30 ms


def test_keys_struck_a_few_ms_apart_still_arrive_together():
    d = keypad.Debouncer(30)
    d.update(0b01, 0)
    out = [d.update(0b11, t) for t in range(5, 100, 5)]
    assert 0b11 in out and 0b01 not in out
