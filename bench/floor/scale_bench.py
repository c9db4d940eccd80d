"""`make bench-floor`, past one machine (build/scale_bench.json): the
recorder on SQLite and on PostgreSQL, pits bridged to the floor, two
recorders, a bridge cut. Real parts: mosquitto (the floor's and the pits'),
recorder processes, a PostgreSQL server of its own (pgserver.py); the
tables are record feeds (record_feed.py: the firmware's codec, each table's
gateway account), so the figures are the floor's, not the boards'.

- records per second one recorder stores per core (its own CPU time; on
  PostgreSQL also with the server's CPU added), chain and MAC verification
  on, and with the MAC check alone taken out, on SQLite and on PostgreSQL:
  the recorder's handle_batch() fed directly, 10 tables, BATCH records a
  transaction (on PostgreSQL also one, a lone record's cost); and on a busy
  floor, each record also said in `recorded`, 100 tables holding 300
  records each;
- a record published -> stored at the recorder (p50/p99 ms, wall clock of
  this one machine: publish call to the row's `received`), 4 tables at a
  busy pace, on the floor's broker and through a pit's bridge;
- two recorders on PostgreSQL, one SIGKILLed while 4 tables publish: the
  longest time no record was stored (a single recorder's restart is the gap
  it would leave), and every record stored once;
- the progressive controller SIGKILLed: its standby's presence `online`
  (takeover.py), three times;
- a bridge cut (the floor's broker stopped 5 s while a pit's tables
  publish) and restored: the time from the floor's broker back to the
  recorder holding every record;
- the 50-table bench's boards (pty_boards.py) with a gateway each, on the
  floor's broker alone and in 2 pits: CPU and RSS per table of each kind
  of process;
- 100 tables in 2 pits, each publishing a record every 0.4 s (a busy
  table's pace) for 15 s: CPU and RSS of each pit broker, the floor's broker
  and the recorder, and per table.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from bench.floor import floor_bench, localfloor, pgserver, record_feed, recorder_bench, takeover
from bench.floor.progressive_feed import feed_link_key
from host_tools.floor import floor_init
from host_tools.floor.base import floorkeys
from host_tools.floor.bus import bridge, broker, pits
from host_tools.floor.pg import schema
from host_tools.floor.pg.store import PgStore
from host_tools.floor.recorder import inbox
from host_tools.floor.recorder import service as rec
from host_tools.floor.recorder.store import Store
from sim.paths import ROOT

TICK = os.sysconf("SC_CLK_TCK")
# Records a transaction in the store rates: a recorder behind takes what is waiting, and the broker
# sends a session at most its in-flight window unacknowledged (recorder/inbox.py).
BATCH = inbox.BROKER_WINDOW


def pct(values, q):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(q / 100.0 * (len(values) - 1))))], 1)


def wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise RuntimeError(what)
        time.sleep(0.02)


def _server_cpu(server):
    """CPU seconds of the PostgreSQL server so far: the postmaster and every process it started."""
    if server is None or not server.pid():
        return 0.0
    top = server.pid()
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        if int(entry) == top or int(fields[1]) == top:
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def store_rate(store, verify=True, server=None, tables=10, per_table=300, batch=BATCH):
    """Records/s one recorder stores, chain verified, MAC verified or not (`verify`), tables x
    per_table records through Recorder.handle_batch (the broker left out), `batch` records a
    transaction: per second of the recorder's own CPU, of its CPU and the database server's
    together (PostgreSQL), and of the wall clock."""
    names = ["B%d" % i for i in range(tables)]
    keys = floorkeys.JournalKeys(given={t: floorkeys.derive(feed_link_key(t), "journal") for t in names})
    r = rec.Recorder(store, "bench", keys=keys)
    feeds = {t: record_feed.journal(t, per_table) for t in names}
    topic = {t: "crapsfloor/v1/bench/table/%s/event" % t for t in feeds}
    check = floorkeys.record_mac_ok
    if not verify:  # the MAC check alone taken out, to say what it costs; the chain is checked either way
        rec.floorkeys.record_mac_ok = lambda mac, record, digest: True
    try:
        cpu0, wall0, server0 = time.process_time(), time.perf_counter(), _server_cpu(server)
        arrivals = [(topic[t], payloads[i], False) for i in range(per_table) for t, payloads in feeds.items()]
        n = 0
        for at in range(0, len(arrivals), batch):
            results = r.handle_batch(arrivals[at : at + batch])
            assert results == ["stored"] * len(results), set(results)
            n += len(results)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        server_cpu = _server_cpu(server) - server0
    finally:
        rec.floorkeys.record_mac_ok = check
    out = {"records": n, "batch": batch, "per_cpu_second": round(n / cpu), "per_wall_second": round(n / wall)}
    if server is not None:
        out["per_cpu_second_with_server"] = round(n / (cpu + server_cpu))
    return out


def busy_rate(store, server=None, tables=100, held=300, rounds=20, batch=BATCH):
    """Records/s one recorder stores and says `recorded` for, every check on, on a busy floor:
    `tables` tables each holding `held` records already, then `rounds` rounds of one record a
    table (`batch` a transaction), each round followed by the recorder's tick 0.4 s later (a busy
    table's pace, so every record is said): per second of the recorder's own CPU and, on
    PostgreSQL, of its CPU and the server's together."""
    names = ["B%d" % i for i in range(tables)]
    keys = floorkeys.JournalKeys(given={t: floorkeys.derive(feed_link_key(t), "journal") for t in names})
    r = rec.Recorder(store, "bench", publish=lambda topic, payload, retain: None, keys=keys)
    feeds = {t: record_feed.journal(t, held + rounds) for t in names}
    topic = {t: "crapsfloor/v1/bench/table/%s/event" % t for t in names}

    def round_of(i):
        arrivals = [(topic[t], feeds[t][i], False) for t in names]
        for at in range(0, len(arrivals), batch):
            assert set(r.handle_batch(arrivals[at : at + batch])) == {"stored"}

    for i in range(held):
        round_of(i)
    now = 0.0
    r.tick(now)
    cpu0, server0 = time.process_time(), _server_cpu(server)
    for i in range(held, held + rounds):
        round_of(i)
        now += 0.4
        r.tick(now)
    cpu, server_cpu = time.process_time() - cpu0, _server_cpu(server) - server0
    n = tables * rounds
    out = {"records": n, "tables": tables, "held": held, "batch": batch, "per_cpu_second": round(n / cpu)}
    if server is not None:
        out["per_cpu_second_with_server"] = round(n / (cpu + server_cpu))
    return out


