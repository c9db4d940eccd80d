"""The linked progressive with real parts end to end (docs/progressive.md, "The
board's side"): a virtual board (the firmware in the MicroPython VM on a pty),
its gateway, a real mosquitto and the controller's own process. A count keyed
on the board reaches the meter; a top award makes the meter PENDING and the
board shows it; the shift manager's acknowledgement opens it again; the
controller SIGKILLed: the board shows closed and refuses a count; restarted:
open again, and a count is taken; the broker killed: the gateway tells the
board closed, and open once it is back; a hit whose roll the supervisor
undoes is voided and the meter is as if it never was. The times are printed
(no time asserted)."""

import json
import os
import sqlite3
import time

import pytest

from bench.floor.localfloor import Rig, have_mosquitto, publish, shared_template, wait_for, watch, watch_stamped
from host_tools.floor.base import floordir, topics
from host_tools.floor.people import accounts as people
from host_tools.floor.progressive import params

pytestmark = pytest.mark.skipif(not have_mosquitto(), reason="needs mosquitto")

# MEA: $1 unit, seed $1,000, 10% to the meter: five wagers add 50 cents.
PARAMS = {
    "MEA": {
        "paytable": "PT-BJS-MEA-01",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 100_000,
        "reserve_ppm": 20_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
        "pay_rule": "shared",
    },
    "FUP": {
        "paytable": "PT-BJS-FUP-01",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 100_000,
        "reserve_ppm": 20_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
        "pay_rule": "shared",
    },
}
SAM = ("sam", "shift_manager", "sam's long password")
# The ten MEA numbers once each, no 7 (2 3 4 5 6 8 9 10 11 12): the top award.
TEN_NUMBERS = "1 1 1 2 2 2 2 3 3 3 4 4 4 5 5 5 5 6 6 6"


class BoardView:
    """The board's `status` as its gateway publishes it (retained `state`), stamped on arrival."""

    def __init__(self, rig, table):
        self.stamped = []
        self.client = watch_stamped(rig, topics.table(rig.floor["floor"], table, "state"), self.stamped)

    def progressive(self, game="MEA"):
        for _, text in reversed(self.stamped):
            status = json.loads(text).get("status") or {}
            if "progressive" in status:
                return status["progressive"][game]
        return {}

    def after_now(self, game="MEA"):
        """The game's view in a status the gateway asked for after this call: the
        second state to arrive from now (the first may have been asked before)."""
        now = time.monotonic()
        wait_for(lambda: len([t for t, _ in list(self.stamped) if t > now]) >= 2, 30, "two states from the gateway")
        return self.progressive(game)

    def wait(self, what, predicate, timeout=60.0, since=0.0):
        """Until predicate(the game's view) holds; the arrival (monotonic) of
        the first state after `since` that showed it."""
        wait_for(lambda: predicate(self.progressive()), timeout, what)
        for t, text in list(self.stamped):
            status = json.loads(text).get("status") or {}
            if t >= since and "progressive" in status and predicate(status["progressive"]["MEA"]):
                return t
        return time.monotonic()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return shared_template(tmp_path_factory)


