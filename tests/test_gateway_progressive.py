"""The gateway's progressive side (host_tools/floor/gateway/progressive.py,
docs/progressive.md "The board's side"): what it tells its board of each
meter — the state, the pay rule and why it is closed — from the controller's
meter and presence and its own broker connection; and the signed requests it
sends, through real pyserial to the firmware's link core on a pty, to a board
of this firmware and to one deployed before the pay rule and the reason."""

import json
import threading
import time
import types

from pty_link import PtyLink

from crapsboard.base.link_key import ROLE_GATEWAY
from crapsboard.link import link as lk
from host_tools import keys
from host_tools.floor.base import topics
from host_tools.floor.gateway.progressive import ProgressiveSide
from host_tools.floor.progressive import messages
from host_tools.link import BoardLink

KEY = bytes(range(32))
# The request as a board deployed before `rule` and `why` knew it.
OLD_ARGS = (("game", lk.T_STR, True), ("state", lk.T_STR, True), ("amount", lk.T_INT, True), ("at", lk.T_INT, True))


class _Gateway(ProgressiveSide):
    def __init__(self, table, link=None):
        self.floor, self.table = "main", table
        self.mqtt = types.SimpleNamespace(connected=threading.Event())
        self.mqtt.connected.set()
        self.link = link
        self.key = keys.command_key(KEY, "progressive")  # the gateway's key, as DIR/keys/T.gateway holds it
        self._progressive_init()


def _meter(game="MEA", **more):
    meter = {"v": 1, "game": game, "state": "open", "amount": 100_000, "at": int(time.time())}
    meter.update(more)
    return json.dumps(meter).encode()


def test_the_gateway_tells_its_board_why_the_meter_is_closed():
    now = int(time.time())
    meter = {"v": 1, "game": "MEA", "state": "open", "amount": 100_000, "at": now, "pay_rule": "positional"}
    g = _Gateway("T1")
    g._progressive_message(topics.meter("main", "MEA"), json.dumps(meter).encode())
    assert g.progressive_view()["MEA"] == ("closed", 100_000, "positional", "controller lost")  # presence not heard
    said = {}
    for presence in (messages.REFUSED, topics.OFFLINE, topics.ONLINE):
        g._progressive_message(messages.presence_topic("main"), presence.encode())
        said[presence] = g.progressive_view()["MEA"][3]
    assert said == {"refused": "controller failed its self-check", "offline": "controller lost", "online": None}
    assert g.progressive_view(now=now + 7)["MEA"][3] == "controller silent for 6 s"
    g.mqtt.connected.clear()
    assert g.progressive_view()["MEA"] == ("closed", 100_000, "positional", "gateway lost the floor's broker")
    long = dict(meter, closed_tables={"T1": "plays PT-BJS-FUP-03\n" + "x" * 80}, at=now)
    g.mqtt.connected.set()
    g._progressive_message(topics.meter("main", "MEA"), json.dumps(long).encode())
    why = g.progressive_view()["MEA"][3]
    assert why == "plays PT-BJS-FUP-03" + "x" * 38 + "..." and len(why) == 60


def _board(args):
    """The firmware's link core with `progressive` taking `args`; the requests it took."""
    taken = []

    def progressive(request):
        taken.append({k: v for k, v in request.items() if k not in ("id", "cmd", "ctr", "tag")})
        return {"game": request["game"], "state": request["state"]}

    link = lk.Link({"hello": lk.hello_handler("test-1", "a1b2c3d4e5f6", lambda: 1234)}, key=KEY)
    link.add("progressive", progressive, args, ROLE_GATEWAY)
    return link, taken


def _forward(args, closed_tables):
    board, taken = _board(args)
    with PtyLink(board) as pty, BoardLink(pty.port) as link:
        g = _Gateway("T2", link)
        g._progressive_message(messages.presence_topic("main"), topics.ONLINE.encode())
        g._progressive_message(
            topics.meter("main", "FUP"), _meter("FUP", pay_rule="shared", closed_tables=closed_tables)
        )
        g._forward_progressive()
        g.prog_fresh.set()
        g._forward_progressive()  # the next forward: straight to the form the board takes
    return taken, g


def test_a_board_of_this_firmware_is_sent_the_pay_rule_and_why():
    why = "plays PT-BJS-FUP-03; the FUP meter is on PT-BJS-FUP-05"
    taken, g = _forward(lk.SPECS["progressive"][0], {"T2": why})
    at = taken[0]["at"]
    want = {"game": "FUP", "state": "closed", "amount": 100_000, "at": at, "rule": "shared", "why": why}
    assert taken[0] == want and len(taken) == 2 and g.prog_bare is False


def test_a_board_deployed_before_the_pay_rule_still_takes_the_meter():
    taken, g = _forward(OLD_ARGS, {})
    assert [(t["game"], t["state"], t["amount"]) for t in taken] == [("FUP", "open", 100_000)] * 2
    assert all(set(t) == {"game", "state", "amount", "at"} for t in taken)
    assert g.prog_bare is True and g.prog_said == {"FUP": "open"}
