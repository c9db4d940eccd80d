"""The progressive's figures: a hit published by a table's gateway to PENDING on
the meter topic, and contributions per second through broker, controller and
ledger (every one a synced SQLite commit). Figures, not limits.

    python -m bench.floor.progressive_bench [--contributions 400] [--hits 20] [--board-hits 20] [--out FILE]
        [--postgresql]

With `--postgresql`, the controller's ledger and the recorder's copy (which
judges every record from the bus) are on a PostgreSQL of the bench's own
(bench/floor/pgserver.py, fsync on), as `make floor PG=1` runs them.

A floor of its own in a temporary directory: the project's mosquitto, the
controller as its own process, three tables' gateway accounts publishing
progressive records (feed.TableJournal) and a read-only subscriber timing the
meter topic. The meter topic is what each table's gateway reads, so this
is the floor's part of "hit -> PENDING on every table".

With boards (`--board-hits N`, 0 to skip): three virtual boards (the
firmware in the MicroPython VM, localfloor.Rig), each with its gateway
process, the broker and the controller. One board is keyed a wager and the
ten MEA numbers; timed from its prog_hit record at a subscriber (where the
controller gets it; the board's gateway reading the record is before that)
to each gateway's log saying its board took `pending`; then the shift
manager's acknowledgement, and `open` on every board before the next.
Contributions per second are not measured through boards: a board's count
is four key presses (the key feed plays one per 0.2 s), so it would measure
the key feed.
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

from bench.floor import doc_figures, localfloor, pgserver, progressive_feed
from bench.floor.progressive_feed import TableJournal
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.people import accounts as people
from host_tools.floor.pg import schema
from host_tools.floor.progressive import integrity, messages, params
from host_tools.floor.progressive.service import KEEPALIVE_S

TABLES = ("T1", "T2", "T3")
# The top award of MEA Progressive keyed on a board: a half-entered roll
# dropped (`*`), a 7 (so MEA's cycle is open whatever a missed key left),
# one wager, then the ten numbers once each with no 7.
KEYED_HIT = "* 3 4 # 1 1 # 1 1 1 2 2 2 2 3 3 3 4 4 4 5 5 5 5 6 6 6 *"
HIT_WAIT_S = localfloor.script_seconds(KEYED_HIT) + 20.0
KEY_ATTEMPTS = 3
LOSS_SAMPLES = 3  # the controller SIGKILLed and restarted with the boards watching
MANAGER = ("sam", "shift_manager", "the bench's shift manager")
LOG_POLL_S = 0.01  # the gateways' logs are read this often: the board figures' resolution


class Bench:
    def __init__(self, directory, db=None):
        """`db`: a postgresql:// URL, migrated, holding the controller's ledger and the recorder's copy."""
        self.dir = directory
        self.db = db
        floor = floordir.new_floor(directory, tables=TABLES, port=broker.free_port(), ws_port=broker.free_port())
        broker.write_config(directory, floor)
        progressive_feed.provision(directory, TABLES)
        floordir.write_json(params.params_path(directory), params.default_params())
        integrity.install(directory)  # the installation step: the controller's code recorded
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
        on_db = ["--ledger", self.db, "--db", self.db] if self.db else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", self.dir] + on_db,
            stdout=log,
            stderr=log,
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


class LogTail:
    """Lines of the gateways' logs about the board's MEA state, stamped (monotonic) as they appear."""

    def __init__(self, rig):
        self.rig = rig
        self.offsets = {t: rig.log_size("gateway-" + t) for t in rig.tables}
        self.lines = []  # (monotonic, table, line)
        self.cond = threading.Condition()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.wait(LOG_POLL_S):
            for t, offset in self.offsets.items():
                try:
                    with open(self.rig.log("gateway-" + t), "rb") as f:
                        f.seek(offset)
                        data = f.read()
                except FileNotFoundError:  # its gateway not started yet
                    continue
                end = data.rfind(b"\n") + 1
                if not end:
                    continue
                self.offsets[t] = offset + end
                now = time.monotonic()
                with self.cond:
                    for line in data[:end].decode("utf-8", "replace").splitlines():
                        if "progressive MEA" in line:
                            self.lines.append((now, t, line))
                    self.cond.notify_all()

    def on_every_board(self, state, since, timeout=60.0):
        """{table: when its gateway said the board took `state`}, each the first after `since`."""
        text = "progressive MEA %s on the board" % state
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                found = {}
                for at, t, line in self.lines:
                    if at >= since and text in line and t not in found:
                        found[t] = at
                if len(found) == len(self.offsets):
                    return found
                if time.monotonic() >= end:
                    raise RuntimeError("no %r from %s" % (text, sorted(set(self.offsets) - set(found))))
                self.cond.wait(0.1)

    def close(self):
        self.stop.set()
        self.thread.join(5)


