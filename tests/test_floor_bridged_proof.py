"""Nothing lost, nothing doubled past one machine: two pits, each with its
own mosquitto bridged to the floor's, two tables in each (four in `make
proof`); the floor's record in PostgreSQL, written by two recorders at once.
Through a pit's broker SIGKILLed, the bridge cut (the floor's broker
SIGKILLed), either recorder SIGKILLed and PostgreSQL itself SIGKILLed, each
restarted at random points, every record of every board's journal is in
PostgreSQL exactly once, in order, its chain verified, equal to the board's
own journal.

Real parts only: Debian's mosquitto and PostgreSQL, the gateway and recorder
processes, virtual boards running the deployed firmware in the MicroPython
VM. `make test` runs a sample (8 rolls a table, each fault once); `make
proof` (FLOOR_PROOF=all) runs >= 10,000 events with faults at random points.
"""

import os
import random
import subprocess
import time

import pytest
from test_floor_proof import check_floor, settled_total

from bench.floor import localfloor as floor_rig
from bench.floor import pgserver
from bench.floor.localfloor import PY, Rig
from host_tools.floor.base import floordir
from host_tools.floor.bus import bridge, broker, pits
from host_tools.floor.pg import schema
from host_tools.floor.pg.store import PgStore
from sim.paths import ROOT

LONG = os.environ.get("FLOOR_PROOF") == "all"
# make proof: 8 tables (4 a pit) cross 10,000 events in half the time 4 would take; make test: 4
TABLES = tuple("T%d" % (i + 1) for i in range(8 if LONG else 4))

pytestmark = [
    pytest.mark.skipif(not floor_rig.have_mosquitto(), reason="mosquitto is not installed (make test installs it)"),
    pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or ""),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


class BridgedRig(Rig):
    """The floor rig with two pits bridged to the floor's broker and two recorders on PostgreSQL."""

    def __init__(self, folder, template, db_url):
        super().__init__(folder, TABLES, template)
        self.floor["pits"] = pits.assign(list(TABLES), 2, broker.free_port())
        for p in self.floor["pits"]:  # assign() numbers them on; free ports each
            p["port"], p["ws_port"] = broker.free_port(), broker.free_port()
        floordir.write_json(os.path.join(self.dir, "floor.json"), self.floor)
        self.floor = floordir.new_floor(self.dir, "test", list(TABLES), self.floor["port"], self.floor["ws_port"])
        broker.write_config(self.dir, self.floor)
        bridge.write_pits(self.dir, self.floor)
        self.broker = broker.Broker(self.dir)
        self.pit_brokers = {p["name"]: broker.Broker(bridge.pit_dir(self.dir, p)) for p in self.floor["pits"]}
        self.db_url = db_url
        self.recorders = {}

    def pit_url(self, t):
        return "mqtt://127.0.0.1:%d" % pits.pit_of(self.floor, t)["port"]

    def start_gateway(self, t, prefix=(), broker=None):
        super().start_gateway(t, prefix, broker or self.pit_url(t))

    def start_recorder(self, name=None):
        for n in [name] if name else ["a", "b"]:
            with open(self.log("recorder-" + n), "ab") as log:
                self.recorders[n] = subprocess.Popen(
                    [PY, "-m", "host_tools", "recorder", "--dir", self.dir, "--db", self.db_url, "--instance", n],
                    stdout=log,
                    stderr=log,
                    cwd=ROOT,
                )
        self.recorder = self.recorders.get("a")

    def store(self):
        return PgStore(self.db_url, readonly=True)

    def stop(self):
        for p in self.recorders.values():
            floor_rig._kill(p)  # (a process already ended is left alone)
        for b in self.pit_brokers.values():
            b.stop()
        super().stop()


def inject(rig, server, rng, kind):
    if kind == "pit broker":
        name = rng.choice(sorted(rig.pit_brokers))
        rig.pit_brokers[name].kill()
        time.sleep(rng.uniform(0.2, 2.0))
        rig.pit_brokers[name].start()
    elif kind == "bridge":  # the floor's broker gone: both bridges cut; the pits queue
        rig.broker.kill()
        time.sleep(rng.uniform(0.5, 3.0))
        rig.start_broker()
    elif kind == "recorder":
        name = rng.choice("ab")
        floor_rig._kill(rig.recorders[name])
        time.sleep(rng.uniform(0.0, 2.0))
        rig.start_recorder(name)
    elif kind == "postgresql":
        server.kill()
        time.sleep(rng.uniform(0.5, 3.0))
        server.start()


def run_floor(rig, server, rng, rolls_per_round, target, deadline):
    faults = []
    for t in rig.tables:
        rig.start_board(t, floor_rig.roll_script(rng, rolls_per_round, 1000))
    rig.start_recorder()
    rig.wait_log("recorder-a", "connected to the broker")
    rig.wait_log("recorder-b", "connected to the broker")
    for t in rig.tables:
        rig.start_gateway(t)
    for t in rig.tables:
        rig.wait_log("gateway-" + t, "broker connection")
    kinds = ["pit broker", "bridge", "recorder", "postgresql"]
    play = floor_rig.script_seconds(floor_rig.roll_script(random.Random(0), rolls_per_round, 1000))
    r = 0
    while True:
        order = kinds[:] if r == 0 else [rng.choice(kinds)]
        rng.shuffle(order)
        start = time.monotonic()
        for kind in order:
            time.sleep(rng.uniform(0.5, max(0.6, play / (len(order) + 1))))
            faults.append(kind)
            inject(rig, server, rng, kind)
        left = play - (time.monotonic() - start)
        if left > 0:
            time.sleep(left)
        total = settled_total(rig)
        r += 1
        print("round %d: %d events in PostgreSQL across %d tables" % (r, total, len(rig.tables)), flush=True)
        if total >= target or time.monotonic() > deadline:
            return faults
        for t in rig.tables:
            rig.kill_board(t)
            rig.start_board(t, floor_rig.roll_script(rng, rolls_per_round, 300))


@pytest.mark.timeout(3600 if LONG else 400)
def test_every_record_is_in_postgresql_exactly_once_through_pits_bridges_and_faults(tmp_path, template):
    rng = random.Random(int(os.environ.get("FLOOR_SEED", "31")))
    began = time.monotonic()
    server = pgserver.Server(fsync=True).start()
    rig = None
    try:
        url = server.create("floor")
        schema.migrate(url)
        rig = BridgedRig(str(tmp_path), template, url)
        rig.start_broker()
        for b in rig.pit_brokers.values():
            b.start()
        rolls, target = (60, 10000) if LONG else (8, len(TABLES) * 8)
        deadline = time.monotonic() + (2700 if LONG else 200)
        faults = run_floor(rig, server, rng, rolls, target, deadline)
        rows = rig.wait_quiet(600 if LONG else 120)
        assert [(r["presence"], r["lag"]) for r in rows] == [("online", 0)] * len(TABLES), rows
        rig.stop_gateways()
        journals = {t: rig.board_journal(t) for t in TABLES}
        total = check_floor(rig, journals)
        print(
            "events %d across %d tables in 2 pits in %.0f s; faults %s"
            % (total, len(TABLES), time.monotonic() - began, sorted(set(faults)))
        )
        assert total >= target
        assert set(faults) >= {"pit broker", "bridge", "recorder", "postgresql"}
    finally:
        if rig is not None:
            rig.stop()
        server.remove()
