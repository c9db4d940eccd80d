"""the HOLD clearance down to the board, on a real floor: mosquitto, a
virtual board deployed with its table's key and keyed live, its gateway and
the recorder as processes (bench/floor/localfloor.py), and the page's
own service connection, fold and downlink signer in this process
(host_tools/floor/page: FloorView, ServiceBus, PersonBus, as `floor page`
runs them). The table is keyed to the 6th point; surveillance clears the
HOLD on her own connection; the page signs the `verified` with the board's
key, the gateway carries it, the board journals kind 22 and lights "verified
— pay", the recorder gets the record, the page shows the board's answer. A
forged and a replayed request are refused by the board; one a person or a
gateway account publishes is dropped by the broker."""

import json
import os
import time

import pytest
from floor_harness import PEOPLE
from pit_floor import FIFTH_AND_SIXTH, TO_FOURTH_POINT, PitFloor

from bench.floor import localfloor
from bench.floor.localfloor import have_mosquitto, shared_template
from host_tools import keys
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.page import downlink
from host_tools.floor.page.bus import PersonBus, ServiceBus
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.page.recorded import PeopleLog, RecordedCopy
from host_tools.link import sign

pytestmark = pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed")

GREEN = {"on": True, "color": "#00ff00", "blink": False}
POINT_LAMPS = ("fire.4", "fire.5", "fire.6", "fire.8", "fire.9", "fire.10")


class Floor(PitFloor):
    """PitFloor's processes without the page process: its parts run here instead."""

    def __init__(self, folder, template):
        from bench.floor.localfloor import Rig
        from host_tools.floor.people import accounts as people

        self.rig = Rig(folder, ("T1",), template)
        self.dir = self.rig.dir
        for name, (role, password) in PEOPLE.items():
            people.add_person(self.dir, name, role, password)
        self.rig.start_broker()
        self.rig.start_board("T1")
        self.rig.start_recorder()
        self.rig.start_gateway("T1")
        floor = floordir.read_floor(self.dir)
        self.floor = floor
        self.view = FloorView(
            floor["floor"],
            ["T1"],
            copy=RecordedCopy(os.path.join(self.dir, "recorder.sqlite")),
            log=PeopleLog(os.path.join(self.dir, "page.sqlite")),
            keys_dir=self.dir,
        )
        self.service = ServiceBus(floor, floordir.password(self.dir, "page"), self.view).start()
        self.page = None
        self.wait(lambda v: self._recorded(), what="the board's first records at the recorder")

    def _recorded(self):
        import sqlite3

        try:
            return self.recorded_seq("T1") > 0
        except sqlite3.OperationalError:  # the recorder has not made its tables yet
            return False

    def stop(self):
        self.service.stop()
        self.rig.stop()

    def wait(self, predicate, timeout=60.0, what="it"):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.view.lock:
                got = predicate(self.view)
            if got:
                return got
            time.sleep(0.1)
        raise AssertionError("no %s within %g s" % (what, timeout))

    def state(self):
        return self.view.tiles["T1"]["state"] or {}

    def outcome(self, alert, ctr):
        """The gateway's published answer of the board to request (alert, ctr)."""
        return self.wait(
            lambda v: [
                o for o in (v.tiles["T1"]["state"] or {}).get("downlinks", []) if (o["alert"], o["ctr"]) == (alert, ctr)
            ],
            what="board answer for %s/%s" % (alert, ctr),
        )[0]

    def kinds(self):
        s = self.rig.store()
        try:
            return [
                (k, json.loads(r))
                for k, r in s.db.execute("select kind, record from events where tbl='T1' order by seq")
            ]
        finally:
            s.close()


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    f = Floor(str(tmp_path_factory.mktemp("verified")), shared_template(tmp_path_factory))
    yield f
    f.stop()


