"""A floor for the progressive's tests: a real mosquitto from the floor's own
configuration, the controller as its own process (`python -m host_tools floor
progressive`, so it can be SIGKILLed), tables' gateway identities that publish
progressive journal records with their real chain links (feed.TableJournal:
the firmware's journal_record.encode), as a gateway carries a board's
records, and a read-only watcher of the meters. TableGateway plays a table's
gateway on the broker's side as host_tools/floor/gateway/service.py does (its real
outbox and MQTT client), so a gateway can be killed and restarted."""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import paho.mqtt.client as mqtt

import host_tools  # noqa: F401  (firmware/lib on the path)
from bench.floor import progressive_feed
from bench.floor.progressive_feed import TableJournal
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.gateway.outbox import Outbox
from host_tools.floor.people import accounts as people
from host_tools.floor.progressive import integrity, ledger, messages, params

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEOPLE = {
    "sam": ("shift_manager", "sam's long password"),
    "tom": ("technician", "tom's long password"),
    "bob": ("supervisor", "bob's long password"),
}
# MEA: $1 unit, 10% to the meter, 2% hidden; FUP: $5 unit, 5% and 1%, positional pays.
PARAMS = {
    "MEA": {
        "paytable": "PT-BJS-MEA-01",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 100_000,
        "reserve_ppm": 20_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
        "pay_rule": "shared",
    },
    "FUP": {
        "paytable": "PT-BJS-FUP-05",
        "base_unit": 500,
        "base": 500_000,
        "reset": 500_000,
        "increment_ppm": 50_000,
        "reserve_ppm": 10_000,
        "reserve_ceiling": 1_000_000,
        "cap": 10_000_000,
        "pay_rule": "positional",
    },
}


def read_ledger(floor):
    """(seen rows (tbl, board, journal, seq, n), stored meters, log rows) of the controller's ledger."""
    book = ledger.Ledger(os.path.join(floor.dir, "progressive.sqlite"), readonly=True)
    try:
        seen = book.db.execute("select tbl, board, journal, seq, n from seen").fetchall()
        return seen, book.meters(book.params()), book.log_rows()
    finally:
        book.close()


