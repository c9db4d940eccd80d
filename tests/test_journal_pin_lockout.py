"""The PIN lockout and the journal clock survive a restart.

Three wrong PINs in a row lock the PIN key for 60 s (docs/keys.md); each
wrong PIN is journalled, so a power cut neither ends a lockout early nor
forgets the wrong PINs counted towards one. Record times are the journal
clock: ms since the journal started, carried on from the last record after a
restart and never running backwards across the board's 2**30 ms tick wrap;
the host unwraps its 32 bits in seq order.
"""

import contextlib
import json

from crapsboard.base import ticks
from crapsboard.journal import journal_record as jr
from crapsboard.table import entry as en
from host_tools import journal_log
from host_tools.__main__ import main as host_tools_main
from sim.paths import BOARD_JSON
from sim.pin_hash import config_entry
from sim.portable.norflash import NorFlash
from sim.portable.run_core import Driver

CONFIG = json.dumps({"supervisor_pin": config_entry("2468", b"lockout tests")})
WRONG = "D 1 3 5 7 # "
GOOD = "D 2 4 6 8 # "
LOCK_S = 60  # docs/keys.md: three wrong PINs lock the PIN key for 60 s


def flash(data=None):
    f = NorFlash(data)
    f.raise_cut = False
    return f


def boot(data=None, start_ms=0, config=CONFIG):
    return Driver(BOARD_JSON, config, start_ms, flash(data), data is None)


def play(driver, script):
    parts = []
    driver.send(script, parts.append)
    driver.close()
    return json.loads("".join(parts))


def outcome(state):
    # What the PIN entries of a run came to: "on" for a good PIN, else the refusal.
    out = []
    for e in state["events"]:
        if e["event"] == "supervisor_on":
            out.append("on")
        elif e["event"] == "error":
            out.append(e["reason"])
    return out


def records(driver):
    recs, _ = journal_log.verify_image(bytearray(driver.flash.data))
    return recs


def test_the_journal_restore_keeps_the_entry_rule_constants():
    assert jr.ERROR == en.ACT_ERROR and jr.SUPERVISOR_ON == en.ACT_AUTH_ON
    assert jr.ERR_WRONG_PIN == en.ERR_WRONG_PIN and jr.VIA_PIN == en.VIA_PIN
    assert jr.PIN_TRIES == en.PIN_TRIES == 3
    assert jr.PIN_LOCK_MS == en.LOCK_MS == LOCK_S * 1000


def test_three_wrong_pins_then_a_power_cut_keep_the_pin_key_locked_for_60_s():
    first = boot()
    state = play(first, "3 4 " + WRONG * 3)
    assert outcome(state) == ["wrong_pin"] * 3
    assert [r.kind for r in records(first)][-3:] == [jr.ERROR] * 3  # each wrong PIN is on flash
    # Power back: the lockout was the last record, so all of its 60 s are still to run.
    second = boot(first.flash.data)
    state = play(second, "wait:%d " % (LOCK_S * 1000 - 1500) + GOOD + "wait:100")
    assert outcome(state) == ["pin_locked"]
    assert state["status"] != "supervisor"
    third = boot(second.flash.data)
    state = play(third, "wait:%d " % (LOCK_S * 1000 + 200) + GOOD + "wait:100")
    assert outcome(state) == ["on"] and state["status"] == "supervisor"


def test_on_a_board_s_first_journal_the_third_wrong_pin_locks_the_pin_key():
    state = play(boot(), WRONG * 3 + "wait:3000 " + GOOD + "wait:100")  # a fresh flash: no wrong PIN yet
    assert outcome(state) == ["wrong_pin"] * 3 + ["pin_locked"]


def test_the_lockout_left_is_counted_from_the_last_record_before_the_cut():
    first = boot()
    # Locked, then 30 s of play recorded before the power fails.
    play(first, WRONG * 3 + "wait:30000 3 4")
    second = boot(first.flash.data)
    state = play(second, "wait:28000 " + GOOD + "wait:3000 " + GOOD + "wait:100")
    assert outcome(state) == ["pin_locked", "on"]


