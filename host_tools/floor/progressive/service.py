"""`python -m host_tools floor progressive`: the controller on the floor's broker.

Connects as `progressive` (the only account the ACL lets write the meter
topics) with a persistent session, so the tables' records published while it
is away are queued by the broker and taken, in order, when it is back. Its
last will is `offline`, retained, on `progressive/presence`; on connecting it
publishes `online` there and every meter (retained). Every HEARTBEAT_S
seconds it publishes each meter again with a fresh `at`, so a table's
gateway can tell a live controller from a stale retained meter (docs/progressive.md,
"Times"). A meter is published only after the ledger committed it.

Before it opens its ledger to write, it checks itself (integrity.py): its
code against the installed record and its ledger against the ledger's own
replay. The report is published retained on `progressive/check`. On a
mismatch it refuses to open: presence `refused` (every table's gateway
closes the progressive), no meter published, no record taken (it connects
under a session of its own, so the broker keeps queueing the tables' records
in the controller's session, and the recorder's copy keeps them too, for the
controller that opens), and the pit page raises an alert for the shift
manager and surveillance.

A table's board erased (docs/progressive.md, "A linked table's board erased"):
the recorder's retained `recorded` says the table's newest board-erased step
(`erased`), and the recorder's copy judges each record from the bus
(floor_copy.py): one that does not continue the floor's copy waits for it,
and is taken by the catch-up once the recorder has stored it.
"""

import json
import os
import signal
import time

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import floorkeys, metrics, topics
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.pg.lease import Lease
from host_tools.floor.progressive import catch_up, floor_copy, integrity, messages
from host_tools.floor.progressive.controller import Controller, log
from host_tools.floor.progressive.metrics import ControllerFigures

HEARTBEAT_S = 2.0  # a meter is published at least this often
KEEPALIVE_S = 2  # the broker reports a silent controller offline after 1.5 × this
STALE_AFTER_S = 6.0  # a table treats a meter older than this as the controller gone (3 heartbeats)


