"""`make bench-floor` (scale_bench): the progressive controller's takeover.
Two controllers on one floor share a lease on a PostgreSQL of their own
(`floor progressive --lease postgresql://…`); the holder is SIGKILLed and the
time to the standby's presence `online` on the broker is measured, then the
killed one comes back as the new standby and the round repeats, so each
sample is a real holder's death seen by a watcher on the broker."""

import os
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


def leased_controller(directory, name, lease):
    """`floor progressive --lease` as controller `name`, logging to logs/progressive-NAME.log."""
    log = open(os.path.join(directory, "logs", "progressive-%s.log" % name), "ab")
    p = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", directory, "--lease", lease],
        stdout=log,
        stderr=log,
        cwd=ROOT,
    )
    log.close()
    return p


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
    """Seconds from the holder's SIGKILL to the standby's presence `online`, `samples` times."""
    directory = os.path.join(folder, "takeover")
    floor_init.init(directory, 1, "bench", broker.free_port(), broker.free_port())
    provision(directory, ["T1"])
    mosq = broker.Broker(directory).start()
    lease = server.create("lease")
    online = []  # monotonic times of presence `online`
    lock = threading.Lock()

    def on_message(topic, payload, retained):
        if topic.endswith("/progressive/presence") and payload == b"online" and not retained:
            with lock:
                online.append(time.monotonic())

    port = floordir.read_floor(directory)["port"]
    password = floordir.password(directory, "floorctl")
    watcher = Client("mqtt://127.0.0.1:%d" % port, "floorctl", password, "watcher", on_message=on_message)
    procs = {}
    try:
        watcher.start()
        if not watcher.wait_connected(10):
            raise RuntimeError("the watcher did not connect")
        watcher.subscribe(topics.floor_root("bench") + "/progressive/presence")
        procs["a"] = leased_controller(directory, "a", lease)
        _wait(lambda: _log_count(directory, "a", "took the lease") == 1, 30, "no controller took the lease")
        _wait(lambda: len(online) == 1, 20, "the holder never said online")
        procs["b"] = leased_controller(directory, "b", lease)
        _wait(lambda: _log_count(directory, "b", "standby") >= 1, 30, "no standby")
        holder, standby = "a", "b"
        out = []
        for _ in range(samples):
            took = _log_count(directory, standby, "took the lease")
            seen = len(online)
            killed = time.monotonic()
            procs[holder].send_signal(signal.SIGKILL)
            procs[holder].wait()
            _wait(lambda seen=seen: len(online) > seen, 30, "the standby never said online")
            if _log_count(directory, standby, "took the lease") != took + 1:
                raise RuntimeError("online came from another controller than the standby")
            out.append(round(online[seen] - killed, 2))
            waits = _log_count(directory, holder, "standby")
            procs[holder] = leased_controller(directory, holder, lease)
            back = lambda h=holder, n=waits: _log_count(directory, h, "standby") > n  # noqa: E731
            _wait(back, 30, "the killed one did not come back as the standby")
            holder, standby = standby, holder
        return {"samples_s": out}
    finally:
        watcher.stop()
        stop_controllers(procs)
        mosq.stop()