@pytest.mark.timeout(400)  # one long scenario on a real floor: 40 s alone, past 120 s beside the whole suite
def test_counts_reach_the_meter_a_hit_shows_pending_and_a_lost_controller_closes_the_board(tmp_path, template):
    rig = Rig(str(tmp_path), ["T1"], template, keepalive=2)
    floordir.write_json(params.params_path(rig.dir), PARAMS)
    people.add_person(rig.dir, SAM[0], SAM[1], SAM[2])
    floor = rig.floor["floor"]
    meters = []
    controller = None
    try:
        rig.start_broker()
        rig.start_board("T1")
        controller = rig.start_progressive()
        rig.start_gateway("T1")
        meter_watch = watch(rig, topics.meter(floor, "MEA"), meters)
        board = BoardView(rig, "T1")

        def meter():
            return json.loads(meters[-1]) if meters else {}

        board.wait("the board hearing the meter open", lambda p: p.get("state") == "open")
        assert board.progressive()["amount"] == "$1,000.00"

        # A count keyed on the board reaches the meter: 5 x $1 x 10% = 50 cents.
        rig.press("T1", "# 1 5 #")
        wait_for(lambda: meter().get("amount") == 100_050, 60, "the five wagers on the meter")
        board.wait(
            "the board showing the wagers and the new amount",
            lambda p: p.get("wagers") == 5 and p.get("cents") == 100_050,
        )

        # The top award: the meter PENDING, on the board too.
        rig.press("T1", TEN_NUMBERS)
        wait_for(lambda: meter().get("state") == "pending", 120, "the hit PENDING on the meter")
        pending_at = time.monotonic()
        hit = meter()["last_hit"]
        assert (hit["table"], hit["wagers"], hit["meter_at_hit"]) == ("T1", 5, 100_050)
        shown = board.wait("PENDING on the board", lambda p: p.get("state") == "pending", since=pending_at - 5)
        print("hit PENDING on the meter -> on the board's published status: %.2f s" % max(0.0, shown - pending_at))
        rig.wait_pressed("T1", rig.press("T1", "# 1 2 #"))  # refused while PENDING
        assert board.after_now()["wagers"] == 0
        ack = {"v": 1, "alert": "prog-MEA-%d" % hit["n"], "note": "paid", "at": int(time.time())}
        assert publish(rig, SAM[0], topics.ack(floor, SAM[1], SAM[0]), json.dumps(ack), password=SAM[2])
        board.wait("the meter open again after the acknowledgement", lambda p: p.get("state") == "open")
        assert board.progressive()["wagers"] == 0 and meter()["amount"] == 100_000  # reseeded; nothing keyed since

        # The controller killed: closed on the board, and a count refused.
        controller.kill()
        controller.wait()
        killed_at = time.monotonic()
        closed = board.wait("the board closed", lambda p: p.get("state") == "closed", since=killed_at)
        print("controller SIGKILLed -> closed on the board's published status: %.2f s" % (closed - killed_at))
        rig.wait_pressed("T1", rig.press("T1", "# 1 3 #"))
        assert board.after_now()["wagers"] == 0

        # Back: open again, and a count is taken.
        controller = rig.start_progressive()
        started_at = time.monotonic()
        opened = board.wait("the board open again", lambda p: p.get("state") == "open", since=started_at)
        print("controller restarted -> open on the board's published status: %.2f s" % (opened - started_at))
        rig.press("T1", "# 1 3 #")
        wait_for(lambda: meter().get("amount") == 100_030, 60, "three wagers on the meter")
        board.wait("the three wagers on the board", lambda p: p.get("wagers") == 3)
        meter_watch.stop()
        board.client.stop()

        # The broker gone: the gateway tells the board closed at once (its log
        # says what it sent); back: open again.
        since = rig.log_size("gateway-T1")
        rig.broker.kill()
        lost_at = time.monotonic()
        rig.wait_log("gateway-T1", "progressive MEA closed on the board", timeout=30, since=since)
        print("broker killed -> the gateway's closed sent to the board: %.2f s" % (time.monotonic() - lost_at))
        since = rig.log_size("gateway-T1")
        rig.broker.start()
        back_at = time.monotonic()
        rig.wait_log("gateway-T1", "progressive MEA open on the board", timeout=60, since=since)
        print("broker restarted -> the gateway's open sent to the board: %.2f s" % (time.monotonic() - back_at))

        # A hit whose roll the supervisor undoes: the board journals the void
        # (kind 25), its gateway carries it, and the controller puts the meter
        # back as if the hit never was; the shift manager still acknowledges.
        meters.clear()
        meter_watch = watch(rig, topics.meter(floor, "MEA"), meters)
        board = BoardView(rig, "T1")
        board.wait("the board open after the broker", lambda p: p.get("state") == "open")
        rig.press("T1", "3 4 # 1 2 #")  # a 7 ends the three wagers' cycle; two wagers on the next
        wait_for(lambda: meter().get("amount") == 100_050, 60, "the two wagers on the meter")
        rig.press("T1", TEN_NUMBERS)
        wait_for(lambda: meter().get("state") == "pending", 120, "the second hit PENDING")
        hit = meter()["last_hit"]
        assert (hit["wagers"], hit["meter_at_hit"]) == (2, 100_050) and meter()["amount"] == 100_000
        rig.press("T1", "key:on btn:undo key:off")
        wait_for(lambda: hit["n"] in meter().get("voided", []), 60, "the hit voided by the undo")
        assert meter()["amount"] == 100_050 and meter()["state"] == "pending"
        ack = {"v": 1, "alert": "prog-MEA-%d" % hit["n"], "note": "undone at the table", "at": int(time.time())}
        assert publish(rig, SAM[0], topics.ack(floor, SAM[1], SAM[0]), json.dumps(ack), password=SAM[2])
        board.wait("open after the void's acknowledgement", lambda p: p.get("state") == "open")
        assert meter()["amount"] == 100_050  # nothing was paid
        board.wait("the two wagers in action again (9 numbers marked)", lambda p: p.get("wagers") == 2)
        meter_watch.stop()
        board.client.stop()
    finally:
        if controller is not None and controller.poll() is None:
            controller.kill()
            controller.wait()
        rig.stop()


