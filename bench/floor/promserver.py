"""A Prometheus server of its own for a test or a bench: Debian's
`prometheus`, its configuration and storage in a temporary directory,
listening on a free loopback port, scraping the given loopback targets every
`interval` seconds; queried with its HTTP API; stopped. Never the system's
service."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

from host_tools.floor.bus.broker import free_port


def binary():
    return shutil.which("prometheus") or ("/usr/bin/prometheus" if os.access("/usr/bin/prometheus", os.X_OK) else None)


def why_not():
    if binary() is None:
        return "Prometheus is not installed (make test installs Debian's prometheus as root)"
    return None


class Prometheus:
    def __init__(self, jobs, interval=1.0, rules=None):
        """`jobs`: {job: ["127.0.0.1:PORT", …]}; `rules`: a rules file's text (alerting rules) or None."""
        self.dir = tempfile.mkdtemp(prefix="crapsfloor-prom-")
        self.port = free_port()
        lines = [
            "global:",
            "  scrape_interval: %dms" % (interval * 1000),
            "  evaluation_interval: %dms" % (interval * 1000),
        ]
        if rules:
            with open(os.path.join(self.dir, "rules.yml"), "w") as f:
                f.write(rules)
            lines += ["rule_files:", "  - %s" % os.path.join(self.dir, "rules.yml")]
        lines += ["scrape_configs:"]
        for job, targets in jobs.items():
            lines += [
                "  - job_name: %s" % json.dumps(job),
                "    static_configs:",
                "      - targets: %s" % json.dumps(targets),
            ]
        self.config = os.path.join(self.dir, "prometheus.yml")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, timeout=30.0):
        log = open(os.path.join(self.dir, "prometheus.log"), "ab")
        self.proc = subprocess.Popen(
            [
                binary(),
                "--config.file=" + self.config,
                "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
                "--web.listen-address=127.0.0.1:%d" % self.port,
            ],
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()
        end = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError("prometheus did not start: " + self.log_tail())
            time.sleep(0.1)

    def log_tail(self):
        with open(os.path.join(self.dir, "prometheus.log"), "rb") as f:
            return f.read()[-800:].decode("utf-8", "replace")

    def api(self, path, **params):
        with urllib.request.urlopen(self.url + path + "?" + urllib.parse.urlencode(params), timeout=5) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError("prometheus %s: %s" % (path, body))
        return body["data"]

    def query(self, expr):
        """{frozenset(labels without __name__): value} of an instant query."""
        out = {}
        for series in self.api("/api/v1/query", query=expr)["result"]:
            labels = {k: v for k, v in series["metric"].items() if k != "__name__"}
            out[frozenset(labels.items())] = float(series["value"][1])
        return out

    def alerts(self):
        """[(alertname, state, labels)] of the alerting rules' alerts now."""
        return [(a["labels"].get("alertname"), a["state"], a["labels"]) for a in self.api("/api/v1/alerts")["alerts"]]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
