"""A small floor for the page's tests: a real mosquitto from the floor's own
configuration, the floor's real recorder (host_tools/floor/recorder/service.py, in a
thread), people added as `floor user add` adds them, the page's service
connection, and a table's gateway identity that publishes journal records
with their real chain links, as a gateway does."""

import os
import threading
import time

import paho.mqtt.client as mqtt

from bench.floor import progressive_feed
from crapsboard.journal import journal_record as jr
from host_tools import keys, sync
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.bus import broker
from host_tools.floor.page.bus import ServiceBus
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.page.recorded import PeopleLog, RecordedCopy
from host_tools.floor.people import accounts as people
from host_tools.floor.recorder import service as recorder

PEOPLE = {
    "ann": ("surveillance", "ann's long password"),
    "bob": ("supervisor", "bob's long password"),
    "sam": ("shift_manager", "sam's long password"),
    "tom": ("technician", "tom's long password"),
}


class Clock:
    """A clock the test moves: sessions and escalations read it."""

    def __init__(self, now=1_800_000_000.0):
        self.now = now

    def __call__(self):
        return self.now


class Floor:
    def __init__(self, directory, tables=("T1", "T2"), escalate_after=120.0):
        self.dir = str(directory)
        self.floor = floordir.new_floor(self.dir, tables=tables, port=broker.free_port(), ws_port=broker.free_port())
        broker.write_config(self.dir, self.floor)
        for t in tables:  # each table's board key and its role keys, as `floor init` makes them
            # the fed tables' keys (bench/floor/progressive_feed.py), so its records check here too
            keys.save_key(os.path.join(self.dir, "keys", t + ".key"), progressive_feed.feed_link_key(t))
            floorkeys.provision(self.dir, t, progressive_feed.feed_link_key(t))
        for name, (role, password) in PEOPLE.items():
            people.add_person(self.dir, name, role, password)
        self.floor = floordir.read_floor(self.dir)
        self.broker = broker.Broker(self.dir).start()
        self.stopping = False
        self.recorder_ready = threading.Event()
        self.recorder = threading.Thread(target=self._record, daemon=True)
        self.recorder.start()
        # what a test publishes next reaches the recorder: the broker has its subscriptions
        if not self.recorder_ready.wait(30):
            raise RuntimeError("the recorder did not subscribe within 30 s")
        self.tables = tables
        self.escalate_after = escalate_after
        self.gateways = {}
        self.service = None
        self.fresh_view()

    def fresh_view(self, keep_log=False):
        """A new page service (view and broker connection): the people and the broker stay;
        `keep_log`: the page restarted (the same page.sqlite), else a page of its own."""
        if self.service is not None:
            self.service.stop()
            self.view.copy.close()
            self.view.log.close()
        self.clock = Clock()
        copy = RecordedCopy(os.path.join(self.dir, "recorder.sqlite"))
        self.views = getattr(self, "views", 0) + (0 if keep_log else 1)
        log = PeopleLog(os.path.join(self.dir, "page-%d.sqlite" % self.views))  # each test's page its own people
        self.view = FloorView(
            "main", self.tables, self.escalate_after, clock=self.clock, copy=copy, log=log, keys_dir=self.dir
        )
        self.service = ServiceBus(self.floor, floordir.password(self.dir, "page"), self.view).start()

    def gateway(self, table):
        if table not in self.gateways:
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="gw-" + table)
            c.username_pw_set(floordir.gateway_user(table), floordir.password(self.dir, floordir.gateway_user(table)))
            c.connect("127.0.0.1", self.floor["port"])
            c.loop_start()
            self.gateways[table] = c
        return self.gateways[table]

    def _record(self):
        url = "mqtt://127.0.0.1:%d" % self.floor["port"]
        password = floordir.password(self.dir, "recorder")
        store = os.path.join(self.dir, "recorder.sqlite")
        recorder.serve(
            store,
            "main",
            url,
            "recorder",
            password,
            stop=lambda: self.stopping,
            keys_dir=self.dir,
            ready=self.recorder_ready,
        )

    def publish(self, table, journal, records=None, board="0b0a0d", journal_id=1):
        """`records` of Journal `journal` (default all) on the table's event topic, as its gateway would.
        The journal is written as the table's board writes it, each record with its MAC under the
        table's journal key (format 2); a record given with other fields than the journal's keeps
        the genuine one's link and MAC (a forgery), one that carries a `mac` of its own keeps it."""
        c = self.gateway(table)
        keyed = self._keyed(table, journal)
        for r in journal.records if records is None else records:
            prev, link, mac = keyed[r["seq"]]
            r = dict(r, link=link, mac=r.get("mac", mac))
            payload = topics.event_payload(table, board, journal_id, r, prev)
            c.publish(topics.table("main", table, "event"), payload, qos=1).wait_for_publish(5)

    def _keyed(self, table, journal):
        """{seq: (prev, link, mac)} of `journal` written under `table`'s journal key (format 2)."""
        mac = jr.Mac(floorkeys.read(self.dir, table, "journal"))
        prev = bytes.fromhex(journal.prevs[0])
        out = {}
        for r in journal.records:
            fields = {k: v for k, v in r.items() if k != "link"}
            _, digest = sync.encode_fields(dict(fields, mac="00" * jr.MAC_SIZE), prev)
            out[r["seq"]] = (prev.hex(), digest[: jr.LINK_SIZE].hex(), mac.tag(digest).hex())
            prev = digest
        return out

    def state(self, table, **fields):
        """The table's retained state, as its gateway would publish it."""
        c = self.gateway(table)
        payload = topics.encode(dict({"table": table}, **fields))
        c.publish(topics.table("main", table, "state"), payload, qos=1, retain=True).wait_for_publish(5)

    def presence(self, table, word):
        c = self.gateway(table)
        c.publish(topics.table("main", table, "presence"), word.encode(), qos=1, retain=True).wait_for_publish(5)

    def watch(self, topic):
        """[(topic, payload)] that arrive on `topic` (as the floor's read-only `floorctl` account) from now."""
        got = []
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="watch-%d" % len(self.gateways))
        c.username_pw_set("floorctl", floordir.password(self.dir, "floorctl"))
        subscribed = threading.Event()
        c.on_message = lambda client, userdata, m: got.append((m.topic, m.payload))
        c.on_connect = lambda client, userdata, flags, reason, properties: client.subscribe(topic, qos=1)
        c.on_subscribe = lambda client, userdata, mid, reason_codes, properties: subscribed.set()
        c.connect("127.0.0.1", self.floor["port"])
        c.loop_start()
        self.gateways["watch-%d" % len(self.gateways)] = c
        assert subscribed.wait(10), "no SUBACK for " + topic
        return got

    def wait(self, predicate, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.view.lock:
                if predicate(self.view):
                    return True
            time.sleep(0.02)
        return False

    def close(self):
        for c in self.gateways.values():
            c.disconnect()
            c.loop_stop()
        self.service.stop()
        self.stopping = True
        self.recorder.join(10)
        self.broker.stop()