class BoardsBench:
    """Three virtual boards, their gateways, the broker and the controller (localfloor.Rig)."""

    def __init__(self, folder):
        template = localfloor.make_template(os.path.join(folder, "template"))
        self.rig = rig = localfloor.Rig(folder, TABLES, template, keepalive=2)
        self.floor = rig.floor["floor"]
        floordir.write_json(params.params_path(rig.dir), params.default_params())
        people.add_person(rig.dir, *MANAGER)
        self.proc = None
        self.watchers = []
        self.tail = None
        self.missed = 0  # hits keyed again because the board missed a key
        try:
            self._start()
        except BaseException:
            self.close()  # what started is stopped: the caller's `finally` has no bench yet
            raise

    def _start(self):
        rig = self.rig
        rig.start_broker()
        for t in TABLES:
            rig.start_board(t)
        self._start_controller()
        self.events, self.meters = [], []  # (monotonic, text) as a subscriber gets them
        self.watchers.append(localfloor.watch_stamped(rig, topics.table(self.floor, "+", "event"), self.events))
        self.watchers.append(localfloor.watch_stamped(rig, topics.meter(self.floor, "MEA"), self.meters))
        self.tail = LogTail(rig)
        for t in TABLES:
            rig.start_gateway(t)
        self.tail.on_every_board("open", 0.0, timeout=120.0)

    def _start_controller(self):
        self.proc = self.rig.start_progressive()

    def controller_loss(self):
        """(the controller SIGKILLed -> closed on every board, restarted -> open on every board), seconds."""
        self.proc.kill()
        self.proc.wait()
        killed = time.monotonic()
        closed = self.tail.on_every_board("closed", killed)
        self._start_controller()
        started = time.monotonic()
        opened = self.tail.on_every_board("open", started, timeout=120.0)
        return max(closed.values()) - killed, max(opened.values()) - started

    def _first(self, stamped, since, predicate, what, timeout=60.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for at, text in list(stamped):
                if at >= since and predicate(json.loads(text)):
                    return at, json.loads(text)
            time.sleep(LOG_POLL_S)
        raise RuntimeError("no %s in %.0f s" % (what, timeout))

    def hit(self, table):
        """(hit on the bus -> the meter topic pending, -> pending on every board), seconds."""

        def its_hit(obj):
            return obj.get("table") == table and messages.kind_code(obj["record"]["kind"]) == messages.PROG_HIT

        for attempt in range(KEY_ATTEMPTS):
            since = time.monotonic()
            self.rig.press(table, KEYED_HIT)
            try:
                at_hit, _ = self._first(self.events, since, its_hit, "prog_hit record from " + table, HIT_WAIT_S)
                break
            except RuntimeError:
                if attempt == KEY_ATTEMPTS - 1:
                    raise
                self.missed += 1  # a key the loaded board missed shifted the dice: keyed again
        at_meter, meter = self._first(self.meters, at_hit, lambda m: m["state"] == "pending", "pending meter")
        boards = self.tail.on_every_board("pending", at_hit)
        acked = time.monotonic()
        body = {"v": 1, "alert": "prog-MEA-%d" % meter["last_hit"]["n"], "note": "bench", "at": int(time.time())}
        topic = topics.ack(self.floor, MANAGER[1], MANAGER[0])
        localfloor.publish(self.rig, MANAGER[0], topic, json.dumps(body), password=MANAGER[2])
        self.tail.on_every_board("open", acked)
        return at_meter - at_hit, max(boards.values()) - at_hit

    def close(self):
        if self.tail is not None:
            self.tail.close()
        for w in self.watchers:
            w.stop()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)
        self.rig.stop()