class Floor:
    def __init__(self, directory, tables=("T1", "T2", "T3"), game_params=None, with_people=True):
        self.dir = str(directory)
        self.floor = floordir.new_floor(self.dir, tables=tables, port=broker.free_port(), ws_port=broker.free_port())
        broker.write_config(self.dir, self.floor)
        progressive_feed.provision(self.dir, tables)
        floordir.write_json(params.params_path(self.dir), game_params or PARAMS)
        integrity.install(self.dir)  # the installation step: the controller's code recorded
        if with_people:
            for name, (role, password) in PEOPLE.items():
                people.add_person(self.dir, name, role, password)
        self.floor = floordir.read_floor(self.dir)
        self.broker = broker.Broker(self.dir).start()
        self.url = "mqtt://127.0.0.1:%d" % self.floor["port"]
        self.clients = {}
        self.journals = {t: TableJournal(t) for t in tables}
        self.proc = None
        self.meters = {}  # game -> the last meter seen (dict)
        self.seen = []  # every (topic, payload) the watcher got
        self.cond = threading.Condition()
        self.watch()

    # ---- the controller -----------------------------------------------------------

    def start_controller(self):
        """The controller, once it has said `online` (after its SUBSCRIBEs on the same
        connection: a record published from then on reaches it) or `refused`, or has ended."""
        words = len(self.presence_words())
        log = open(os.path.join(self.dir, "logs", "progressive.log"), "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", self.dir],
            cwd=ROOT,
            stdout=log,
            stderr=log,
        )
        log.close()
        said = (topics.ONLINE, messages.REFUSED)
        assert self.wait(
            lambda: any(w in said for w in self.presence_words()[words:]) or self.proc.poll() is not None, 60
        ), "the controller said neither online nor refused in 60 s"
        return self.proc

    def kill_controller(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)
        self.proc.wait(15)

    def start_recorder(self):
        """The floor's recorder as its own process (the controller reads its copy for what the bus lost)."""
        log = open(os.path.join(self.dir, "logs", "recorder.log"), "ab")
        self.recorder = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "recorder", "--dir", self.dir], cwd=ROOT, stdout=log, stderr=log
        )
        log.close()
        end = time.monotonic() + 30
        while time.monotonic() < end:  # subscribed: from now on the broker keeps its session's messages
            with open(os.path.join(self.dir, "logs", "recorder.log"), encoding="utf-8", errors="replace") as f:
                if "connected to the broker" in f.read():
                    return
            time.sleep(0.1)
        raise AssertionError("the recorder did not connect")

    def controller_log(self):
        with open(os.path.join(self.dir, "logs", "progressive.log"), encoding="utf-8", errors="replace") as f:
            return f.read()

    # ---- clients ----------------------------------------------------------------------

    def client(self, user, password=None, name=None):
        name = name or user
        if name not in self.clients:
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-" + name)
            c.username_pw_set(user, password or floordir.password(self.dir, user))
            c.reconnect_delay_set(0.2, 1)
            c.connect("127.0.0.1", self.floor["port"])
            c.loop_start()
            self.clients[name] = c
        return self.clients[name]

    def gateway(self, table):
        return self.client(floordir.gateway_user(table))

    def send(self, table, kind, count, game="MEA", positions=None):
        """A progressive record of `table`'s board, published as its gateway does; returns it."""
        payload, rec = self.journals[table].record(kind, count, game, positions)
        self.republish(table, payload)
        return payload, rec

    def send_config(self, table, paytables):
        """A configuration record of `table`'s board ({wager name: paytable id} in force)."""
        payload, rec = self.journals[table].config(paytables)
        self.republish(table, payload)
        return payload, rec

    def republish(self, table, payload):
        info = self.gateway(table).publish(topics.table("main", table, "event"), payload, qos=1)
        try:
            info.wait_for_publish(5)
        except RuntimeError:  # the broker is away: paho keeps it and sends it on reconnecting
            pass

    def ack(self, person, alert_id, note=""):
        role, password = PEOPLE[person]
        c = self.client(person, password)
        body = topics.encode({"alert": alert_id, "note": note, "at": int(time.time())})
        c.publish(topics.ack("main", role, person), body, qos=1).wait_for_publish(5)

    def presence(self, table, word):
        c = self.gateway(table)
        c.publish(topics.table("main", table, "presence"), word.encode(), qos=1, retain=True).wait_for_publish(5)

    def watch(self):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-watcher")
        c.username_pw_set("floorctl", floordir.password(self.dir, "floorctl"))

        def on_message(client, userdata, m):
            with self.cond:
                self.seen.append((m.topic, m.payload))
                if m.topic.endswith("/meter"):
                    obj = json.loads(m.payload)
                    self.meters[obj.get("game")] = obj
                self.cond.notify_all()

        c.on_message = on_message
        c.on_connect = lambda client, u, f, r, p: client.subscribe("crapsfloor/v1/main/progressive/#", qos=1)
        c.reconnect_delay_set(0.2, 1)
        c.connect("127.0.0.1", self.floor["port"])
        c.loop_start()
        self.clients["watcher"] = c

    def wait(self, predicate, timeout=15.0):
        end = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(min(left, 0.1))
        return True

    def presence_words(self):
        return [p.decode() for t, p in self.seen if t.endswith("/progressive/presence")]

    def after_handling(self, *words, timeout=15.0):
        """Wait until the controller's log holds each of `words` (what it
        decided about an input), then for two more meter messages (a heartbeat
        every 2 s): whatever it was to publish about that input has come by
        then, so a test of what did *not* change is bounded by an event."""
        assert self.wait(lambda: all(w in self.controller_log() for w in words), timeout), words
        meters = sum(1 for t, _ in self.seen if t.endswith("/meter"))
        games = max(1, len(self.meters))
        assert self.wait(lambda: sum(1 for t, _ in self.seen if t.endswith("/meter")) >= meters + 2 * games, timeout)

    def after_presence(self, timeout=15.0):
        """Wait for the controller's next presence heartbeat: a stranger's word
        published before it has been heard by then."""
        words = len(self.presence_words())
        assert self.wait(lambda: len(self.presence_words()) > words, timeout)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.kill_controller(signal.SIGTERM)
        if getattr(self, "recorder", None) is not None and self.recorder.poll() is None:
            self.recorder.terminate()
            self.recorder.wait(15)
        for c in self.clients.values():
            c.disconnect()
            c.loop_stop()
        self.broker.stop()


GATEWAY_WINDOW = 200  # records published and not yet acknowledged, at most (gateway.WINDOW)
RECORDED_WAIT_S = 0.5  # gateway.RECORDED_WAIT_S