class Service:
    def __init__(
        self,
        floor,
        url,
        password,
        ledger_path,
        initial_params,
        keepalive=KEEPALIVE_S,
        recorder_path=None,
        keys_dir=None,
        directory=None,
        fence=None,
    ):
        """`ledger_path`: the ledger's SQLite file or postgresql:// URL; `directory`: this
        machine's floor directory, holding the record of its installed code (the SQLite
        ledger's folder when not given); `fence`: the lease the ledger's writes check."""
        self.floor = floor
        self.keys = floorkeys.JournalKeys(keys_dir)  # each table's journal key: a record must carry the board's MAC
        self.client = None
        self.catch_up_at = 0.0  # monotonic time of the next look at the recorder's copy
        # (table, board, journal) -> its lowest record from the bus that waits for the recorder's
        # copy: the records after it wait too, so a journal's records are taken in its order
        # (a void never before its hit, a wager never before the hit it paid into)
        self.waiting = {}
        self.directory = directory or os.path.dirname(os.path.abspath(ledger_path))
        self.check = integrity.check(self.directory, ledger_path)
        self.controller = None
        self.copy = floor_copy.Copy(recorder_path) if recorder_path else None
        if self.check["ok"]:
            self.controller = Controller(ledger_path, initial_params, publish=self._publish_meter, fence=fence)
            log("self-check: %s" % self.check["reason"])
        else:
            log("REFUSED to open: %s; every table's progressive stays closed" % self.check["reason"])
        # Refused, it connects under another session, clean: the broker keeps queueing the
        # tables' records in the controller's own session for the controller that opens.
        ok = self.controller is not None
        self.client = Client(
            url,
            "progressive",
            password,
            "progressive-" + floor + ("" if ok else "-refused"),
            keepalive,
            will=(messages.presence_topic(floor), topics.OFFLINE.encode()),
            clean=not ok,
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
        check = dict(self.check, at=round(time.time(), 3))
        self.client.publish(messages.check_topic(self.floor), topics.encode(check), retain=True)
        if self.controller is None:  # refused: closed everywhere, nothing taken
            self.client.publish(messages.presence_topic(self.floor), messages.REFUSED.encode(), retain=True)
            log("connected to the broker; REFUSED: %s" % self.check["reason"])
            return
        self.client.subscribe(root + "/table/+/event")
        self.client.subscribe(root + "/table/+/recorded")  # the recorder's word: each table's erased step
        self.client.subscribe(root + "/ack/+/+")
        with self.controller.ledger.lock:  # the main thread may be taking the recorder's records
            self.controller.publish_all()
        self.client.publish(messages.presence_topic(self.floor), topics.ONLINE.encode(), retain=True)
        self.catch_up_at = 0.0  # at once: the broker may have lost what it queued
        log("connected to the broker; meters %s" % json.dumps(self.summary(), sort_keys=True))

    def summary(self):
        if self.controller is None:
            return {}
        return {g: [v["amount"], v["state"]] for g, v in self.controller.views().items()}

    def handle(self, topic, payload, retained=False):
        """One message from the broker (paho's thread, one at a time). A write the ledger
        refuses (the lease lost, the database gone) ends the process before the message is
        acknowledged (_fail), so the broker keeps the record in the controller's session for
        the next writer."""
        if self.controller is None:  # refused (a session's old subscriptions may still deliver)
            return None
        try:
            return self._handle(topic, payload)
        except (HostToolError, self.controller.ledger.Error) as e:
            self._fail(e)

    def _fail(self, e):
        """The ledger refused a write: the process ends at once, from whichever thread, with one
        line and no goodbye: nothing uncommitted is acknowledged to the broker, and the last
        will says offline (every table closes its progressive). Exit 1; a supervisor starts
        it again (a standby, with --lease)."""
        log("the ledger refused a write (%s): stopped" % _first_line(e))
        os._exit(EXIT_FAILED)

    def _handle(self, topic, payload):
        root = topics.floor_root(self.floor)
        where = topics.parse_table_topic(self.floor, topic)
        if where is not None and where[1] == "event":
            try:
                inp = messages.parse_event(where[0], payload, self.keys)
                cfg = messages.parse_config(where[0], payload, self.keys) if inp is None else None
            except ValueError as e:
                log("ignored a record on %s: %s" % (topic, e))
                return None
            rec = inp or cfg
            if rec is None:
                return None
            with self.controller.ledger.lock:  # judged and taken under one epoch
                if not self._judge(rec):
                    return "waiting"
                return self.controller.take(inp) if inp is not None else self.controller.take_config(cfg)
        if where is not None and where[1] == "recorded":
            try:
                step = topics.decode(payload).get("erased", 0)
            except ValueError:
                return None
            if isinstance(step, int) and not isinstance(step, bool) and step > 0:
                self.controller.learn_epoch(where[0], step)
            return None
        if topic.startswith(root + "/ack/"):
            parts = topic[len(root) + 5 :].split("/")
            try:
                obj = topics.decode(payload)
            except ValueError:
                return None
            if len(parts) == 2:  # the broker's ACL: only <user> writes ack/<their role>/<user>
                return self.controller.acknowledge(obj.get("alert"), parts[1], parts[0], str(obj.get("note", ""))[:200])
        return None

    def _judge(self, rec):
        """Whether `rec`, from the bus, is taken now; it gets its table's epoch. Without the
        recorder's copy (none given, none yet) the epoch is the one `recorded` said."""
        found = floor_copy.verdict(self.copy, rec, self.controller.ledger.seen) if self.copy else None
        if found is None:
            rec.epoch = self.controller.epoch(rec.table)
            return True
        step, rec.epoch, why = found
        self.controller.learn_epoch(rec.table, step)
        if isinstance(rec, messages.Input):
            key = (rec.table, rec.board, rec.journal)
            first = self.waiting.get(key)
            if first is not None and self.controller.ledger.seen(key + (first, rec.epoch)):
                del self.waiting[key]  # taken meanwhile (the catch-up)
                first = None
            if why is None and first is not None and rec.seq > first:
                why = "record %s of journal %s of table %s comes after record %d, which waits for it" % (
                    rec.seq,
                    rec.journal,
                    rec.table,
                    first,
                )
            if why is not None:
                self.waiting[key] = rec.seq if first is None else min(first, rec.seq)
        if why is None:
            return True
        if isinstance(rec, messages.TableConfig) and floor_copy.PAST in why:
            return True  # moves no money, and the catch-up brings progressive records only
        log("waits for the recorder's copy: %s" % why)
        self.catch_up_at = min(self.catch_up_at, time.monotonic() + catch_up.SOON_S)
        return False

    def take_missed(self):
        """Take the progressive records the recorder holds and the controller missed."""
        with self.controller.ledger.lock:
            found = catch_up.missed(self.copy, self.controller.ledger.seen)
            for inp in found:
                self.controller.learn_epoch(inp.table, inp.epoch)
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
                if self.controller is None:  # refused: stays up, closed, saying why
                    time.sleep(0.05)
                    continue
                try:
                    if now - last >= HEARTBEAT_S and self.client.connected.is_set():
                        with self.controller.ledger.lock:
                            self.controller.fresh()  # a maintenance committed new parameters
                            self.controller.publish_all()
                        last = now
                    if self.copy and now >= self.catch_up_at and self.client.connected.is_set():
                        self.take_missed()
                        self.catch_up_at = now + catch_up.CATCH_UP_S
                except (HostToolError, self.controller.ledger.Error) as e:
                    self._fail(e)
                time.sleep(0.05)
        finally:
            self.client.stop(last=(messages.presence_topic(self.floor), topics.OFFLINE.encode()))
            if self.controller is not None:
                self.controller.close()
            if self.copy is not None:
                self.copy.close()


def serve(
    floor,
    url,
    password,
    ledger_path,
    initial_params,
    recorder_path=None,
    keys_dir=None,
    metrics_port=0,
    lease_url=None,
    directory=None,
):
    """Run until SIGTERM or Ctrl-C; its figures on 127.0.0.1:metrics_port (progressive/metrics.py).
    With `lease_url` (postgresql://…), a standby until it holds the floor's progressive lease
    (pg/lease.py), and the writer only while it holds it: the lease lost is exit 1. A ledger
    on PostgreSQL then refuses any write once the lease's session is gone (ledger_pg.py)."""
    fence = None
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
        fence = (lease.conn.info.backend_pid, lease.key)
    try:
        service = Service(
            floor,
            url,
            password,
            ledger_path,
            initial_params,
            recorder_path=recorder_path,
            keys_dir=keys_dir,
            directory=directory,
            fence=fence,
        )
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    metrics.expose(metrics_port, ControllerFigures(service).read)
    try:
        service.run(stop)
    except KeyboardInterrupt:
        pass
    if lease_url and not stopping:
        raise HostToolError("lost the progressive lease (the database is out of reach): stopped writing", EXIT_FAILED)


def _first_line(e):
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