def boards_figures(samples):
    with tempfile.TemporaryDirectory() as d:
        bench = BoardsBench(d)
        try:
            runs = [bench.hit(TABLES[i % len(TABLES)]) for i in range(samples)]
            losses = [bench.controller_loss() for _ in range(LOSS_SAMPLES)]
        finally:
            bench.close()
    meter, boards = [r[0] for r in runs], [r[1] for r in runs]
    return {
        "hit_to_meter_pending_ms": milliseconds(meter),
        "hit_to_pending_on_every_board_ms": milliseconds(boards),
        "controller_killed_to_closed_on_every_board_ms": milliseconds([loss[0] for loss in losses]),
        "controller_restarted_to_open_on_every_board_ms": milliseconds([loss[1] for loss in losses]),
        "keyed_again": bench.missed,
    }


def milliseconds(seconds):
    return {
        "p50": round(percentile(seconds, 50) * 1000, 1),
        "p99": round(percentile(seconds, 99) * 1000, 1),
        "samples": len(seconds),
    }


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.floor.progressive_bench")
    ap.add_argument("--contributions", type=int, default=400)
    ap.add_argument("--hits", type=int, default=20)
    ap.add_argument("--board-hits", type=int, default=20, help="hits keyed on virtual boards (0: none)")
    ap.add_argument("--out", default=os.path.join("build", "progressive_bench.json"))
    ap.add_argument(
        "--postgresql",
        action="store_true",
        help="the controller's ledger and the recorder's copy on a PostgreSQL of the bench's own (fsync on)",
    )
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    server = pgserver.Server(fsync=True).start() if args.postgresql else None
    try:
        db = None
        if server:
            db = server.create("floor")
            schema.migrate(db)
        with tempfile.TemporaryDirectory() as d:
            bench = Bench(d, db)
            try:
                per_s = bench.contributions(args.contributions)
                latencies = bench.hits(args.hits)
                loss = bench.link_loss()
            finally:
                bench.close()
    finally:
        if server:
            server.remove()
    with_boards = boards_figures(args.board_hits) if args.board_hits else None
    result = {
        "load_average_at_start": round(load, 1),
        "contributions_per_s": round(per_s, 1),
        "hit_to_pending_ms": milliseconds(latencies),
        "controller_presence": loss,
        "notes": {
            "controller_presence": "its retained presence at a subscriber: SIGSTOP (silent; the broker's "
            "1.5 x keepalive of %d s) and SIGCONT, SIGKILL (its TCP connection closes) and a restart "
            "(Python's start-up included)" % KEEPALIVE_S,
            "contributions_per_s": "prog_wager records from 3 gateway accounts as fast as paho sends them, "
            "to the meter showing the last; each a synced commit and a retained publish"
            + (
                " (the ledger and the recorder's copy on PostgreSQL, fsync on: each record judged by the copy)"
                if args.postgresql
                else " (a synced SQLite commit; no recorder's copy)"
            ),
            "hit_to_pending_ms": "a prog_hit published by a gateway account to the meter topic saying pending "
            "with that hit, at a read-only subscriber (lock, pay and reseed: two synced commits); p99 is the "
            "slowest when there are fewer than 100 samples",
        },
    }
    if with_boards is not None:
        with_boards["notes"] = {
            "hit_to_meter_pending_ms": "as hit_to_pending_ms, from a hit keyed on a virtual board (its "
            "prog_hit record at a subscriber, as the controller gets it)",
            "hit_to_pending_on_every_board_ms": "from that record at a subscriber to the last of the three "
            "gateways logging that its board took `pending` (the signed `progressive` request answered); "
            "the logs are read every %d ms" % (LOG_POLL_S * 1000),
            "keyed_again": "hits keyed a second time because the loaded board missed a key (no hit came)",
            "controller_killed_to_closed_on_every_board_ms": "the controller SIGKILLed (its last will "
            "`offline` at once) to the last of the three gateways logging that its board took `closed`; "
            "%d samples" % LOSS_SAMPLES,
            "controller_restarted_to_open_on_every_board_ms": "the controller started again to the last "
            "gateway logging that its board took `open` (the process's start-up included)",
            "contributions_per_s": "not through boards: a count is four key presses at the key feed's 0.2 s, "
            "so boards would measure the key feed; see contributions_per_s",
        }
        result["with_boards"] = with_boards
    result["stamp"] = doc_figures.bench_stamp("progressive_bench", sys.argv[1:] if argv is None else argv)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
