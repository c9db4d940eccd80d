"""The simulated board under MicroPython prints the same bytes as under CPython.

One session per runtime takes the same scripts in turn (a whole hand, Bonus
Craps wins, every kind of bad input, the supervisor PIN and keyswitch, lamp
test, held keys); every answer must match byte for byte.
"""

import json
import random

import pytest

from sim.pin_hash import config_entry
from sim.session import KeyScriptError, Session

PIN_CONFIG = json.dumps({"supervisor_pin": config_entry("2468", b"fixed salt 2468"), "paytables": {"fire": "3"}})

SCRIPTS = [
    "2 2 2 2 1 4 1 4 3 3 3 3 4 4 4 4 4 5 4 5 6 4",
    "1 6",
    "wait:4000 1 1 1 2 2 2 2 3 3 3",
    "4 4 4 5 5 5 5 6 6 6",
    "7 0 3+4 5 wait:10500 # undo end btn:undo pin 1 1 1 1 enter",
    "pin 2 4 6 8 enter undo end clear key:on btn:undo btn:end key:off",
    "test wait:700 hold:3:3000 4 hold:5:20 5 clear",
    "wait:31000",
]


@pytest.fixture(scope="module")
def sessions():
    cp = Session("cpython", PIN_CONFIG)
    mp = Session("micropython", PIN_CONFIG)
    yield cp, mp
    mp.close()


@pytest.mark.parametrize("keys", SCRIPTS)
def test_micropython_answers_like_cpython(sessions, keys):
    cp, mp = sessions
    expected = cp.send_text(keys)
    assert '"events": [{' in expected or keys == "wait:31000"
    assert mp.send_text(keys) == expected


def test_the_same_key_script_error_on_both(sessions):
    cp, mp = sessions
    messages = []
    for s in (cp, mp):
        with pytest.raises(KeyScriptError) as e:
            s.send_text("3 4 nope")
        messages.append(str(e.value))
    assert messages[0] == messages[1] and "nope" in messages[0]


def test_clock_wrap_on_both():
    keys = "3 3 2 2 5 wait:10000 6 6"
    texts = []
    for runtime in ("cpython", "micropython"):
        with Session(runtime, start_ms=(1 << 30) - 700) as s:
            texts.append(s.send_text(keys))
    assert texts[0] == texts[1] and '"reason": "timeout"' in texts[0]


def test_a_long_script_streams_through_micropython():
    # 400 rolls: their events alone are ~240 KB of JSON, more than the VM's heap.
    rng = random.Random(7)
    keys = " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(400))
    texts = []
    for runtime in ("cpython", "micropython"):
        with Session(runtime) as s:
            texts.append(s.send_text(keys))
    assert texts[0] == texts[1]
    assert texts[0].count('"event": "roll"') == 400