def test_a_hold_cleared_by_surveillance_lights_verified_pay_on_the_board_and_the_floor_records_it(floor):
    floor.roll("T1", TO_FOURTH_POINT + " " + FIFTH_AND_SIXTH)
    hold = floor.wait(lambda v: [a for a in v.book.alerts.values() if a.kind == "fire_6"], what="HOLD")[0]
    ctr = floor.wait(lambda v: (v.tiles["T1"]["state"] or {}).get("ctr"), what="the gateway's ctr")
    lamps = floor.state()["status"]["lamps"]
    assert lamps["alert.manager"]["color"] == "#ff0000"  # the HOLD waits: the alert lamps as before

    ann = PersonBus(floor.floor, "ann", "surveillance", PEOPLE["ann"][1])
    try:
        assert ann.acknowledge(hold.id, "payoffs equal wagers")
    finally:
        ann.close()
    answer = floor.outcome(hold.id, ctr + 1)
    assert answer["ok"] is True and answer["cmd"] == "verified" and answer["seq"] == hold.seq
    record_seq = answer["record"]
    # The board's record, through the gateway to the recorder, in the chain like any other.
    kinds = floor.wait(lambda v: [r for k, r in floor.kinds() if k == "verified"], what="kind 22 at the recorder")
    (record,) = kinds
    assert (record["seq"], record["arg"]) == (record_seq, hold.seq)
    assert json.loads(bytes.fromhex(record["payload"])) == {"alert": hold.id, "by": "ann", "seq": hold.seq}
    # The board's lamps, as its status says them in the gateway's state.
    lit = floor.wait(
        lambda v: (lambda lamps: lamps if lamps.get("alert.floor") == GREEN else None)(
            ((v.tiles["T1"]["state"] or {}).get("status") or {}).get("lamps") or {}
        ),
        what="verified — pay in the board's status",
    )
    assert lit["alert.manager"] == GREEN
    for name in POINT_LAMPS:
        assert lit[name]["color"] == "#ffffff" and lit[name]["alt"] == "#ff5000" and lit[name]["blink"], name
    # The page holds the board's answer on the alert (the tile and history show it).
    floor.wait(lambda v: hold.board is not None and hold.board["ok"], what="the answer on the alert")
    assert hold.as_dict()["board"]["record"] == record_seq

    # A replay of the page's very request: the board's counter refuses it.
    signed = downlink.for_cleared_hold(floor.dir, hold, ctr)[1]
    assert localfloor.publish(
        floor.rig, "page", topics.table(floor.floor["floor"], "T1", "downlink"), topics.encode(signed)
    )
    refusals = floor.wait(
        lambda v: [
            o for o in (v.tiles["T1"]["state"] or {}).get("downlinks", []) if not o["ok"] and o["ctr"] == ctr + 1
        ],
        what="the replay refused",
    )
    assert refusals[0]["error"].startswith("replayed or old counter")

    # Forged: signed with another key (the gateway and the broker hold none of the board's).
    now = floor.state()["ctr"]
    forged = sign(keys.new_key(), dict(signed["request"], ctr=now + 1, alert="forged-1"))
    topic = topics.table(floor.floor["floor"], "T1", "downlink")
    assert localfloor.publish(floor.rig, "page", topic, topics.encode(dict(signed, request=forged)))
    assert floor.outcome("forged-1", now + 1)["error"] == "bad tag"

    # Signed with every key the gateway host holds (its gateway key): refused too.
    now = floor.state()["ctr"]
    gateway_key = floorkeys.read(floor.rig.dir, "T1", "gateway")
    by_gateway = sign(gateway_key, dict(signed["request"], ctr=now + 1, alert="gw-1"))
    assert localfloor.publish(floor.rig, "page", topic, topics.encode(dict(signed, request=by_gateway)))
    assert floor.outcome("gw-1", now + 1)["error"] == "bad tag"

    # A person cannot publish there at all: the broker's ACL drops it, the board never sees it.
    key = floorkeys.read(floor.rig.dir, "T1", "floor")
    stranger = sign(key, dict(signed["request"], ctr=now + 1, alert="stranger-1"))
    assert localfloor.publish(
        floor.rig, "bob", topic, topics.encode(dict(signed, request=stranger)), password=PEOPLE["bob"][1]
    )
    # Nor can the table's own gateway account (it only reads its downlink): dropped too.
    gateway = sign(key, dict(signed["request"], ctr=now + 1, alert="gateway-1"))
    assert localfloor.publish(
        floor.rig, floordir.gateway_user("T1"), topic, topics.encode(dict(signed, request=gateway))
    )
    also = sign(key, dict(signed["request"], ctr=now + 2, alert="after-stranger"))
    assert localfloor.publish(floor.rig, "page", topic, topics.encode(dict(signed, request=also)))
    assert floor.outcome("after-stranger", now + 2)["error"] == "already verified"  # the page's went through
    assert not [o for o in floor.state().get("downlinks", []) if o["alert"] in ("stranger-1", "gateway-1")]
    # Nothing journalled for any refused request.
    assert [k for k, _ in floor.kinds()].count("verified") == 1
