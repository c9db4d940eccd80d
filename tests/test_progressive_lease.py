"""One progressive writer by lease: two controllers on one floor, each with
`--lease postgresql://…` (a real PostgreSQL in a temporary directory). One
holds the lease and writes the meters; the other waits as a standby without
touching the broker or the ledger. The active one SIGKILLed, the standby
takes over within seconds with the ledger as it was and pays no hit twice; the database out of
reach, the holder stops writing (one line, exit 1)."""

import os
import signal
import threading
import time

import pytest

from bench.floor import pgserver
from bench.floor.localfloor import have_mosquitto
from bench.floor.progressive_feed import TableJournal, provision
from bench.floor.takeover import controller_log, leased_controller, stop_controllers
from host_tools.floor import floor_init
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.pg import schema
from host_tools.floor.progressive import messages

pytestmark = [
    pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or ""),
    pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"),
]
TAKEOVER_S = 5.0  # the standby's presence `online` within this of the holder's death (measured ~1 s)


def wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what()
        time.sleep(0.02)


def server_now(url):
    with schema.driver().connect(url, autocommit=True) as conn:
        return conn.execute("select clock_timestamp()").fetchone()[0]


def lease_tries_since(url, since):
    """How many sessions' last statement was a try for an advisory lock begun after
    `since`: the standby's, polling every POLL_S (the holder's was long before)."""
    with schema.driver().connect(url, autocommit=True) as conn:
        return conn.execute(
            "select count(*) from pg_stat_activity"
            " where query like 'select pg_try_advisory_lock%%' and query_start > %s",
            (since,),
        ).fetchone()[0]


def test_the_standby_takes_over_within_seconds_and_never_two_write(tmp_path):
    server = pgserver.Server().start()
    directory = str(tmp_path / "floor")
    floor_init.init(directory, 1, "test", broker.free_port(), broker.free_port())
    provision(directory, ["T1"])  # the fed table's role keys: the controller takes only what its board wrote
    mosq = broker.Broker(directory).start()
    lease = server.create("lease")
    heard = []  # (monotonic, topic, payload)
    lock = threading.Lock()

    def on_message(topic, payload, retained):
        with lock:
            heard.append((time.monotonic(), topic, payload))

    watcher = Client(
        "mqtt://127.0.0.1:%d" % floordir.read_floor(directory)["port"],
        "floorctl",
        floordir.password(directory, "floorctl"),
        "watcher",
        on_message=on_message,
    )
    procs = {}
    try:
        watcher.start()
        assert watcher.wait_connected(10)
        watcher.subscribe(topics.floor_root("test") + "/progressive/#")
        procs["a"] = leased_controller(directory, "a", lease)
        wait(lambda: "took the lease" in controller_log(directory, "a"), 30, lambda: controller_log(directory, "a"))
        procs["b"] = leased_controller(directory, "b", lease)
        wait(lambda: "standby" in controller_log(directory, "b"), 30, lambda: controller_log(directory, "b"))

        def presence():
            with lock:
                return [p.decode() for _, t, p in heard if t.endswith("/progressive/presence")]

        def meters():
            with lock:
                out = {}
                for _, t, p in heard:
                    if t.endswith("/meter"):
                        v = topics.decode(p)
                        out[v["game"]] = (v["amount"], v["rev"], v["state"])
                return out

        wait(lambda: presence()[-1:] == ["online"], 20, lambda: presence())
        # a wager and a hit at T1, taken by the holder: the MEA meter pays and waits (pending)
        gateway = Client(
            "mqtt://127.0.0.1:%d" % floordir.read_floor(directory)["port"],
            "gateway-T1",
            floordir.password(directory, "gateway-T1"),
            "gateway-T1-test",
        )
        gateway.start()
        assert gateway.wait_connected(10)
        journal = TableJournal("T1")
        sent = [
            journal.record(kind, count, "MEA")[0] for kind, count in ((messages.PROG_WAGER, 5), (messages.PROG_HIT, 1))
        ]
        for payload in sent:
            gateway.publish(topics.table("test", "T1", "event"), payload).wait_for_publish(10)

        def pending():
            with lock:
                views = [topics.decode(p) for _, t, p in heard if t.endswith("/MEA/meter")]
            return views[-1]["pending"] if views else None

        wait(lambda: pending() == [1], 20, lambda: pending())
        since = server_now(lease)
        before = meters()
        assert before["MEA"][2] == "pending"
        # The standby asks for the lease again after this point and is refused: it has not
        # touched the broker: bounded by its own next try, seen on the server.
        wait(lambda: lease_tries_since(lease, since) >= 1, 20, "the standby's next try for the lease")
        connected = open(os.path.join(directory, "mosquitto.log")).read().count("as progressive-test")
        assert connected == 1 and "took the lease" not in controller_log(directory, "b")
        killed = time.monotonic()
        procs["a"].send_signal(signal.SIGKILL)
        procs["a"].wait()
        wait(lambda: "took the lease" in controller_log(directory, "b"), 10, lambda: controller_log(directory, "b"))
        wait(lambda: presence()[-2:] == ["offline", "online"], 10, lambda: presence())
        with lock:
            online_at = [when for when, t, p in heard if t.endswith("/presence") and p == b"online"][-1]
        takeover = online_at - killed
        assert 0 < takeover < TAKEOVER_S, takeover
        print("progressive takeover: %.2f s from SIGKILL to the standby's presence online" % takeover)
        assert meters() == before  # the same ledger: every meter as it was
        # the gateway publishes the same records again (as after a reconnect): the new writer pays nothing twice
        for payload in sent:
            gateway.publish(topics.table("test", "T1", "event"), payload).wait_for_publish(10)
        # then a new wager: once the meter shows it, the copies before it were taken (in order) too
        gateway.publish(topics.table("test", "T1", "event"), journal.record(messages.PROG_WAGER, 3, "MEA")[0])
        wait(lambda: meters()["MEA"][1] > before["MEA"][1], 10, lambda: meters())
        with lock:
            last = [topics.decode(p) for _, t, p in heard if t.endswith("/MEA/meter")][-1]
        assert last["pending"] == [1] and last["last_hit"]["n"] == 1  # one hit, paid once
        gateway.stop()
        # the lease's database out of reach: the holder stops writing, in one line
        server.kill()
        assert procs["b"].wait(15) == 1
        lines = controller_log(directory, "b").strip().splitlines()
        assert "lost the progressive lease" in lines[-1] and "Traceback" not in controller_log(directory, "b")
        wait(lambda: presence()[-1:] == ["offline"], 10, lambda: presence())
    finally:
        watcher.stop()
        stop_controllers(procs)
        mosq.stop()
        server.remove()
