"""`make bench-floor`: the floor's figures on this machine (build/floor_bench.json).

Real parts: the project's mosquitto, gateway and recorder processes, virtual
boards (the MicroPython VM running the deployed firmware) pressed through their
live key feeds. Figures, not limits: nothing here fails on a slow machine.

- press -> recorder and press -> retained state (p50/p99, ms): from appending a
  roll to a board's key feed to the record in the recorder's SQLite, and to the
  table's retained state at the broker showing it. The keypad's own timing is
  inside: the feed is read every 50 ms and a roll is two presses of 80 ms with
  120 ms between (~280-330 ms before the board has the roll).
- sustained records per second a table: a backlog of rolls played while the
  gateway is stopped, then drained through gateway, broker and recorder.
- catch-up after a broker restart: rolls played while the broker is down; the
  time from the broker listening again to the recorder holding them all.
- offline and online (keepalive 4 s, 1.5x is 6 s): a gateway frozen (SIGSTOP:
  silent, its TCP connection open), and one cut off by a network partition
  (a network namespace; root only, else the reason), until the recorder's
  verdict (`availability`, from the heartbeats) and the broker's will both
  said `offline`; then thawed or joined again until the verdict is `online`
  (presence_probe.py).
- 1, 10 and 50 tables: every table playing rolls at the keypad's pace for a
  window; CPU (% of one core) and memory (RSS) per table's board (device and
  VM) and gateway, and the broker's and recorder's; whether every record
  arrived. Every table is a virtual board running the firmware under the VM.
"""

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from bench.floor import doc_figures, localfloor, presence_probe
from bench.floor.localfloor import Rig
from bench.floor.netns import netns_or_reason
from bench.floor.pit_rig import PitRig
from host_tools.floor.base import topics
from sim.paths import ROOT

TICK = os.sysconf("SC_CLK_TCK")


def pct(values, q):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(q / 100.0 * (len(values) - 1))))], 1)


