"""`python -m host_tools floor progressive`: the controller on the floor's broker.

Connects as `progressive` (the only account the ACL lets write the meter
topics) with a persistent session, so the tables' records published while it
is away are queued by the broker and taken, in order, when it is back. Its
last will is `offline`, retained, on `progressive/presence`; on connecting it
publishes `online` there and every meter (retained). Every HEARTBEAT_S
seconds it publishes each meter again with a fresh `at`, so a table's
gateway can tell a live controller from a stale retained meter (docs/progressive.md,
"Times"). A meter is published only after the ledger committed it.
"""

import json
import signal
import time

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import metrics, topics
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.pg.lease import Lease
from host_tools.floor.progressive import catch_up, messages
from host_tools.floor.progressive.controller import Controller, log
from host_tools.floor.progressive.metrics import ControllerFigures

HEARTBEAT_S = 2.0  # a meter is published at least this often
KEEPALIVE_S = 2  # the broker reports a silent controller offline after 1.5 × this
STALE_AFTER_S = 6.0  # a table treats a meter older than this as the controller gone (3 heartbeats)


class Service:
    def __init__(self, floor, url, password, ledger_path, initial_params, keepalive=KEEPALIVE_S, recorder_path=None):
        self.floor = floor
        self.client = None
        self.recorder_path = recorder_path
        self.catch_up_at = 0.0  # monotonic time of the next look at the recorder's copy
        self.controller = Controller(ledger_path, initial_params, publish=self._publish_meter)
        self.client = Client(
            url,
            "progressive",
            password,
            "progressive-" + floor,
            keepalive,
            will=(messages.presence_topic(floor), topics.OFFLINE.encode()),
            clean=False,
            on_message=self.handle,
            on_connect=self._on_connect,
        )

    def _publish_meter(self, game, view):
        if self.client is None:
            return
        body = dict(view, at=round(time.time(), 3))
        self.client.publish(messages.meter_topic(self.floor, game), topics.encode(body), retain=True)

    def _on_connect(self):
        root = topics.floor_root(self.floor)
        self.client.subscribe(root + "/table/+/event")
        self.client.subscribe(root + "/ack/+/+")
        with self.controller.ledger.lock:  # the main thread may be taking the recorder's records
            self.controller.publish_all()
        self.client.publish(messages.presence_topic(self.floor), topics.ONLINE.encode(), retain=True)
        self.catch_up_at = 0.0  # at once: the broker may have lost what it queued
        log("connected to the broker; meters %s" % json.dumps(self.summary(), sort_keys=True))

    def summary(self):
        return {g: [v["amount"], v["state"]] for g, v in self.controller.views().items()}

    def handle(self, topic, payload, retained=False):
        """One message from the broker (paho's thread, one at a time)."""
        root = topics.floor_root(self.floor)
        where = topics.parse_table_topic(self.floor, topic)
        if where is not None and where[1] == "event":
            try:
                inp = messages.parse_event(where[0], payload)
            except ValueError as e:
                log("ignored a record on %s: %s" % (topic, e))
                return None
            return None if inp is None else self.controller.take(inp)
        if topic.startswith(root + "/ack/"):
            parts = topic[len(root) + 5 :].split("/")
            try:
                obj = topics.decode(payload)
            except ValueError:
                return None
            if len(parts) == 2:  # the broker's ACL: only <user> writes ack/<their role>/<user>
                return self.controller.acknowledge(obj.get("alert"), parts[1], parts[0], str(obj.get("note", ""))[:200])
        return None

    def take_missed(self):
        """Take the progressive records the recorder holds and the controller missed."""
        with self.controller.ledger.lock:
            found = catch_up.missed(self.recorder_path, self.controller.ledger.seen)
            for inp in found:
                self.controller.take(inp)
        if found:
            log("took %d record(s) from the recorder's copy that the bus did not bring" % len(found))
        return len(found)

    def run(self, stop):
        self.client.start()
        if not self.client.wait_connected(10.0):
            log("no broker yet at %s: going on trying" % self.client.url)
        last = 0.0
        try:
            while not stop():
                self.client.check_refused()
                now = time.monotonic()
                if now - last >= HEARTBEAT_S and self.client.connected.is_set():
                    with self.controller.ledger.lock:
                        self.controller.fresh()  # a maintenance committed new parameters
                        self.controller.publish_all()
                    last = now
                if self.recorder_path and now >= self.catch_up_at and self.client.connected.is_set():
                    self.take_missed()
                    self.catch_up_at = now + catch_up.CATCH_UP_S
                time.sleep(0.05)
        finally:
            self.client.stop(last=(messages.presence_topic(self.floor), topics.OFFLINE.encode()))
            self.controller.close()


def serve(floor, url, password, ledger_path, initial_params, recorder_path=None, metrics_port=0, lease_url=None):
    """Run until SIGTERM or Ctrl-C; its figures on 127.0.0.1:metrics_port (progressive/metrics.py).
    With `lease_url` (postgresql://…), a standby until it holds the floor's progressive lease
    (pg/lease.py), and the writer only while it holds it: the lease lost is exit 1."""
    stopping = []
    signal.signal(signal.SIGTERM, lambda *a: stopping.append(1))
    stop = lambda: bool(stopping)  # noqa: E731
    if lease_url:
        lease = Lease(lease_url, "progressive:" + floor)
        try:
            if not lease.acquire(stop, waiting=lambda: log("standby: the lease is another controller's")):
                return
        except KeyboardInterrupt:
            return
        log("took the lease: the meters' writer")
        stop = lambda: bool(stopping) or not lease.held()  # noqa: E731
    try:
        service = Service(floor, url, password, ledger_path, initial_params, recorder_path=recorder_path)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    metrics.expose(metrics_port, ControllerFigures(service).read)
    try:
        service.run(stop)
    except KeyboardInterrupt:
        pass
    if lease_url and not stopping:
        raise HostToolError("lost the progressive lease (the database is out of reach): stopped writing", EXIT_FAILED)