def test_a_board_on_another_paytable_than_the_meter_says_closed_and_why(tmp_path, template):
    """The FUP meter set for FUP-03 while the board plays its configuration's
    FUP-01: the controller lists the table closed, its gateway tells the board
    why, and the board's own `status` (as its gateway publishes it) says so;
    the MEA meter, on the board's paytable, is open and says how several
    winning wagers are paid. The controller lost, and then refusing to open on
    a damaged ledger: the board says each."""
    rig = Rig(str(tmp_path), ["T1"], template, keepalive=2)
    floordir.write_json(params.params_path(rig.dir), dict(PARAMS, FUP=dict(PARAMS["FUP"], paytable="PT-BJS-FUP-03")))
    controller = None
    try:
        rig.start_broker()
        rig.start_board("T1")
        controller = rig.start_progressive()
        rig.start_gateway("T1")
        board = BoardView(rig, "T1")
        why = "plays PT-BJS-FUP-01; the FUP meter is on PT-BJS-FUP-03"
        wait_for(lambda: board.progressive("FUP").get("closed") == why, 120, "the board saying why FUP is closed")
        fup = board.progressive("FUP")
        assert fup["state"] == "closed" and fup["pays"] == "shared by winning wagers"
        board.wait("MEA open on the board", lambda p: p.get("state") == "open")
        mea = board.progressive("MEA")
        assert mea["pays"] == "shared by winning wagers" and "closed" not in mea
        rig.press("T1", "# 2 3 #")  # refused on the board: FUP is closed
        rig.press("T1", "# 1 2 #")  # MEA open: taken
        board.wait("the two MEA wagers on the board", lambda p: p.get("wagers") == 2)
        assert board.progressive("FUP")["wagers"] == 0  # keyed before the MEA count, refused

        # The controller lost: the board is told so.
        controller.kill()
        controller.wait()
        lost = "controller lost"
        wait_for(lambda: board.progressive("MEA").get("closed") == lost, 60, "the board saying the controller is lost")

        # Its ledger damaged meanwhile (a stored meter no longer the log's replay):
        # the controller refuses to open, and the board says why.
        ledger = sqlite3.connect(os.path.join(rig.dir, "progressive.sqlite"))
        body = json.loads(ledger.execute("select body from meters where game='MEA'").fetchone()[0])
        body["amount"] += 100_000
        ledger.execute("update meters set body=? where game='MEA'", (json.dumps(body),))
        ledger.commit()
        ledger.close()
        controller = rig.start_progressive()
        refused = "controller failed its self-check"
        wait_for(
            lambda: board.progressive("MEA").get("closed") == refused, 60, "the board saying the self-check failed"
        )
        assert board.progressive("FUP")["closed"] == refused  # every game: it opened no meter
        board.client.stop()
    finally:
        if controller is not None and controller.poll() is None:
            controller.kill()
            controller.wait()
        rig.stop()