def test_the_lockout_left_is_counted_across_the_journal_clocks_32_bit_wrap():
    # As above, with the journal clock 10 s before its 32 bits wrap at the third wrong PIN
    # (after 49.7 days of the board being on): the 30 s of play after it end past the wrap.
    first = boot()
    play(first, "3 4")
    second = boot(first.flash.data)
    second.journal.clock = 2**32 - 10000
    play(second, WRONG * 3 + "wait:30000 3 4")
    assert records(second)[-1].t < 30000  # the last record's 32 bits wrapped
    third = boot(second.flash.data)
    state = play(third, "wait:28000 " + GOOD + "wait:3000 " + GOOD + "wait:100")
    assert outcome(state) == ["pin_locked", "on"]


def test_wrong_pins_before_a_restart_count_towards_the_lockout():
    first = boot()
    play(first, WRONG * 2)
    second = boot(first.flash.data)
    state = play(second, WRONG + "wait:3000 " + GOOD + "wait:100")
    assert outcome(state) == ["wrong_pin", "pin_locked"]  # the third wrong PIN in a row locked it


def test_the_keyswitch_does_not_clear_the_wrong_pin_count_across_a_restart():
    # docs/keys.md: only a good PIN clears the count; the supervisor's key is no PIN.
    first = boot()
    play(first, WRONG * 2 + "key:on wait:200 key:off wait:200 ")
    second = boot(first.flash.data)
    state = play(second, WRONG + "wait:3000 " + GOOD + "wait:100")
    assert outcome(state) == ["wrong_pin", "pin_locked"]


def test_a_good_pin_clears_the_count_across_a_restart():
    first = boot()
    play(first, WRONG * 2 + GOOD + "key:on key:off " + WRONG)
    second = boot(first.flash.data)
    state = play(second, WRONG + "wait:3000 " + GOOD + "wait:100")
    assert outcome(state) == ["wrong_pin", "on"]  # two in a row since the good one: not locked


# ---- the journal clock -----------------------------------------------------------


def test_record_times_run_on_across_the_tick_wrap_and_a_restart():
    near_wrap = ticks.PERIOD - 4000  # the board's ticks wrap 4 s after power-up
    first = boot(start_ms=near_wrap)
    play(first, "wait:1000 3 4 wait:8000 6 6")
    times = [r.t for r in records(first)]
    assert times[0] == 0  # the journal start
    assert 8000 <= times[2] - times[1] <= 9000  # the wrap cost nothing (two key presses take a few hundred ms)
    # A restart: the ticks start again from 0, the journal clock from the last record.
    second = boot(first.flash.data, start_ms=0)
    play(second, "wait:5000 2 2")
    recs = records(second)
    assert [r.kind for r in recs[-2:]] == [jr.RESTART, jr.ROLL]
    assert recs[-2].t == times[-1]  # the time the board was off is not counted
    assert 5000 <= recs[-1].t - recs[-2].t <= 6000
    assert [r.t for r in recs] == sorted(r.t for r in recs)


def test_the_host_unwraps_the_32_bit_time_in_seq_order(tmp_path):
    first = boot()
    play(first, "3 4")
    second = boot(first.flash.data)
    second.journal.clock = 2**32 - 1500  # as after 49.7 days of the board being on
    play(second, "wait:1000 6 6 wait:1000 2 2")
    recs = records(second)
    stored = [r.t for r in recs[-2:]]
    assert stored[0] > 2**32 - 1000 and stored[1] < 2000  # the stored 32 bits wrapped
    times = journal_log.unwrapped_times(recs)
    assert times == sorted(times) and times[-1] - times[-2] >= 1000
    assert times[-1] > 2**32
    image = tmp_path / "board.img"
    image.write_bytes(bytes(second.flash.data))
    out = tmp_path / "log.jsonl"
    with open(out, "w") as f, contextlib.redirect_stdout(f):
        assert host_tools_main(["log", "--image", str(image)]) == 0
    printed = [json.loads(line)["t"] for line in out.read_text().splitlines()]
    assert printed == times


def test_on_the_vm_the_lockout_survives_a_restart(tmp_path):
    from sim.session import Session

    image = str(tmp_path / "board.img")
    with Session("micropython", CONFIG, flash=image) as s:
        assert outcome(s.send(WRONG * 3)) == ["wrong_pin"] * 3
    with Session("micropython", CONFIG, flash=image) as s:
        assert outcome(s.send("wait:1000 " + GOOD + "wait:100")) == ["pin_locked"]
