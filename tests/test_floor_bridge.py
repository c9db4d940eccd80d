"""Pits bridged to the floor with mosquitto's own bridge: two pit brokers,
each holding two tables, bridged to the floor's broker; the recorder on the
floor's broker stores every record the pits' tables publish; `recorded`
comes back down to the pit; a pit's bridge account cannot speak for another
pit's table; and records published while the floor's broker is down reach
the recorder when it is back (the pit's broker queued them)."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from tls_certs import CA

from bench.floor import record_feed
from bench.floor.localfloor import have_mosquitto
from host_tools import HostToolError
from host_tools.floor import floor_init
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import bridge, broker, pits
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.recorder.store import Store
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(
    not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


def stored(directory, table):
    path = os.path.join(directory, "recorder.sqlite")
    if not os.path.exists(path):
        return 0
    s = Store(path, readonly=True)
    try:
        return s.db.execute("select count(*) from events where tbl=?", (table,)).fetchone()[0]
    finally:
        s.close()


def wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what
        time.sleep(0.05)


@pytest.fixture
def bridged(tmp_path):
    directory = str(tmp_path / "floor")
    floor = floor_init.init(directory, 4, "test", broker.free_port(), broker.free_port(), pits=2)
    floor = record_feed.free_pit_ports(directory, floor)
    assert [(p["name"], p["tables"]) for p in floor["pits"]] == [("P1", ["T1", "T2"]), ("P2", ["T3", "T4"])]
    floor_broker = broker.Broker(directory)
    pit_brokers = [broker.Broker(bridge.pit_dir(directory, p)) for p in floor["pits"]]
    log = open(os.path.join(directory, "logs", "recorder.log"), "ab")
    urls = {t: "mqtt://127.0.0.1:%d" % pits.pit_of(floor, t)["port"] for t in floor["tables"]}
    feed = recorder = None
    try:  # every broker stopped, whichever failed to start
        floor_broker.start()
        for b in pit_brokers:
            b.start()
        recorder = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "recorder", "--dir", directory], stdout=log, stderr=log, cwd=ROOT
        )
        wait(lambda: b"connected to the broker" in open(log.name, "rb").read(), 30, "the recorder did not connect")
        # each bridge connected to the floor's broker (its log says so) before the tables publish
        wait(
            lambda: all(
                ("as bridge-P%d" % (i + 1)) in open(os.path.join(directory, "mosquitto.log")).read() for i in range(2)
            ),
            30,
            "the bridges did not connect",
        )
        feed = record_feed.Feed(directory, floor, urls)
        yield directory, floor, floor_broker, pit_brokers, feed
    finally:
        if feed:
            feed.stop()
        if recorder:
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(20)
        log.close()
        for b in pit_brokers:
            b.stop()
        floor_broker.stop()


def test_each_pits_tables_reach_the_floors_recorder_and_recorded_comes_back(bridged):
    directory, floor, _, _, feed = bridged
    journals = {t: record_feed.journal(t, 50) for t in floor["tables"]}
    feed.publish_all(journals)
    wait(lambda: all(stored(directory, t) == 50 for t in floor["tables"]), 30, "not every record stored")
    s = Store(os.path.join(directory, "recorder.sqlite"), readonly=True)
    try:
        for t in floor["tables"]:
            assert record_feed.check_store(s, t, 50) == []
        assert s.alerts() == []
    finally:
        s.close()
    # the recorder's `recorded` reaches the pit's broker, retained, where the table's gateway reads it
    got = threading.Event()
    seen = {}

    def on_message(topic, payload, retained):
        seen[topic] = topics.decode(payload)["seq"]
        if seen[topic] == 50:
            got.set()

    p2 = pits.pit_of(floor, "T3")
    c = Client(
        "mqtt://127.0.0.1:%d" % p2["port"],
        "gateway-T3",
        floordir.password(directory, "gateway-T3"),
        "probe-T3",
        on_message=on_message,
    )
    c.start()
    c.wait_connected(10)
    c.subscribe(topics.table("test", "T3", "recorded"))
    assert got.wait(10), seen
    c.stop()


def test_a_pits_bridge_cannot_speak_for_another_pits_table(bridged):
    directory, floor, _, _, feed = bridged
    # P1's bridge credential on the floor's broker, publishing T3's record (T3 is P2's): dropped by the ACL
    c = Client("mqtt://127.0.0.1:%d" % floor["port"], "bridge-P1", floordir.password(directory, "bridge-P1"), "forger")
    c.start()
    c.wait_connected(10)
    c.publish(topics.table("test", "T3", "event"), record_feed.journal("T3", 1)[0]).wait_for_publish(10)
    c.stop()
    feed.publish("T1", record_feed.journal("T1", 3))  # and P1's own table goes through, after it
    wait(lambda: stored(directory, "T1") == 3, 20, "T1's records did not arrive")
    assert stored(directory, "T3") == 0
    # and a gateway of P2's table has no account on P1's broker at all
    p1 = pits.pit_of(floor, "T1")
    c = Client("mqtt://127.0.0.1:%d" % p1["port"], "gateway-T3", floordir.password(directory, "gateway-T3"), "x")
    c.start()
    with pytest.raises(HostToolError, match="refused user gateway-T3"):
        c.wait_connected(5)
    c.stop()


def test_records_published_while_the_floors_broker_is_down_arrive_when_it_is_back(bridged):
    directory, floor, floor_broker, _, feed = bridged
    feed.publish("T1", record_feed.journal("T1", 40)[:20])
    wait(lambda: stored(directory, "T1") == 20, 20, "the first 20 did not arrive")
    floor_broker.stop()  # the floor's broker away: the pit's broker queues for its bridge
    feed.publish("T1", record_feed.journal("T1", 40)[20:])  # acknowledged by the pit's broker
    feed.publish("T4", record_feed.journal("T4", 10))
    back = time.monotonic()
    floor_broker.start()
    wait(
        lambda: stored(directory, "T1") == 40 and stored(directory, "T4") == 10, 40, "the queued records did not arrive"
    )
    catch_up = time.monotonic() - back
    s = Store(os.path.join(directory, "recorder.sqlite"), readonly=True)
    try:
        assert record_feed.check_store(s, "T1", 40) == [] and record_feed.check_store(s, "T4", 10) == []
    finally:
        s.close()
    assert catch_up < 30


def test_a_bridge_over_the_floors_tls_listener_with_its_own_certificate(tmp_path):
    """floor.json's `tls` on the floor's broker and the pit's `bridge_tls`: the bridge shows a
    certificate of the floor's CA whose CN is its account, and the floor's ACL applies to it."""
    directory = str(tmp_path / "floor")
    floor = floor_init.init(directory, 2, "test", broker.free_port(), broker.free_port(), pits=1)
    floor = record_feed.free_pit_ports(directory, floor)
    ca = CA(str(tmp_path))
    cert, key = ca.issue("broker", server=True)
    floor["tls"] = {"port": broker.free_port(), "cafile": ca.cert_file, "certfile": cert, "keyfile": key}
    bridge_cert, bridge_key = ca.issue("bridge-P1")
    floor["pits"][0]["floor_address"] = "127.0.0.1:%d" % floor["tls"]["port"]
    floor["pits"][0]["bridge_tls"] = {"cafile": ca.cert_file, "certfile": bridge_cert, "keyfile": bridge_key}
    floordir.write_json(os.path.join(directory, "floor.json"), floor)
    broker.write_config(directory, floor)
    bridge.write_pits(directory, floor)
    conf = open(os.path.join(bridge.pit_dir(directory, floor["pits"][0]), "mosquitto.conf")).read()
    assert "bridge_certfile %s" % os.path.abspath(bridge_cert) in conf and "bridge_tls_version tlsv1.2" in conf
    floor_broker = broker.Broker(directory)
    pit_broker = broker.Broker(bridge.pit_dir(directory, floor["pits"][0]))
    log = open(os.path.join(directory, "logs", "recorder.log"), "ab")
    feed = recorder = None
    try:
        floor_broker.start()
        pit_broker.start()
        recorder = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "recorder", "--dir", directory], stdout=log, stderr=log, cwd=ROOT
        )
        wait(lambda: b"connected to the broker" in open(log.name, "rb").read(), 30, "the recorder did not connect")
        wait(
            lambda: "as bridge-P1" in open(os.path.join(directory, "mosquitto.log")).read(),
            30,
            "the bridge did not connect over TLS",
        )
        feed = record_feed.Feed(directory, floor, "mqtt://127.0.0.1:%d" % floor["pits"][0]["port"])
        feed.publish("T2", record_feed.journal("T2", 20))
        wait(lambda: stored(directory, "T2") == 20, 30, "T2's records did not arrive over the TLS bridge")
    finally:
        if feed:
            feed.stop()
        if recorder:
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(20)
        log.close()
        pit_broker.stop()
        floor_broker.stop()
