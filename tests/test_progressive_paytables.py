"""Every linked table plays the meter's paytable (docs/progressive.md, "Which
paytable each table plays"): the board's configuration records (kind 16,
carrying the table's state through the firmware's own snapshot codec) tell
the controller which progressive paytable it plays; a table on another one
is closed for that game (its gateway tells its board `closed`), its wagers
and hits refused with the reason, and `floor meter` lists the tables."""

import json
import signal
import subprocess
import sys
import threading
import time
import types

import pytest
from progressive_floor import ROOT, Floor

from bench.floor import localfloor
from host_tools.floor.base import topics
from host_tools.floor.gateway.progressive import ProgressiveSide
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.progressive import messages

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not localfloor.have_mosquitto(), reason="needs mosquitto"),
]
WAGER, HIT = messages.PROG_WAGER, messages.PROG_HIT
WRONG = "plays PT-BJS-FUP-03; the FUP meter is on PT-BJS-FUP-05"


def host_tools(floor, *argv):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", *argv, "--dir", floor.dir],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
    )


def log_has(floor, text):
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if text in floor.controller_log():
            return True
        time.sleep(0.1)  # the controller's log is a file: no event to wait on
    return False


def test_a_table_on_another_paytable_is_closed_for_that_game_until_it_is_set_right(tmp_path):
    floor = Floor(tmp_path / "floor")  # the FUP meter is on PT-BJS-FUP-05, MEA on PT-BJS-MEA-01
    try:
        floor.start_controller()
        assert floor.wait(lambda: floor.presence_words()[-1:] == ["online"])
        floor.send_config("T1", {"fired_up": "PT-BJS-FUP-05"})
        floor.send_config("T2", {"fired_up": "PT-BJS-FUP-03"})  # 5-4-3-2: hits 3.6 times as often
        assert floor.wait(lambda: len(floor.meters.get("FUP", {}).get("tables", {})) == 2)
        fup = floor.meters["FUP"]
        assert fup["tables"] == {"T1": "PT-BJS-FUP-05", "T2": "PT-BJS-FUP-03"}
        assert fup["closed_tables"] == {"T2": WRONG}
        assert floor.meters["MEA"]["closed_tables"] == {}  # both play MEA-01

        floor.send("T2", WAGER, 4, game="FUP")  # refused: the meter stays
        floor.send("T2", HIT, 1, game="FUP")  # refused: no hit, the meter stays open
        floor.send("T2", WAGER, 2)  # MEA: T2 plays the MEA meter's paytable, 20 cents
        floor.send("T1", WAGER, 2, game="FUP")  # 2 x $5 x 5% = 50 cents
        assert floor.wait(lambda: floor.meters["FUP"]["amount"] == 500_050)
        assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_020)
        assert floor.meters["FUP"]["state"] == "open" and floor.meters["FUP"]["last_hit"] is None
        assert log_has(floor, "table T2 %s: its progressive is closed" % WRONG)

        done = host_tools(floor, "meter")
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert "FUP tables: T1 PT-BJS-FUP-05, T2 PT-BJS-FUP-03 (CLOSED: %s)" % WRONG in lines
        assert "MEA tables: T1 PT-BJS-MEA-01, T2 PT-BJS-MEA-01" in lines
        rows = {r["game"]: r for r in json.loads(host_tools(floor, "meter", "--json").stdout)}
        assert rows["FUP"]["closed_tables"] == {"T2": WRONG}

        # Kept across a restart (the ledger), and the self-check still matches.
        floor.kill_controller(signal.SIGTERM)
        floor.start_controller()
        assert floor.wait(lambda: floor.presence_words()[-1:] == ["online"])
        assert floor.wait(lambda: floor.meters["FUP"]["closed_tables"] == {"T2": WRONG})

        floor.send_config("T2", {"fired_up": "PT-BJS-FUP-05"})  # set right
        assert floor.wait(lambda: floor.meters["FUP"]["closed_tables"] == {})
        floor.send("T2", WAGER, 4, game="FUP")  # 4 x $5 x 5% = 100 cents
        assert floor.wait(lambda: floor.meters["FUP"]["amount"] == 500_150)
    finally:
        floor.close()


class _Gateway(ProgressiveSide):
    def __init__(self, table):
        self.floor, self.table = "main", table
        self.mqtt = types.SimpleNamespace(connected=threading.Event())
        self.mqtt.connected.set()
        self._progressive_init()


def test_the_gateway_tells_its_board_closed_when_its_table_plays_another_paytable():
    meter = {"v": 1, "game": "FUP", "state": "open", "amount": 500_000, "at": int(time.time())}
    meter.update(closed_tables={"T2": WRONG}, pay_rule="shared")
    for table, want in (("T1", ("open", 500_000, "shared", None)), ("T2", ("closed", 500_000, "shared", WRONG))):
        g = _Gateway(table)
        g._progressive_message(messages.presence_topic("main"), topics.ONLINE.encode())
        g._progressive_message(topics.meter("main", "FUP"), json.dumps(meter).encode())
        assert g.progressive_view()["FUP"] == want


def test_the_page_says_why_a_table_is_closed():
    view = FloorView("main", ["T1", "T2"], clock=lambda: 100.0)
    meter = {"v": 1, "game": "FUP", "state": "open", "amount": 500_000, "closed_tables": {"T2": WRONG}}
    view.message(topics.meter("main", "FUP"), json.dumps(meter).encode())
    alert = view.book.alerts["prog-FUP-table-T2"]
    assert alert.kind == "progressive_wrong_paytable" and alert.table == "T2" and alert.required == ("supervisor",)
    assert alert.detail == "FUP progressive closed at T2: it %s; closed until its board is set right" % WRONG
