"""A standby controller on a second machine: two controllers with their own floor
directories and working directories (nothing shared but the PostgreSQL server
and the broker, as two machines), the ledger, the lease and the recorder's copy
on one real PostgreSQL (`--ledger`, `--lease`, `--db`). The active controller is
SIGKILLed while a table keeps publishing; the standby takes the lease, opens the
ledger the dead one wrote and comes online within TAKEOVER_S; the tables stay
closed (presence `offline`) until it holds the lease; every record published is
taken exactly once, a hit is paid once, and the ledger is its log's replay.
The database then killed while the table plays, the holder stops writing
with one line and exit 1, and the tables close again."""

import os
import signal
import threading
import time

import pytest

from bench.floor import pgserver
from bench.floor.localfloor import have_mosquitto
from bench.floor.progressive_feed import TableJournal, provision
from bench.floor.takeover import controller_log, leased_controller, second_machine, stop_controllers
from host_tools.floor import floor_init
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.pg import schema
from host_tools.floor.progressive import integrity, ledger, messages
from host_tools.floor.progressive.ledger_pg import PgLedger

pytestmark = [
    pytest.mark.skipif(pgserver.why_not() is not None, reason=pgserver.why_not() or ""),
    pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"),
]
TAKEOVER_S = 5.0  # the standby's presence `online` within this of the holder's death (docs/floor.md: ~0.3 s)
PACE_S = 0.02  # the table publishes a wager this often while the holder dies


def wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what()
        time.sleep(0.02)


