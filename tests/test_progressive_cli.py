"""`floor meter` (each meter, its state and its return to player, flagged past
break-even) and `floor progressive-params` (a recorded maintenance by a
technician and a shift manager, refused while a table is live), as commands
against a real mosquitto and the controller's process."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from progressive_floor import PARAMS, ROOT, Floor

from host_tools.floor.progressive import ledger, messages

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def floor(tmp_path):
    # MEA-01's break-even meter is 37,790.93 units (docs/odds.md): with a $1 unit and a
    # base of $37,790.00 (a cent a $1 wager to the meter), 94 more cents pass it.
    game_params = json.loads(json.dumps(PARAMS))
    game_params["MEA"].update(base=3_779_000, reset=3_779_000, reserve_ceiling=7_558_000, increment_ppm=10_000)
    f = Floor(tmp_path / "floor", game_params=game_params)
    yield f
    f.close()


def host_tools(floor, *argv, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", *argv, "--dir", floor.dir],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_floor_meter_shows_amount_state_and_return_flagged_past_break_even(floor):
    floor.start_controller()
    assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 3_779_000)
    done = host_tools(floor, "meter", "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["game"]: r for r in json.loads(done.stdout)}
    mea = rows["MEA"]
    assert (mea["amount"], mea["reserve"], mea["state"], mea["paytable"]) == (3_779_000, 0, "open", "PT-BJS-MEA-01")
    assert mea["break_even"] == 3_779_094 and mea["past_break_even"] is False
    assert mea["return_pct"] == 99.9986  # 1 - 0.9322 / 69,968 = 99.99866...%: cut
    assert (mea["overflow"], mea["reset"], mea["pay_rule"], mea["hits_seen"]) == (0, 3_779_000, "shared", 0)
    assert rows["FUP"]["amount"] == 500_000 and rows["FUP"]["state"] == "open"

    floor.send("T1", messages.PROG_WAGER, 93)  # 93 cents: one cent under break-even
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 3_779_093)
    line = next(x for x in host_tools(floor, "meter").stdout.splitlines() if x.startswith("MEA"))
    assert "return per wager 99.99% / " in line and "below break-even" in line  # never "100.00%" below it
    floor.send("T1", messages.PROG_WAGER, 1)  # the meter reaches break-even for one winning wager
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 3_779_094)
    done = host_tools(floor, "meter")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("MEA"))
    assert "$37,790.94 (3779094 cents)" in line and "open" in line and "PAST BREAK-EVEN" in line
    assert "shared by winning wagers" in line and "overflow 0 cents" in line
    # 45.9883% + 37,790.94 / W / 69,968: 100.00% / 72.99% / 63.99% for 1, 2, 3 winning wagers
    assert "return per wager 100.00% / 72.99% / 63.99% (1 / 2 / 3 winning wagers)" in line
    assert "winning wagers per hit seen 1.00 (0 hits)" in line and "break-even $37,790.94" in line

    # A hit of 2 winning wagers: from then on break-even is read at 2 winners a hit.
    floor.send("T1", messages.PROG_HIT, 2)
    assert floor.wait(lambda: floor.meters["MEA"]["state"] == "pending")
    floor.send("T1", messages.PROG_WAGER, 94)  # back to $37,790.94 after the $37,790.00 reset
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 3_779_094)
    mea = {r["game"]: r for r in json.loads(host_tools(floor, "meter", "--json").stdout)}["MEA"]
    assert (mea["hits_seen"], mea["winners_per_hit"]) == (1, "2/1")
    assert mea["break_even_seen"] == 7_558_187 and mea["past_break_even"] is False  # 2 x 3,779,093.22...
    line = next(x for x in host_tools(floor, "meter").stdout.splitlines() if x.startswith("MEA"))
    assert "winning wagers per hit seen 2.00 (1 hits)" in line and "($75,581.87 at the winners seen): below" in line

    floor.kill_controller(signal.SIGKILL)
    assert floor.wait(lambda: floor.presence_words()[-1] == "offline")
    rows = {r["game"]: r for r in json.loads(host_tools(floor, "meter", "--json").stdout)}
    assert rows["MEA"]["state"] == "closed" and rows["MEA"]["amount"] == 3_779_094


def test_floor_meter_without_a_controller_says_so(floor):
    done = host_tools(floor, "meter")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "host_tools floor: no progressive meter on the broker: is the controller running?"
    ]


def stored_params(floor):
    book = ledger.Ledger(os.path.join(floor.dir, "progressive.sqlite"), readonly=True)
    try:
        return {g: p.to_dict() for g, p in book.params().items()}, book.log_rows()
    finally:
        book.close()


def test_parameters_change_only_by_a_technician_and_a_shift_manager_with_no_table_live(floor):
    floor.start_controller()
    assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 3_779_000)
    change = ["progressive-params", "--game", "MEA", "--set", "cap=6000000", "--technician", "tom", "--manager", "sam"]
    good = "tom's long password\nsam's long password\n"
    before, _ = stored_params(floor)

    floor.presence("T2", "online")  # a live table
    done = host_tools(floor, *change, stdin=good)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "host_tools floor: tables T2 are live: parameters change only while no table is; nothing changed"
    ]
    # Every field is checked before the passwords are read and before the live tables:
    # a reset under MEA-01's $300 nine-number pay, a ceiling under one reset, a rate out of range.
    bad_fields = [
        ("reset=29999", "MEA reset: 29999 cents is below PT-BJS-MEA-01's highest fixed award, 300 for 1"),
        ("reserve_ceiling=100", "MEA: reserve_ceiling 100 cents is below one reset (3779000 cents)"),
        ("increment_ppm=600000", "MEA increment_ppm: 600000 is above 500000"),
        ("cap=3778999", "MEA: base 3779000 cents is above the cap 3778999 cents"),
    ]
    for setting, message in bad_fields:
        done = host_tools(floor, *change[:4], setting, *change[5:], stdin="")
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.splitlines()) == 1 and message in done.stderr and "Traceback" not in done.stderr
        assert "nothing changed" in done.stderr
    # A misspelt field is named first, before the passwords, the people or the live tables.
    misspelt = host_tools(floor, *change[:4], "capp=6000000", *change[5:], stdin="")
    assert (misspelt.returncode, misspelt.stdout) == (2, "")
    assert misspelt.stderr.splitlines() == [
        "host_tools floor: --set 'capp=6000000': give FIELD=VALUE, FIELD one of paytable, base_unit, base, reset,"
        " increment_ppm, reserve_ppm, reserve_ceiling, cap, pay_rule; nothing changed"
    ]
    floor.presence("T2", "offline")

    wrong = [
        ("tom's long password\nnot sam's password\n", "sam is not a shift manager of this floor"),
        ("sam's long password\nsam's long password\n", "tom is not a technician of this floor"),
    ]
    for stdin, message in wrong:
        done = host_tools(floor, *change, stdin=stdin)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1 and message in done.stderr
    as_bob = ["progressive-params", "--game", "MEA", "--set", "cap=6000000", "--technician", "tom", "--manager", "bob"]
    done = host_tools(floor, *as_bob, stdin="tom's long password\nbob's long password\n")
    assert done.returncode == 1 and "bob is not a shift manager" in done.stderr
    done = host_tools(floor, *change[:4], "reset=99999999", *change[5:], stdin=good)
    assert done.returncode == 2 and "MEA: reset 99999999 cents is above the cap 5000000 cents" in done.stderr
    assert stored_params(floor)[0] == before

    done = host_tools(floor, *change, stdin=good)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "MEA parameters changed by tom, authorised by sam: cap=6000000"
    after, rows = stored_params(floor)
    assert after["MEA"]["cap"] == 6_000_000 and after["FUP"] == before["FUP"]
    last = rows[-1]
    assert last[2] == "params" and last[5] == "applied" and json.loads(last[4])["by"] == ["tom", "sam"]
    # The running controller reloads the ledger and publishes the new cap.
    assert floor.wait(lambda: floor.meters["MEA"]["cap"] == 6_000_000)
    # A contribution after it goes onto the meter the ledger holds, not a stale copy.
    floor.send("T1", messages.PROG_WAGER, 5)
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 3_779_005)
    time.sleep(0.2)
    assert stored_params(floor)[0]["MEA"]["cap"] == 6_000_000
    # The ledger's parameters stay in force across a restart; the file only differs, or is gone.
    for remove_file in (False, True):
        floor.kill_controller(signal.SIGTERM)
        if remove_file:
            os.unlink(os.path.join(floor.dir, "progressive.json"))
        floor.meters.clear()
        floor.start_controller()
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("cap") == 6_000_000)
        assert floor.meters["MEA"]["amount"] == 3_779_005
    assert floor.controller_log().count("the parameters file differs from the ledger's") == 1
