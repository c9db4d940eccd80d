"""The floor rig (localfloor.Rig) with its tables in pits: each pit a
mosquitto of its own bridged to the floor's (host_tools/floor/bus/bridge.py,
as `make floor PITS=N` writes them), each gateway on its pit's broker, the
recorder (SQLite) on the floor's. For the benches that put the same boards on
one floor broker and on pits, side by side."""

import os

from bench.floor.localfloor import Rig
from host_tools.floor.base import floordir
from host_tools.floor.bus import bridge, broker, pits


class PitRig(Rig):
    def __init__(self, folder, tables, template, pit_count=2, keepalive=10):
        super().__init__(folder, tables, template, keepalive=keepalive)
        self.floor["pits"] = pits.assign(list(self.tables), pit_count, broker.free_port())
        for p in self.floor["pits"]:  # assign() numbers ports on from one; another test's broker may hold those
            p["port"], p["ws_port"] = broker.free_port(), broker.free_port()
        floordir.write_json(os.path.join(self.dir, "floor.json"), self.floor)
        # made again so the bridges' accounts get their passwords (the pits are kept from floor.json)
        self.floor = floordir.new_floor(self.dir, "test", self.tables, self.floor["port"], self.floor["ws_port"])
        broker.write_config(self.dir, self.floor)
        bridge.write_pits(self.dir, self.floor)
        self.pit_brokers = {p["name"]: broker.Broker(bridge.pit_dir(self.dir, p)) for p in self.floor["pits"]}

    def pit_url(self, t):
        return "mqtt://127.0.0.1:%d" % pits.pit_of(self.floor, t)["port"]

    def start_broker(self):
        super().start_broker()
        for b in self.pit_brokers.values():
            b.start()

    def start_gateway(self, t, prefix=(), broker=None):
        super().start_gateway(t, prefix, broker or self.pit_url(t))

    def stop(self):
        super().stop()  # the gateways, recorder and boards, then the floor's broker
        for b in self.pit_brokers.values():
            b.stop()
