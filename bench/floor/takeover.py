"""`make bench-floor` (scale_bench): the progressive controller's takeover.
Two controllers on one floor, as on two machines (a floor directory and a
working directory each), share a lease and the ledger on a PostgreSQL of
their own (`floor progressive --lease postgresql://… --ledger postgresql://…`);
the holder is SIGKILLed and the time to the standby's presence `online` on
the broker is measured, then the killed one comes back as the new standby and the round repeats, so each
sample is a real holder's death seen by a watcher on the broker."""

import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import host_tools  # noqa: F401  (firmware/lib on the path, for the feed's codec)
from bench.floor.progressive_feed import provision
from host_tools.floor import floor_init
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.mqtt import Client
from sim.paths import ROOT

# What a second machine's controller needs of the floor's directory, copied there by the
# operator (docs/floor.md, "A standby on a second machine"): the floor, the controller's
# broker password, and each table's journal key (a record must carry its board's MAC).
SECOND_MACHINE_FILES = ("floor.json", os.path.join("secrets", "progressive"))


def second_machine(directory, other):
    """`other`, a floor directory for a controller on another machine: the files it needs
    copied from `directory`, nothing else (no ledger, no broker, no recorder), then its own
    install record (`floor progressive-install`, run there)."""
    for sub in ("secrets", "keys", "logs"):
        os.makedirs(os.path.join(other, sub), mode=0o700, exist_ok=True)
    for name in SECOND_MACHINE_FILES + tuple(
        os.path.join("keys", k) for k in sorted(os.listdir(os.path.join(directory, "keys"))) if k.endswith(".journal")
    ):
        shutil.copy2(os.path.join(directory, name), os.path.join(other, name))
    done = subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", "progressive-install", "--dir", other],
        capture_output=True,
        text=True,
        cwd=other,
        env=_env(),
    )
    if done.returncode != 0:
        raise RuntimeError("floor progressive-install on the second machine: %s" % done.stderr.strip())
    return other


def leased_controller(directory, name, lease, ledger=None, db=None):
    """`floor progressive --lease` as controller `name`, logging to logs/progressive-NAME.log;
    with `ledger` (and `db`, the recorder's copy) on PostgreSQL, run in `directory` as its
    working directory, as on a machine of its own."""
    log = open(os.path.join(directory, "logs", "progressive-%s.log" % name), "ab")
    argv = [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", directory, "--lease", lease]
    argv += ["--ledger", ledger] if ledger else []
    argv += ["--db", db] if db else []
    p = subprocess.Popen(
        argv,
        stdout=log,
        stderr=log,
        cwd=directory if ledger else ROOT,
        env=_env(),
    )
    log.close()
    return p


def _env():
    """The environment of a command run outside the repository: the repository on its path."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))


def controller_log(directory, name):
    """What controller `name` has logged so far."""
    with open(os.path.join(directory, "logs", "progressive-%s.log" % name), "rb") as f:
        return f.read().decode("utf-8", "replace")


def _log_count(directory, name, text):
    return controller_log(directory, name).count(text)


def stop_controllers(procs):
    """SIGTERM each controller still running, and wait for it."""
    for p in procs.values():
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            p.wait(20)


def _wait(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise RuntimeError(what)
        time.sleep(0.02)


def controller_takeover(folder, server, samples=3):
    """Seconds from the holder's SIGKILL to the standby's presence `online`, `samples` times:
    two controllers as on two machines (each its own floor directory and working directory),
    the ledger, the lease and the recorder's copy on one PostgreSQL."""
    from host_tools.floor.pg import schema

    directory = os.path.join(folder, "takeover")
    floor_init.init(directory, 1, "bench", broker.free_port(), broker.free_port())
    provision(directory, ["T1"])
    mosq = broker.Broker(directory).start()
    lease = server.create("lease")
    schema.migrate(lease)  # the ledger's schema (`floor db migrate`)
    dirs = {"a": directory, "b": second_machine(directory, os.path.join(folder, "takeover-b"))}
    online = []  # monotonic times of presence `online`
    lock = threading.Lock()

    def on_message(topic, payload, retained):
        if topic.endswith("/progressive/presence") and payload == b"online" and not retained:
            with lock:
                online.append(time.monotonic())

    def start(name):
        return leased_controller(dirs[name], name, lease, ledger=lease, db=lease)

    def count(name, text):
        return _log_count(dirs[name], name, text)

    port = floordir.read_floor(directory)["port"]
    password = floordir.password(directory, "floorctl")
    watcher = Client("mqtt://127.0.0.1:%d" % port, "floorctl", password, "watcher", on_message=on_message)
    procs = {}
    try:
        watcher.start()
        if not watcher.wait_connected(10):
            raise RuntimeError("the watcher did not connect")
        watcher.subscribe(topics.floor_root("bench") + "/progressive/presence")
        procs["a"] = start("a")
        _wait(lambda: count("a", "took the lease") == 1, 30, "no controller took the lease")
        _wait(lambda: len(online) == 1, 20, "the holder never said online")
        procs["b"] = start("b")
        _wait(lambda: count("b", "standby") >= 1, 30, "no standby")
        holder, standby = "a", "b"
        out = []
        for _ in range(samples):
            took = count(standby, "took the lease")
            seen = len(online)
            killed = time.monotonic()
            procs[holder].send_signal(signal.SIGKILL)
            procs[holder].wait()
            _wait(lambda seen=seen: len(online) > seen, 30, "the standby never said online")
            if count(standby, "took the lease") != took + 1:
                raise RuntimeError("online came from another controller than the standby")
            out.append(round(online[seen] - killed, 2))
            waits = count(holder, "standby")
            procs[holder] = start(holder)
            back = lambda h=holder, n=waits: count(h, "standby") > n  # noqa: E731
            _wait(back, 30, "the killed one did not come back as the standby")
            holder, standby = standby, holder
        return {"samples_s": out, "ledger": "postgresql", "machines": 2}
    finally:
        watcher.stop()
        stop_controllers(procs)
        mosq.stop()


def main(argv=None):
    """`python -m bench.floor.takeover [--samples N]`: the takeover alone, on a PostgreSQL of its own;
    prints the samples and the stamp (the command, commit, cores, load) as JSON."""
    import argparse
    import json
    import tempfile

    from bench.floor import pgserver
    from sim.analysis import doc_figures as shared

    parser = argparse.ArgumentParser(prog="python -m bench.floor.takeover", description=main.__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3)
    args = parser.parse_args(argv)
    why = pgserver.why_not()
    if why:
        print("takeover: %s" % why, file=sys.stderr)
        return 2
    server = pgserver.Server(fsync=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix="crapsfloor-takeover-") as folder:
            out = controller_takeover(folder, server, args.samples)
    finally:
        server.remove()
    command = " ".join(["python -m bench.floor.takeover"] + (argv if argv is not None else sys.argv[1:]))
    out["stamp"] = shared.stamp(command.strip())
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