def save(out, path):
    """The figures into `path` (JSON), and on standard output without their notes."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(json.dumps({k: v for k, v in out.items() if k != "notes"}, indent=1, sort_keys=True))


def max_seq(rig, t):
    store = rig.store()
    try:
        return store.db.execute("select coalesce(max(seq), 0) from events where tbl=?", (t,)).fetchone()[0]
    finally:
        store.close()


def wait_until(predicate, timeout, step=0.005):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            return None
        time.sleep(step)
    return time.monotonic()


def setup(folder, name, tables, template, keepalive=10, pty=False, pits=0):
    """The floor of `tables` tables up (in `pits` pits bridged to the floor's broker, or none),
    every gateway connected; on a failure everything started is stopped before the error goes on."""
    names = ["T%d" % (i + 1) for i in range(tables)]
    where = os.path.join(folder, name)
    rig = PitRig(where, names, template, pits, keepalive) if pits else Rig(where, names, template, keepalive=keepalive)
    rig.pty_boards = None
    try:
        return _setup(rig, pty)
    except BaseException:
        rig.stop()
        if rig.pty_boards is not None:
            rig.pty_boards.kill()
            rig.pty_boards.wait()
        raise


def _setup(rig, pty):
    rig.start_broker()
    rig.start_recorder()
    rig.pty_boards = None
    if pty:  # every table's firmware App and link under CPython, in one process (pty_boards.py)
        with open(rig.log("pty-boards"), "ab") as log:
            rig.pty_boards = subprocess.Popen(
                [sys.executable, "-m", "bench.floor.pty_boards", "--dir", rig.dir, *rig.tables],
                stdout=log,
                stderr=log,
                cwd=ROOT,
            )
        for t in rig.tables:
            localfloor.wait_path(rig.port(t), 120)
        rig.gateway_extra = ["--timeout", "30"]  # one process answers every table's hello at once
    else:
        for t in rig.tables:
            rig.start_board(t)
    for t in rig.tables:
        rig.start_gateway(t)
        time.sleep(0.2 if pty else 0)  # fifty Python starts at once would only queue on 2 cores
    for t in rig.tables:
        rig.wait_log("gateway-" + t, "broker connection", timeout=600)
    return rig


def latency(rig, t, presses, rng):
    states = []
    watcher = localfloor.watch(rig, topics.table(rig.floor["floor"], t, "state"), states)
    seen = []
    to_record, to_state = [], []
    try:
        for _ in range(presses):
            before = max_seq(rig, t)
            del seen[:]
            t0 = time.monotonic()
            rig.press(t, "%d %d" % (rng.randint(1, 6), rng.randint(1, 6)))
            t_rec = wait_until(lambda before=before: max_seq(rig, t) > before, 30)

            def state_shows(before=before):
                for payload in states:
                    obj = json.loads(payload)
                    if (obj.get("journal") or {}).get("seq", 0) > before:
                        return True
                return False

            t_state = wait_until(state_shows, 30)
            states.clear()
            if t_rec:
                to_record.append((t_rec - t0) * 1000)
            if t_state:
                to_state.append((t_state - t0) * 1000)
            time.sleep(0.3)
    finally:
        watcher.stop()
    return {
        "presses": presses,
        "press_to_recorder_ms": {"p50": pct(to_record, 50), "p99": pct(to_record, 99)},
        "press_to_retained_state_ms": {"p50": pct(to_state, 50), "p99": pct(to_state, 99)},
        "answered": [len(to_record), len(to_state)],
    }


def backlog_rate(rig, t, rolls, rng):
    rig.kill_gateway(t)
    rig.press(t, " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rolls)))
    time.sleep(rolls * 0.4 + 1.5)  # the keypad's pace: the backlog is on the board
    before = max_seq(rig, t)
    rig.restart_gateway(t)
    if not wait_until(lambda: max_seq(rig, t) > before, 120, 0.05):
        return {"records": None}
    last = None
    while max_seq(rig, t) != last:  # drained when nothing new comes for 2 s
        last = max_seq(rig, t)
        time.sleep(2.0)
    store = rig.store()
    try:
        rows = store.db.execute("select received from events where tbl=? and seq>? order by received", (t, before))
        times = [r[0] for r in rows]
    finally:
        store.close()
    span = times[-1] - times[0]
    return {
        "records": len(times),
        "seconds": round(span, 3),
        "records_per_s": round((len(times) - 1) / span, 1) if span > 0 else None,
    }


def broker_catch_up(rig, t, rolls, rng):
    rig.broker.kill()
    rig.press(t, " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rolls)))
    time.sleep(rolls * 0.4 + 1.0)
    rig.start_broker()
    t0 = time.monotonic()
    before = max_seq(rig, t)
    # a missed key on a loaded machine makes a roll fewer: done when 90% arrived and nothing more for 2 s
    done = wait_until(lambda: max_seq(rig, t) >= before + int(rolls * 0.9), 120, 0.01)
    if done is None:
        return {"rolls_while_down": rolls, "seconds_from_broker_up": None}
    last = max_seq(rig, t)
    while time.monotonic() - done < 2.0:  # the time of the last record: nothing more for 2 s
        now = max_seq(rig, t)
        if now != last:
            last, done = now, time.monotonic()
        time.sleep(0.01)
    return {"rolls_while_down": rolls, "records": last - before, "seconds_from_broker_up": round(done - t0, 2)}


def offline_online(folder, template, samples):
    netns, why = netns_or_reason("b")
    try:
        return presence_probe.figures(os.path.join(folder, "presence"), template, 4, samples, netns, why)
    finally:
        if netns is not None:
            netns.remove()


def _proc_tree(pid):
    kids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(p))
            except (OSError, ValueError, IndexError):
                pass
    return [pid] + [k for kid in kids for k in _proc_tree(kid)]


def _usage(pids):
    cpu = rss = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu += int(fields[11]) + int(fields[12])
            with open("/proc/%d/status" % pid) as f:
                rss += int([x for x in f if x.startswith("VmRSS:")][0].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return cpu, rss


def scale(folder, tables, template, window, rng, pty=False, pits=0):
    """Every table playing a roll every 0.4 s for `window` s: each kind of process's CPU (% of a
    core) and RSS, each and per table; with `pits`, each pit's broker besides the floor's."""
    rig = setup(folder, "scale%d%s" % (tables, "-pits%d" % pits if pits else ""), tables, template, pty=pty, pits=pits)
    try:
        if pty:  # one process for every table: its share each
            boards = [[rig.pty_boards.pid]]
        else:
            boards = [_proc_tree(rig.boards[t].pid) for t in rig.tables]
        groups = {
            "board": boards,
            "gateway": [[rig.gateways[t].pid] for t in rig.tables],
            "broker": [[rig.broker.proc.pid]],
            "recorder": [[rig.recorder.pid]],
        }
        if pits:
            groups["pit broker"] = [[b.proc.pid] for b in rig.pit_brokers.values()]
        rolls = int(window / 0.4)
        for t in rig.tables:
            rig.press(t, " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rolls)))
        before = {k: [_usage(g) for g in gs] for k, gs in groups.items()}
        t0 = time.monotonic()
        time.sleep(window)
        after = {k: [_usage(g) for g in gs] for k, gs in groups.items()}
        elapsed = time.monotonic() - t0
        kind = "virtual board (MicroPython VM)"
        if pty:
            kind = "the firmware's App and link under CPython on a pty, all tables in one process (pty_boards.py)"
        out = {"tables": tables, "pits": pits, "window_s": round(elapsed, 1), "table_kind": kind}
        for k in groups:
            share = tables if (k == "board" and pty) else 1
            cpu = [(a[0] - b[0]) / TICK / elapsed * 100 / share for a, b in zip(after[k], before[k])]
            rss = [a[1] / 1024 / share for a in after[k]]
            out[k] = {
                "cpu_percent_each": round(statistics.mean(cpu), 1),
                "rss_mb_each": round(statistics.mean(rss), 1),
                # the kind's whole cost shared out over the tables it serves (a pit's broker: its pit's)
                "cpu_percent_per_table": round(sum(cpu) * share / tables, 3),
                "rss_mb_per_table": round(sum(rss) * share / tables, 2),
            }
        rows = rig.wait_quiet(240, steady=3)
        out["all_recorded"] = all(r["lag"] == 0 for r in rows)
        out["records"] = sum(len(rig.recorded(t)) for t in rig.tables)
        return out
    finally:
        rig.stop()
        if rig.pty_boards is not None:
            rig.pty_boards.send_signal(signal.SIGTERM)
            rig.pty_boards.wait(30)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.floor.floor_bench")
    parser.add_argument("--tables", default="1,10,50", help="table counts for the scale figures")
    parser.add_argument("--pty-from", type=int, default=50, help="from this many tables, CPython boards on ptys")
    parser.add_argument("--skip-single", action="store_true", help="only the scale figures")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--presence-samples", type=int, default=3, help="freezes and partitions of a gateway")
    parser.add_argument("--window", type=float, default=20.0, help="seconds of play measured at each scale")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "floor_bench.json"))
    args = parser.parse_args(argv)
    rng = random.Random(7)
    folder = tempfile.mkdtemp(prefix="floor-bench-")
    out = {"machine": {"cpus": os.cpu_count(), "load_at_start": os.getloadavg()[0]}, "notes": __doc__.strip()}
    template = localfloor.make_template(os.path.join(folder, "template"))
    if args.skip_single and os.path.exists(args.out):
        with open(args.out) as f:
            out = dict(json.load(f), machine=out["machine"], notes=out["notes"])
    else:
        rig = setup(folder, "one", 1, template, keepalive=4)
        try:
            out["latency"] = latency(rig, "T1", args.presses, rng)
            out["sustained"] = backlog_rate(rig, "T1", 40, rng)
            out["broker_restart"] = broker_catch_up(rig, "T1", 10, rng)
        finally:
            rig.stop()
        out["presence"] = offline_online(folder, template, args.presence_samples)
    counts = [int(x) for x in args.tables.split(",") if x]
    out["scale"] = [s for s in out.get("scale", []) if s["tables"] not in counts]
    for n in counts:
        out["scale"].append(scale(folder, n, template, args.window, rng, pty=n >= args.pty_from))
        print(json.dumps(out["scale"][-1]), file=sys.stderr, flush=True)
    out["stamp"] = doc_figures.bench_stamp("floor_bench", sys.argv[1:] if argv is None else argv)
    save(out, args.out)


if __name__ == "__main__":
    from sim.paths import bootstrap

    bootstrap()
    main()
