"""The progressive's figures: a hit published by a table's gateway to PENDING on
the meter topic, and contributions per second through broker, controller and
ledger (every one a synced SQLite commit). Figures, not limits.

    python -m host_tools.floor.progressive.bench [--contributions 400] [--hits 20] [--out FILE]

A floor of its own in a temporary directory: the project's mosquitto, the
controller as its own process, three tables' gateway accounts publishing
progressive records (feed.TableJournal) and a read-only subscriber timing the
meter topic. "PENDING on every table" waits for the board's side; the
meter topic is what each table's gateway will read, so this is the floor's
part of it.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import paho.mqtt.client as mqtt

from host_tools.floor import broker, floordir, topics
from host_tools.floor.progressive import messages, params
from host_tools.floor.progressive.feed import TableJournal
from host_tools.floor.progressive.service import KEEPALIVE_S

TABLES = ("T1", "T2", "T3")


class Bench:
    def __init__(self, directory):
        self.dir = directory
        floor = floordir.new_floor(directory, tables=TABLES, port=broker.free_port(), ws_port=broker.free_port())
        broker.write_config(directory, floor)
        floordir.write_json(params.params_path(directory), params.default_params())
        self.port = floor["port"]
        self.broker = broker.Broker(directory).start()
        self.meters = {}
        self.cond = threading.Condition()
        self.clients = [self._client("floorctl", on_message=self._meter)]
        self.clients[0].subscribe([(topics.meter("main", "+"), 1), (messages.presence_topic("main"), 1)])
        self.presence = []  # (monotonic, word) of the controller's presence
        self.gateways = {t: self._client(floordir.gateway_user(t)) for t in TABLES}
        self.journals = {t: TableJournal(t) for t in TABLES}
        self.proc = None
        self._start()

    def _client(self, user, on_message=None):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-" + user)
        c.username_pw_set(user, floordir.password(self.dir, user))
        if on_message:
            c.on_message = on_message
        c.connect("127.0.0.1", self.port)
        c.loop_start()
        return c

    def _meter(self, client, userdata, m):
        if m.topic == messages.presence_topic("main"):
            with self.cond:
                self.presence.append((time.monotonic(), m.payload.decode()))
                self.cond.notify_all()
            return
        obj = json.loads(m.payload)
        with self.cond:
            self.meters[obj["game"]] = (time.monotonic(), obj)
            self.cond.notify_all()

    def wait(self, predicate, timeout=60.0):
        end = time.monotonic() + timeout
        with self.cond:
            while not predicate(self.meters.get("MEA", (0, {}))[1]):
                if not self.cond.wait(max(0.0, end - time.monotonic())) and time.monotonic() >= end:
                    raise RuntimeError("the meter did not get there in %.0f s" % timeout)
            return self.meters["MEA"]

    def send(self, table, kind, count):
        payload, _ = self.journals[table].record(kind, count, "MEA")
        return self.gateways[table].publish(topics.table("main", table, "event"), payload, qos=1)

    def contributions(self, n):
        start = self.wait(lambda m: m.get("state") == "open")[1]["rev"]
        t0 = time.monotonic()
        for i in range(n):
            self.send(TABLES[i % len(TABLES)], messages.PROG_WAGER, 1)
        at, _ = self.wait(lambda m: m.get("rev", 0) >= start + n, timeout=120.0)
        return n / (at - t0)

    def hits(self, k):
        out = []
        for i in range(k):
            rev = self.wait(lambda m: "rev" in m)[1]["rev"]
            self.send("T1", messages.PROG_WAGER, 1)
            self.wait(lambda m, rev=rev: m["rev"] > rev)
            want = i + 1
            t0 = time.monotonic()
            self.send("T1", messages.PROG_HIT, 1)
            at, _ = self.wait(lambda m, n=want: m["state"] == "pending" and (m.get("last_hit") or {}).get("n") == n)
            out.append(at - t0)
        return out

    def _start(self):
        log = open(os.path.join(self.dir, "logs", "progressive.log"), "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", self.dir], stdout=log, stderr=log
        )
        log.close()

    def _presence_after(self, t0, word, timeout=30.0):
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                hit = [at for at, w in self.presence if at >= t0 and w == word]
                if hit:
                    return hit[0] - t0
                if time.monotonic() >= end:
                    raise RuntimeError("the controller's presence did not say %s" % word)
                self.cond.wait(0.1)

    def link_loss(self):
        """Seconds from the controller going silent (SIGSTOP) and from its death (SIGKILL)
        to `offline` at a subscriber, and back to `online`."""
        out = {}
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGSTOP)
        out["silent_to_offline_s"] = self._presence_after(t0, topics.OFFLINE)
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGCONT)
        out["resumed_to_online_s"] = self._presence_after(t0, topics.ONLINE)
        t0 = time.monotonic()
        self.proc.kill()
        self.proc.wait()
        out["killed_to_offline_s"] = self._presence_after(t0, topics.OFFLINE)
        t0 = time.monotonic()
        self._start()
        out["restarted_to_online_s"] = self._presence_after(t0, topics.ONLINE)
        return {k: round(v, 3) for k, v in out.items()}

    def close(self):
        self.proc.terminate()
        self.proc.wait(15)
        for c in self.clients + list(self.gateways.values()):
            c.disconnect()
            c.loop_stop()
        self.broker.stop()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.floor.progressive.bench")
    ap.add_argument("--contributions", type=int, default=400)
    ap.add_argument("--hits", type=int, default=20)
    ap.add_argument("--out", default=os.path.join("build", "progressive_bench.json"))
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        bench = Bench(d)
        try:
            per_s = bench.contributions(args.contributions)
            latencies = bench.hits(args.hits)
            loss = bench.link_loss()
        finally:
            bench.close()
    result = {
        "load_average_at_start": round(load, 1),
        "contributions_per_s": round(per_s, 1),
        "hit_to_pending_ms": {
            "p50": round(percentile(latencies, 50) * 1000, 1),
            "p99": round(percentile(latencies, 99) * 1000, 1),
            "samples": len(latencies),
        },
        "controller_presence": loss,
        "notes": {
            "controller_presence": "its retained presence at a subscriber: SIGSTOP (silent; the broker's "
            "1.5 x keepalive of %d s) and SIGCONT, SIGKILL (its TCP connection closes) and a restart "
            "(Python's start-up included)" % KEEPALIVE_S,
            "contributions_per_s": "prog_wager records from 3 gateway accounts as fast as paho sends them, "
            "to the meter showing the last; each a synced SQLite commit and a retained publish",
            "hit_to_pending_ms": "a prog_hit published by a gateway account to the meter topic saying pending "
            "with that hit, at a read-only subscriber (lock, pay and reseed: two synced commits); p99 is the "
            "slowest when there are fewer than 100 samples",
        },
    }
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