def test_a_standby_on_a_second_machine_takes_over_the_ledger_on_postgresql(tmp_path):
    server = pgserver.Server().start()
    machine_a, machine_b = str(tmp_path / "a"), str(tmp_path / "b")
    floor_init.init(machine_a, 1, "test", broker.free_port(), broker.free_port())
    provision(machine_a, ["T1"])
    second_machine(machine_a, machine_b)
    assert not os.path.exists(os.path.join(machine_b, "progressive.json"))  # b takes the ledger's parameters
    mosq = broker.Broker(machine_a).start()
    url = server.create("floor")
    schema.migrate(url)
    port = floordir.read_floor(machine_a)["port"]

    def b_log():
        return (
            controller_log(machine_b, "b")
            if os.path.exists(os.path.join(machine_b, "logs", "progressive-b.log"))
            else ""
        )

    heard = []  # (monotonic, topic, payload, whether b had taken the lease when it came)
    lock = threading.Lock()

    def on_message(topic, payload, retained):
        took = "took the lease" in b_log()
        with lock:
            heard.append((time.monotonic(), topic, payload, took))

    watcher = Client(
        "mqtt://127.0.0.1:%d" % port,
        "floorctl",
        floordir.password(machine_a, "floorctl"),
        "watcher",
        on_message=on_message,
    )
    gateway = Client(
        "mqtt://127.0.0.1:%d" % port, "gateway-T1", floordir.password(machine_a, "gateway-T1"), "gateway-T1-test"
    )
    procs = {}
    book = None
    try:
        watcher.start()
        gateway.start()
        assert watcher.wait_connected(10) and gateway.wait_connected(10)
        watcher.subscribe(topics.floor_root("test") + "/progressive/#")

        def presence():
            with lock:
                return [(at, p.decode(), took) for at, t, p, took in heard if t.endswith("/progressive/presence")]

        def last_meter():
            with lock:
                views = [topics.decode(p) for _, t, p, _ in heard if t.endswith("/MEA/meter")]
            return views[-1] if views else {}

        procs["a"] = leased_controller(machine_a, "a", url, ledger=url, db=url)
        wait(lambda: [w for _, w, _ in presence()][-1:] == ["online"], 30, lambda: controller_log(machine_a, "a"))
        procs["b"] = leased_controller(machine_b, "b", url, ledger=url, db=url)
        wait(lambda: "standby" in controller_log(machine_b, "b"), 30, lambda: controller_log(machine_b, "b"))

        journal = TableJournal("T1")
        sent = []  # (monotonic, payload, key) of every record the table published
        topic = topics.table("test", "T1", "event")

        def publish(kind, count):
            payload, _ = journal.record(kind, count, "MEA")
            gateway.publish(topic, payload).wait_for_publish(10)
            sent.append((time.monotonic(), payload, ("T1", journal.board, journal.journal_id, journal.seq, 0)))

        for _ in range(5):
            publish(messages.PROG_WAGER, 1)
        publish(messages.PROG_HIT, 1)
        wait(lambda: last_meter().get("pending") == [1], 20, last_meter)
        assert "took the lease" not in controller_log(machine_b, "b")
        assert open(os.path.join(machine_a, "mosquitto.log")).read().count("as progressive-test") == 1  # a alone

        stop_feed = threading.Event()

        def feed():  # the table plays on while the holder dies
            while not stop_feed.is_set():
                publish(messages.PROG_WAGER, 1)
                time.sleep(PACE_S)

        feeder = threading.Thread(target=feed)
        feeder.start()
        wait(lambda: len(sent) >= 20, 20, lambda: len(sent))  # mid-play
        killed = time.monotonic()
        procs["a"].send_signal(signal.SIGKILL)
        procs["a"].wait()
        wait(lambda: any(w == "online" and at > killed for at, w, _ in presence()), 20, presence)
        at_online = len(sent)
        wait(lambda: len(sent) >= at_online + 20, 20, lambda: len(sent))  # and plays on with the new holder
        stop_feed.set()
        feeder.join()

        after = [(at, w, took) for at, w, took in presence() if at > killed]
        online_at, _, took = next(p for p in after if p[1] == "online")
        takeover = online_at - killed
        print("progressive takeover across two machines: %.2f s from SIGKILL to the standby's online" % takeover)
        assert 0 < takeover < TAKEOVER_S, takeover
        # closed while no controller holds the lease: a's will said offline before b said online,
        # and b said online only once it held the lease
        assert [w for at, w, _ in after if at <= online_at] == ["offline", "online"], after
        assert took is True
        assert any(killed < at < online_at for at, _, _ in sent)  # the table published while no one held it

        # the gateway publishes its hit and first records again (as after a reconnect), then a new wager:
        # once that is taken, the copies before it were too
        for _, payload, _ in sent[:6]:
            gateway.publish(topic, payload).wait_for_publish(10)
        publish(messages.PROG_WAGER, 1)
        book = PgLedger(url, readonly=True)
        wait(lambda: book.seen(sent[-1][2]), 20, lambda: controller_log(machine_b, "b"))

        # every record taken exactly once, by one controller or the other
        keys = sorted(k for _, _, k in sent)
        assert sorted(tuple(r) for r in book._all("select tbl, board, journal, seq, epoch from seen")) == keys
        rows = book.log_rows()
        inputs = [r for r in rows if r[2] == "input"]
        assert len(inputs) == len(keys) and {r[5] for r in inputs} == {"applied"}
        assert [r[2] for r in rows].count("settle") == 1  # the hit paid once
        stored = book.meters(book.params())["MEA"]
        assert stored.dump() == ledger.replay(rows)["MEA"].dump()  # the ledger is its log's replay
        assert len(stored.hits) == 1 and stored.state == "pending"
        wait(lambda: last_meter().get("rev") == stored.rev, 10, last_meter)  # published after the commit
        assert last_meter()["amount"] == stored.amount and last_meter()["pending"] == [1]
        check = integrity.check(machine_b, url)
        assert check["ok"] is True and check["ledger"]["rows"] == len(rows), check
        # nothing of the ledger on either machine's disk; two controller connections in all (a, then b)
        for d in (machine_a, machine_b):
            assert not os.path.exists(os.path.join(d, "progressive.sqlite"))
        assert open(os.path.join(machine_a, "mosquitto.log")).read().count("as progressive-test") == 2
        for name, d in (("a", machine_a), ("b", machine_b)):
            assert "Traceback" not in controller_log(d, name)
        # the database gone while the table plays: the holder stops writing, one line, exit 1
        book.close()
        book = None
        stop_feed.clear()
        feeder = threading.Thread(target=feed)
        feeder.start()
        server.kill()
        assert procs["b"].wait(15) == 1
        stop_feed.set()
        feeder.join()
        last = controller_log(machine_b, "b").strip().splitlines()[-1]
        print("the holder with the database gone: %s" % last)
        assert "lost the progressive lease" in last or "the ledger refused a write" in last, last
        assert "Traceback" not in controller_log(machine_b, "b")
        wait(lambda: [w for _, w, _ in presence()][-1:] == ["offline"], 10, presence)
    finally:
        if book is not None:
            book.close()
        gateway.stop()
        watcher.stop()
        stop_controllers(procs)
        mosq.stop()
        server.remove()