class TableGateway:
    """A table's gateway on the broker's side, as host_tools/floor/gateway/service.py
    runs it, over a board whose journal is `floor.journals[table]`: its own
    thread fetches the board's records into the gateway's real outbox
    (outbox.Outbox, SQLite), publishes them at QoS 1 on the floor's MQTT
    client (host_tools.floor.bus.mqtt.Client, the gateway's account and last
    will), marks each sent on the broker's PUBACK, and on every connection
    publishes again what the recorder's retained `recorded` lacks. `kill()`
    drops it as a SIGKILL does: no DISCONNECT, its unacknowledged publishes
    gone, the outbox as it was; `start()` runs another on the same outbox.
    The board's side (the link) is not played: `append` is a record the
    board journalled."""

    def __init__(self, floor, table):
        self.floor, self.table = floor, table
        self.journal = floor.journals[table]
        self.board = []  # the board's journal: (seq, event payload, chain hex after it)
        self.outbox_path = os.path.join(floor.dir, "gateways", table + ".sqlite")
        os.makedirs(os.path.dirname(self.outbox_path), exist_ok=True)
        self.topic_event = topics.table("main", table, "event")
        self.topic_recorded = topics.table("main", table, "recorded")
        self.wake = threading.Event()
        self.handed = {}  # seq -> monotonic time its payload was first handed to the client
        self.acked = 0  # the board's records up to here are all acknowledged by the broker
        self.thread = None
        self.start()

    def append(self, kind, count, game, payload=None):
        """A record the board journalled (its payload bytes as the board wrote
        them, or the bare game); the gateway fetches it on its next turn."""
        event, rec = self.journal.record(kind, count, game, payload=payload)
        self.board.append((rec["seq"], event, self.journal.hash.hex()))
        return rec

    def drained(self):
        return self.acked == len(self.board)

    def send(self):
        """Wake the gateway now (it also looks every 20 ms)."""
        self.wake.set()

    def start(self):
        self.stopping = threading.Event()
        self.recorded = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="gateway-" + self.table, daemon=True)
        self.thread.start()

    def kill(self):
        self.stopping.set()
        self.wake.set()
        self.thread.join(30)
        assert not self.thread.is_alive(), "the gateway of %s did not stop" % self.table

    def _message(self, topic, payload, retained):  # paho's thread
        if topic == self.topic_recorded:
            obj = topics.decode(payload)
            self.recorded.put((int(obj["journal"]["id"]), int(obj["seq"])))

    def _run(self):
        user = floordir.gateway_user(self.table)
        client = Client(
            self.floor.url,
            user,
            floordir.password(self.floor.dir, user),
            "gateway-main-" + self.table,
            keepalive=2,
            will=(topics.table("main", self.table, "presence"), topics.OFFLINE),
            on_message=self._message,
        ).start()
        outbox = Outbox(self.outbox_path)
        inflight = {}  # seq -> paho's MQTTMessageInfo
        connection = 0
        try:
            while not self.stopping.is_set():
                if client.connected.is_set() and client.connections != connection:
                    connection = client.connections
                    self._catch_up(client, outbox)
                self._fetch(outbox)
                self._publish(client, outbox, inflight)
                self.wake.wait(0.02)
                self.wake.clear()
        finally:
            client.client.loop_stop()
            sock = client.client.socket()
            if sock is not None:
                sock.close()  # gone without a DISCONNECT: the broker publishes the will
            outbox.close()

    def _catch_up(self, client, outbox):
        """A new connection: the records after the recorder's `recorded` are published again."""
        while not self.recorded.empty():
            self.recorded.get_nowait()
        client.subscribe(self.topic_recorded)
        try:
            recorded = self.recorded.get(timeout=RECORDED_WAIT_S)
        except queue.Empty:
            return
        if outbox.resend_after(*recorded):
            self.acked = recorded[1]

    def _fetch(self, outbox):
        cursor = outbox.cursor()
        top = cursor[2] if cursor else 0
        rows = self.board[top:]
        if rows:
            seq, _, chain = rows[-1]
            outbox.add(self.journal.board, self.journal.journal_id, [(s, p) for s, p, _ in rows], seq, chain)

    def _publish(self, client, outbox, inflight):
        done = [seq for seq, info in inflight.items() if info.is_published()]
        if done:
            outbox.mark_sent([(self.journal.journal_id, seq) for seq in done])
            for seq in done:
                del inflight[seq]
        if not client.connected.is_set():
            return
        room = GATEWAY_WINDOW - len(inflight)
        for _, seq, payload in outbox.unsent(room + len(inflight)):
            if room <= 0:
                break
            if seq in inflight:
                continue
            inflight[seq] = client.publish(self.topic_event, payload)
            self.handed.setdefault(seq, time.monotonic())
            room -= 1
        if not inflight and not outbox.unsent(1):
            cursor = outbox.cursor()
            self.acked = cursor[2] if cursor else 0
