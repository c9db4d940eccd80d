"""The floor's metrics, scraped by a real Prometheus (Debian's prometheus,
its own configuration and storage in a temporary directory, on loopback)
from real services: a recorder, the progressive controller and the pit
page on a real mosquitto. Two tables publish known records, one message is
not a record and one does not continue its chain, and one login is wrong;
Prometheus's figures must say exactly that. The alerting rules the docs give
(docs/prometheus-rules.yml) are loaded and healthy."""

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from bench.floor import promserver, record_feed
from bench.floor.localfloor import have_mosquitto
from host_tools.floor import floor_init
from host_tools.floor.bus import broker
from host_tools.floor.progressive import params
from sim.paths import ROOT

pytestmark = [
    pytest.mark.skipif(promserver.why_not() is not None, reason=promserver.why_not() or ""),
    pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"),
]
RULES = os.path.join(ROOT, "docs", "prometheus-rules.yml")


def service(directory, name, *argv):
    log = open(os.path.join(directory, "logs", name + ".log"), "ab")
    p = subprocess.Popen(
        [sys.executable, "-m", "host_tools", *argv, "--dir", directory], stdout=log, stderr=log, cwd=ROOT
    )
    log.close()
    return p


def wait_log(directory, name, text, timeout=30.0):
    path = os.path.join(directory, "logs", name + ".log")
    end = time.monotonic() + timeout
    while True:
        with open(path, "rb") as f:
            data = f.read()
        if text.encode() in data:
            return
        assert time.monotonic() < end, "%s did not log %r: %r" % (name, text, data[-600:])
        time.sleep(0.05)


def until(prom, expr, want, timeout=30.0):
    """Prometheus's answer to `expr` once it equals `want` ({labels frozenset: value}); fails with the last one."""
    end = time.monotonic() + timeout
    while True:
        got = prom.query(expr)
        if got == want:
            return got
        assert time.monotonic() < end, "%s: %s, not %s" % (expr, got, want)
        time.sleep(0.2)


def L(**labels):
    return frozenset(labels.items())


def test_prometheus_scrapes_each_service_and_the_figures_are_what_the_floor_did(tmp_path):
    directory = str(tmp_path / "floor")
    floor = floor_init.init(directory, 2, "test", broker.free_port(), broker.free_port())
    mosq = broker.Broker(directory).start()
    ports = {name: broker.free_port() for name in ("recorder", "progressive", "page")}
    http_port = broker.free_port()
    procs = {
        "recorder": service(directory, "recorder", "recorder", "--metrics-port", str(ports["recorder"])),
        "progressive": service(
            directory, "progressive", "floor", "progressive", "--metrics-port", str(ports["progressive"])
        ),
        "page": service(
            directory, "page", "floor", "page", "--http-port", str(http_port), "--metrics-port", str(ports["page"])
        ),
    }
    jobs = {name: ["127.0.0.1:%d" % port] for name, port in ports.items()}
    prom = promserver.Prometheus(jobs, interval=0.5, rules=open(RULES).read())
    feed = None
    try:
        wait_log(directory, "recorder", "connected to the broker")
        prom.start()
        until(prom, "up", {L(job=j, instance=t[0]): 1.0 for j, t in jobs.items()})
        feed = record_feed.Feed(directory, floor, "mqtt://127.0.0.1:%d" % floor["port"])
        feed.publish("T1", record_feed.journal("T1", 40))
        feed.publish("T2", record_feed.journal("T2", 25))
        feed.publish("T2", [record_feed.journal("T1", 2)[1]])  # T1's record on T2's topic: not T2's record
        feed.publish("T1", [record_feed.journal("T1", 41, t0=9)[40]])  # another chain's record 41: chain broken
        until(
            prom,
            "crapsfloor_recorder_records_stored_total",
            {L(job="recorder", instance=jobs["recorder"][0], table=t): n for t, n in (("T1", 40.0), ("T2", 25.0))},
        )
        until(prom, "sum(crapsfloor_recorder_verification_failures_total)", {L(): 2.0})
        until(
            prom,
            "sum by (kind) (crapsfloor_recorder_alerts_total)",
            {L(kind="bad message"): 1.0, L(kind="chain broken"): 1.0},
        )
        until(
            prom,
            'crapsfloor_recorder_messages_total{result="stored"}',
            {L(job="recorder", instance=jobs["recorder"][0], result="stored"): 65.0},
        )
        until(prom, "max by (table) (crapsfloor_table_recorded_seq)", {L(table="T1"): 40.0, L(table="T2"): 25.0})
        until(prom, "crapsfloor_recorder_broker_connected", {L(job="recorder", instance=jobs["recorder"][0]): 1.0})
        # the meters as the ledger holds them: each game open at its seed
        seeds = {g: p.base for g, p in params.load(params.params_path(directory)).items()}
        until(
            prom, "max by (game) (crapsfloor_progressive_amount_cents)", {L(game=g): float(s) for g, s in seeds.items()}
        )
        until(prom, 'max by (game) (crapsfloor_progressive_state{state="open"})', {L(game=g): 1.0 for g in seeds})
        until(
            prom,
            "crapsfloor_progressive_broker_connected",
            {L(job="progressive", instance=jobs["progressive"][0]): 1.0},
        )
        # a wrong password at the page
        with httpx.Client(base_url="http://127.0.0.1:%d" % http_port) as web:
            form = web.get("/login")
            csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
            refused = web.post("/login", data={"user": "nobody", "password": "wrong", "csrf": csrf})
            assert refused.status_code == 401
        until(prom, 'sum(crapsfloor_page_logins_refused_total{reason="password"})', {L(): 1.0})
        until(prom, "sum(crapsfloor_page_sessions)", {L(): 0.0})
        until(prom, "crapsfloor_page_broker_connected", {L(job="page", instance=jobs["page"][0]): 1.0})
        # the process's own figures come with it
        assert prom.query('process_resident_memory_bytes{job="recorder"}')
        rules = [r for g in prom.api("/api/v1/rules")["groups"] for r in g["rules"]]
        assert len(rules) >= 8 and all(r["health"] == "ok" for r in rules), rules
        # the recorder killed: Prometheus sees it down
        procs["recorder"].send_signal(signal.SIGKILL)
        procs["recorder"].wait()
        until(prom, 'up{job="recorder"}', {L(job="recorder", instance=jobs["recorder"][0]): 0.0})
    finally:
        if feed:
            feed.stop()
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait(20)
        prom.stop()
        mosq.stop()


def test_a_metrics_port_in_use_is_one_line_and_exit_2(tmp_path):
    directory = str(tmp_path / "floor")
    floor_init.init(directory, 1, "test", broker.free_port(), broker.free_port())
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "host_tools", "recorder", "--dir", directory, "--metrics-port", str(port)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=30,
        )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "host_tools recorder: cannot serve metrics on 127.0.0.1:%d: in use" % port
    ]