def recorder(directory, db=None, instance=None):
    argv = [sys.executable, "-m", "host_tools", "recorder", "--dir", directory]
    argv += ["--db", db] if db else []
    argv += ["--instance", instance] if instance else []
    log = open(os.path.join(directory, "logs", "recorder-%s.log" % (instance or "1")), "ab")
    p = subprocess.Popen(argv, stdout=log, stderr=log, cwd=ROOT)
    log.close()
    return p


def connected(directory, instance, times=1):
    path = os.path.join(directory, "logs", "recorder-%s.log" % instance)
    return lambda: os.path.exists(path) and open(path, "rb").read().count(b"connected to the broker") >= times


def latencies(folder, through_pit, tables=4, per_table=100, pace_s=0.02):
    """publish -> stored (ms) for each record, the tables publishing at once, each every pace_s."""
    directory = os.path.join(folder, "pit" if through_pit else "floor")
    floor = floor_init.init(directory, tables, "bench", broker.free_port(), broker.free_port(), 2 if through_pit else 0)
    floor = record_feed.free_pit_ports(directory, floor)
    brokers = [broker.Broker(directory)] + [
        broker.Broker(bridge.pit_dir(directory, p)) for p in floor.get("pits") or []
    ]
    r = feed = None
    try:  # every broker stopped, whichever failed to start
        for b in brokers:
            b.start()
        r = recorder(directory)
        wait(connected(directory, "1"), 30, "no recorder")
        if through_pit:
            wait(lambda: open(os.path.join(directory, "mosquitto.log")).read().count("as bridge-P") >= 2, 30, "bridge")
            urls = {t: "mqtt://127.0.0.1:%d" % pits.pit_of(floor, t)["port"] for t in floor["tables"]}
        else:
            urls = "mqtt://127.0.0.1:%d" % floor["port"]
        feed = record_feed.Feed(directory, floor, urls)
        journals = {t: record_feed.journal(t, per_table) for t in floor["tables"]}
        sent = {}
        for i in range(per_table):
            for t in floor["tables"]:
                sent[(t, i + 1)] = time.time()
                feed.publish(t, [journals[t][i]], wait=False)
            time.sleep(pace_s)
        path = os.path.join(directory, "recorder.sqlite")
        total = tables * per_table

        def count():
            s = Store(path, readonly=True)
            try:
                return s.db.execute("select count(*) from events").fetchone()[0]
            finally:
                s.close()

        wait(lambda: os.path.exists(path) and count() == total, 60, "not every record stored")
        s = Store(path, readonly=True)
        rows = s.db.execute("select tbl, seq, received from events").fetchall()
        s.close()
        ms = [(received - sent[(t, seq)]) * 1000 for t, seq, received in rows]
        return {"records": len(ms), "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "max_ms": pct(ms, 100)}
    finally:
        if feed:
            feed.stop()
        if r:
            r.send_signal(signal.SIGTERM)
            r.wait(20)
        for b in reversed(brokers):
            b.stop()


def two_recorders(folder, server, tables=4, per_table=150, pace_s=0.02):
    directory = os.path.join(folder, "two")
    floor = floor_init.init(directory, tables, "bench", broker.free_port(), broker.free_port())
    b = broker.Broker(directory).start()
    url = server.create("two")
    schema.migrate(url)
    procs = {n: recorder(directory, url, n) for n in ("a", "b")}
    feed = None
    try:
        wait(lambda: connected(directory, "a")() and connected(directory, "b")(), 30, "no recorders")
        feed = record_feed.Feed(directory, floor, "mqtt://127.0.0.1:%d" % floor["port"])
        journals = {t: record_feed.journal(t, per_table) for t in floor["tables"]}
        killed_at = None
        for i in range(per_table):
            for t in floor["tables"]:
                feed.publish(t, [journals[t][i]], wait=False)
            if i == per_table // 3:
                procs["a"].send_signal(signal.SIGKILL)
                procs["a"].wait()
                killed_at = time.time()
            if i == 2 * per_table // 3:
                procs["a"] = recorder(directory, url, "a")
            time.sleep(pace_s)
        store = PgStore(url, readonly=True)
        total = tables * per_table
        wait(lambda: store.db.execute("select count(*) from events").fetchone()[0] == total, 60, "not all stored")
        received = sorted(r[0] for r in store.db.execute("select received from events"))
        problems = [p for t in floor["tables"] for p in record_feed.check_store(store, t, per_table)]
        store.close()
        gaps = [b - a for a, b in zip(received, received[1:])]
        around = [b - a for a, b in zip(received, received[1:]) if abs(a - killed_at) < 2]
        return {
            "records": total,
            "stored_once_in_order_chain_checked": not problems,
            "longest_gap_ms": round(max(gaps) * 1000, 1),
            "longest_gap_around_the_kill_ms": round(max(around) * 1000, 1) if around else None,
            "pace_ms": pace_s * 1000,
        }
    finally:
        if feed:
            feed.stop()
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait(20)
        b.stop()


def bridge_cut(folder, tables=4, before=50, during=100, cut_s=5.0):
    directory = os.path.join(folder, "cut")
    floor = floor_init.init(directory, tables, "bench", broker.free_port(), broker.free_port(), 2)
    floor = record_feed.free_pit_ports(directory, floor)
    floor_broker = broker.Broker(directory)
    pit_brokers = [broker.Broker(bridge.pit_dir(directory, p)) for p in floor["pits"]]
    r = feed = None
    path = os.path.join(directory, "recorder.sqlite")

    def count():
        if not os.path.exists(path):
            return 0
        s = Store(path, readonly=True)
        try:
            return s.db.execute("select count(*) from events").fetchone()[0]
        finally:
            s.close()

    try:
        for b in [floor_broker] + pit_brokers:
            b.start()
        r = recorder(directory)
        wait(connected(directory, "1"), 30, "no recorder")
        wait(lambda: open(os.path.join(directory, "mosquitto.log")).read().count("as bridge-P") >= 2, 30, "bridge")
        urls = {t: "mqtt://127.0.0.1:%d" % pits.pit_of(floor, t)["port"] for t in floor["tables"]}
        feed = record_feed.Feed(directory, floor, urls)
        journals = {t: record_feed.journal(t, before + during) for t in floor["tables"]}
        for t in floor["tables"]:
            feed.publish(t, journals[t][:before])
        wait(lambda: count() == tables * before, 30, "first records")
        floor_broker.stop()
        cut = time.monotonic()
        for t in floor["tables"]:
            feed.publish(t, journals[t][before:])  # acknowledged by the pits' brokers, queued for their bridges
        time.sleep(max(0.0, cut_s - (time.monotonic() - cut)))
        floor_broker.start()
        back = time.monotonic()
        wait(lambda: count() == tables * (before + during), 60, "queued records")
        return {
            "records_queued": tables * during,
            "cut_s": cut_s,
            "catch_up_s": round(time.monotonic() - back, 2),
        }
    finally:
        if feed:
            feed.stop()
        if r:
            r.send_signal(signal.SIGTERM)
            r.wait(20)
        for b in pit_brokers:
            b.stop()
        floor_broker.stop()


def _cpu_rss(pid):
    """(CPU seconds, RSS MB) of a process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    with open("/proc/%d/status" % pid) as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return (int(fields[11]) + int(fields[12])) / TICK, rss / 1024


def broker_load(folder, tables=100, pace_s=0.4, window_s=15.0):
    """`tables` tables, each publishing a record every `pace_s` (a busy table's pace is ~0.4 s) for
    `window_s`, through 2 pit brokers bridged to the floor's, the recorder (SQLite) on the floor's:
    each process's CPU (% of one core) and RSS, and per table."""
    directory = os.path.join(folder, "load")
    floor = floor_init.init(directory, tables, "bench", broker.free_port(), broker.free_port(), 2)
    floor = record_feed.free_pit_ports(directory, floor)
    floor_broker = broker.Broker(directory)
    pit_brokers = [broker.Broker(bridge.pit_dir(directory, p)) for p in floor["pits"]]
    r = feed = None
    try:
        for b in [floor_broker] + pit_brokers:
            b.start()
        r = recorder(directory)
        wait(connected(directory, "1"), 30, "no recorder")
        wait(lambda: open(os.path.join(directory, "mosquitto.log")).read().count("as bridge-P") >= 2, 30, "bridge")
        urls = {t: "mqtt://127.0.0.1:%d" % pits.pit_of(floor, t)["port"] for t in floor["tables"]}
        feed = record_feed.Feed(directory, floor, urls)
        n = int(window_s / pace_s)
        journals = {t: record_feed.journal(t, n) for t in floor["tables"]}
        procs = {"floor broker": floor_broker.proc.pid, "recorder": r.pid}
        procs.update({"pit broker %d" % (i + 1): b.proc.pid for i, b in enumerate(pit_brokers)})
        before = {k: _cpu_rss(pid) for k, pid in procs.items()}
        start = time.monotonic()
        for i in range(n):
            for t in floor["tables"]:
                feed.publish(t, [journals[t][i]], wait=False)
            time.sleep(max(0.0, start + (i + 1) * pace_s - time.monotonic()))
        path = os.path.join(directory, "recorder.sqlite")

        def count():
            s = Store(path, readonly=True)
            try:
                return s.db.execute("select count(*) from events").fetchone()[0]
            finally:
                s.close()

        wait(lambda: count() == tables * n, 120, "not every record stored")
        elapsed = time.monotonic() - start
        after = {k: _cpu_rss(pid) for k, pid in procs.items()}
        out = {
            "tables": tables,
            "records": tables * n,
            "records_per_s": round(tables * n / elapsed),
            "seconds": round(elapsed, 1),
        }
        for k in procs:
            cpu = (after[k][0] - before[k][0]) / elapsed * 100
            share = tables / 2 if k.startswith("pit") else tables
            out[k] = {
                "cpu_pct": round(cpu, 1),
                "rss_mb": round(after[k][1], 1),
                "cpu_pct_per_table": round(cpu / share, 3),
            }
        return out
    finally:
        if feed:
            feed.stop()
        if r:
            r.send_signal(signal.SIGTERM)
            r.wait(20)
        for b in pit_brokers:
            b.stop()
        floor_broker.stop()


def pty_boards(folder, tables, window):
    """The 50-table bench's boards (the firmware's App and link on ptys, pty_boards.py), each
    with its own gateway process, playing a roll every 0.4 s: on the floor's broker alone, then
    in 2 pits bridged to it (floor_bench.scale), one after the other on the same machine."""
    import random

    template = localfloor.make_template(os.path.join(folder, "template"))
    rng = random.Random(7)
    return {
        "floor_broker": floor_bench.scale(folder, tables, template, window, rng, pty=True),
        "2_pits": floor_bench.scale(folder, tables, template, window, rng, pty=True, pits=2),
    }


def rates(open_store, server=None, rounds=2, tables=10, per_table=300, batch=BATCH):
    """store_rate with the MAC check and without, alternating `rounds` times on fresh stores
    (the machine's load moves: each pair is measured side by side); every run kept."""
    out = {"mac_verified": [], "mac_not_verified": []}
    for _ in range(rounds):
        for verify, key in ((True, "mac_verified"), (False, "mac_not_verified")):
            store = open_store()
            try:
                out[key].append(store_rate(store, verify, server, tables, per_table, batch))
            finally:
                store.close()
    return out


def run_stamp(command):
    """Where and when: the command, the commit, the date, the cores and the load average."""
    import datetime

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return {
        "command": command,
        "commit": commit.stdout.strip() or "?",
        "date": datetime.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "load_at_start": round(os.getloadavg()[0], 1),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(prog="scale_bench")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "scale_bench.json"))
    parser.add_argument("--pty-tables", type=int, default=50, help="boards on ptys, on one broker and in 2 pits")
    parser.add_argument("--window", type=float, default=20.0, help="seconds those boards play, measured")
    args = parser.parse_args(argv)
    import itertools
    import tempfile

    out = {"machine": run_stamp("python -m bench.floor.scale_bench")}
    with tempfile.TemporaryDirectory(prefix="crapsfloor-scale-") as folder:
        names = itertools.count()
        out["mac_check_us_per_record"] = round(recorder_bench.mac_check_us(recorder_bench.records(3000)), 2)
        out["store_batch"] = BATCH
        out["store_rate_sqlite"] = rates(lambda: Store(os.path.join(folder, "rate%d.sqlite" % next(names))))
        out["busy_sqlite"] = [busy_rate(Store(os.path.join(folder, "busy%d.sqlite" % next(names)))) for _ in range(2)]
        why = pgserver.why_not()
        server = None if why else pgserver.Server(fsync=True).start()
        try:
            if server:

                def pg_store():
                    url = server.create("rate%d" % next(names))
                    schema.migrate(url)
                    return PgStore(url)

                out["store_rate_postgresql"] = rates(pg_store, server)
                out["store_rate_postgresql_lone_records"] = rates(pg_store, server, batch=1)
                out["busy_postgresql"] = [busy_rate(pg_store(), server) for _ in range(2)]
                out["two_recorders_one_killed"] = two_recorders(folder, server)
                out["controller_killed_standby_online"] = takeover.controller_takeover(folder, server)
            else:
                out["postgresql"] = why
            out["publish_to_stored_floor_broker"] = latencies(folder, through_pit=False)
            out["publish_to_stored_through_a_pit_bridge"] = latencies(folder, through_pit=True)
            out["bridge_cut_and_restored"] = bridge_cut(folder)
            out["load_100_tables_in_2_pits"] = broker_load(folder)
            out["pty_boards"] = pty_boards(folder, args.pty_tables, args.window)
        finally:
            if server:
                server.remove()
    out["machine"]["load_at_end"] = round(os.getloadavg()[0], 1)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(json.dumps(out, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
