"""Records a table's board did not write, published with its gateway's broker
credentials and MACed with every key the gateway host holds, on a real
mosquitto with the recorder and the progressive controller as their own
processes: nothing stored, no meter moved, an alert naming the table and the
publishing identity, and the genuine record, arriving after the forgery, is
stored and counted (docs/floor.md, "Only what the board wrote")."""

import copy
import json
import threading
import time

import paho.mqtt.client as mqtt
import pytest
from progressive_floor import Floor

from crapsboard.journal import journal_record as jr
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.progressive import messages
from host_tools.floor.recorder.store import Store

pytestmark = pytest.mark.timeout(180)
WAGER, HIT = messages.PROG_WAGER, messages.PROG_HIT


class Alerts:
    """Every alert the floor publishes, as surveillance's page reads them."""

    def __init__(self, floor):
        self.got, self.cond = [], threading.Condition()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-alerts")
        c.username_pw_set("floorctl", floordir.password(floor.dir, "floorctl"))
        c.on_message = self._message
        c.on_connect = lambda client, u, f, r, p: client.subscribe(topics.alert("main", "#"), qos=1)
        c.connect("127.0.0.1", floor.floor["port"])
        c.loop_start()
        self.client = c

    def _message(self, client, userdata, m):
        with self.cond:
            self.got.append(json.loads(m.payload))
            self.cond.notify_all()

    def wait(self, predicate, timeout=20.0):
        end = time.monotonic() + timeout
        with self.cond:
            while not predicate(self.got):
                if not self.cond.wait(max(0.0, end - time.monotonic())) and time.monotonic() >= end:
                    return False
        return True

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def floor(tmp_path):
    f = Floor(tmp_path / "floor", tables=("T1", "T2"))
    f.start_recorder()
    f.start_controller()
    assert f.wait(lambda: f.meters.get("MEA", {}).get("amount") == 100_000)
    f.alerts = Alerts(f)
    yield f
    f.alerts.close()
    f.close()


def forger(floor, table, key):
    """The table's journal as a forger continues it: the same chain, MACs under `key` (None: zeros)."""
    fake = copy.copy(floor.journals[table])
    fake.mac = jr.Mac(key) if key else type("Zero", (), {"tag": lambda self, d: bytes(8)})()
    return fake


def recorded(floor, table):
    store = Store(floor.dir + "/recorder.sqlite", readonly=True)
    try:
        return [
            (seq, kind)
            for seq, kind in store.db.execute("select seq, kind from events where tbl=? order by seq", (table,))
        ]
    finally:
        store.close()


def forged_alerts(got, table):
    return [
        a
        for a in got
        if a["kind"] == "record not written by the board"
        and "a record %s's board did not write came from gateway-%s" % (table, table) in a["text"]
    ]


@pytest.mark.parametrize("key_name", ["zeros", "gateway", "floor", "receipt"])
def test_a_forged_hit_wager_and_roll_move_nothing_and_the_genuine_records_take_their_seqs(floor, key_name):
    key = None if key_name == "zeros" else floorkeys.derive(_link_key("T1"), key_name)
    fake = forger(floor, "T1", key)
    hit, _ = fake.record(HIT, 3, "MEA")  # seq 1: a top award for three wagers
    floor.republish("T1", hit)
    wager = forger(floor, "T1", key)
    wager.seq, wager.hash = fake.seq, fake.hash  # seq 2, continuing the forged chain
    floor.republish("T1", wager.record(WAGER, 50, "MEA")[0])
    assert floor.alerts.wait(lambda got: len(forged_alerts(got, "T1")) == 2)
    texts = sorted(a["text"] for a in forged_alerts(floor.alerts.got, "T1"))
    assert "record 1 of journal 1" in texts[0] and "record 2 of journal 1" in texts[1]
    assert all(a["table"] == "T1" for a in forged_alerts(floor.alerts.got, "T1"))
    # the genuine records 1 and 2, after the forgeries: stored, and counted once
    floor.send("T1", WAGER, 5)
    floor.send("T1", WAGER, 5)
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_100)
    assert floor.meters["MEA"]["pending"] == [] and floor.meters["MEA"]["state"] == "open"
    end = time.monotonic() + 20
    while recorded(floor, "T1") != [(1, "23"), (2, "23")] and time.monotonic() < end:
        time.sleep(0.1)
    assert recorded(floor, "T1") == [(1, "23"), (2, "23")]
    assert floor.wait(lambda: floor.controller_log().count("not written by table T1's board") == 2)
    assert "from gateway-T1, moved no meter" in floor.controller_log()


def test_a_forged_void_leaves_a_pending_hit_pending(floor):
    floor.send("T2", WAGER, 5)
    _, hit = floor.send("T2", HIT, 2)
    assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1])
    paid = floor.meters["MEA"]["amount"]
    fake = forger(floor, "T2", floorkeys.derive(_link_key("T2"), "gateway"))
    floor.republish("T2", fake.void(hit["seq"], 2, "MEA")[0])
    assert floor.alerts.wait(lambda got: len(forged_alerts(got, "T2")) == 1)
    floor.send("T2", WAGER, 5)  # the genuine record 3 after the forged one: counted
    assert floor.wait(lambda: floor.meters["MEA"]["amount"] == paid + 50)
    assert floor.meters["MEA"]["pending"] == [1]
    # the meter may have moved by the recorder's copy before the bus brought the forgery to the controller
    assert floor.wait(lambda: "not written by table T2's board" in floor.controller_log())


def _link_key(table):
    from bench.floor.progressive_feed import feed_link_key

    return feed_link_key(table)
