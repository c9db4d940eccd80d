"""A small floor for the page's tests: a real mosquitto from the floor's own
configuration, people added as `floor user add` adds them, the page's service
connection, and a table's gateway identity that publishes journal records."""

import time

import paho.mqtt.client as mqtt

from host_tools.floor import broker, floordir, people, topics
from host_tools.floor.page.bus import ServiceBus
from host_tools.floor.page.floorview import FloorView

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
        for name, (role, password) in PEOPLE.items():
            people.add_person(self.dir, name, role, password)
        self.floor = floordir.read_floor(self.dir)
        self.broker = broker.Broker(self.dir).start()
        self.tables = tables
        self.escalate_after = escalate_after
        self.gateways = {}
        self.service = None
        self.fresh_view()

    def fresh_view(self):
        """A new page service (view and broker connection): the people and the broker stay."""
        if self.service is not None:
            self.service.stop()
        self.clock = Clock()
        self.view = FloorView("main", self.tables, self.escalate_after, clock=self.clock)
        self.service = ServiceBus(self.floor, floordir.password(self.dir, "page"), self.view).start()

    def gateway(self, table):
        if table not in self.gateways:
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="gw-" + table)
            c.username_pw_set(floordir.gateway_user(table), floordir.password(self.dir, floordir.gateway_user(table)))
            c.connect("127.0.0.1", self.floor["port"])
            c.loop_start()
            self.gateways[table] = c
        return self.gateways[table]

    def publish(self, table, records, board="b0", journal=1):
        c = self.gateway(table)
        for r in records:
            payload = topics.event_payload(table, board, journal, r, "00" * 32)
            c.publish(topics.table("main", table, "event"), payload, qos=1).wait_for_publish(5)

    def presence(self, table, word):
        c = self.gateway(table)
        c.publish(topics.table("main", table, "presence"), word.encode(), qos=1, retain=True).wait_for_publish(5)

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
        self.broker.stop()
