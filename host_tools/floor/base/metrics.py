"""Each floor service's figures in the Prometheus text format, served on
loopback (`--metrics-port P`, http://127.0.0.1:P/metrics) with the
prometheus-client library, for an operator's Prometheus to scrape
(docs/floor.md, Metrics).

A service gives a function that returns its figures at scrape time, read
from the service's own objects (what it holds now, what it has counted), so
the service's code needs no hooks; the library adds the process's own
(`process_cpu_seconds_total`, `process_resident_memory_bytes`, …). Every
name starts `crapsfloor_`.
"""

import errno
import os
import sys

from host_tools import EXIT_USAGE, HostToolError

PREFIX = "crapsfloor_"


class Figures:
    """What one scrape says: add() each figure, then families() for the library."""

    def __init__(self):
        self._families = {}

    def add(self, name, kind, doc, value, /, **labels):
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        if value is None:
            return
        key = PREFIX + name
        family = self._families.get(key)
        if family is None:
            make = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
            family = make(key, doc, labels=sorted(labels))
            self._families[key] = family
        family.add_metric([str(labels[k]) for k in sorted(labels)], float(value))

    def gauge(self, name, doc, value, /, **labels):
        self.add(name, "gauge", doc, value, **labels)

    def counter(self, name, doc, value, /, **labels):
        self.add(name, "counter", doc, value, **labels)

    def families(self):
        return list(self._families.values())


class _Collector:
    def __init__(self, read):
        self.read = read

    def collect(self):
        figures = Figures()
        try:
            self.read(figures)
        except Exception as e:  # a scrape must not kill the service: the figures are missing, and say so
            import traceback

            where = traceback.extract_tb(e.__traceback__)[-1]
            print(
                "metrics: %s: %s (%s:%d)" % (type(e).__name__, e, os.path.basename(where.filename), where.lineno),
                file=sys.stderr,
                flush=True,
            )
            figures.gauge("scrape_error", "1 when the service could not read its figures", 1, error=type(e).__name__)
        return figures.families()

    def describe(self):
        return []


def expose(port, read, host="127.0.0.1"):
    """Serve the process's figures on host:port; `read(figures)` fills each scrape.
    Port 0 or None: nothing served. HostToolError (exit 2) when the port is taken."""
    if not port:
        return None
    from prometheus_client import REGISTRY, start_http_server

    REGISTRY.register(_Collector(read))
    try:
        server, _ = start_http_server(port, addr=host)
    except OSError as e:
        reason = "in use" if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
        raise HostToolError("cannot serve metrics on %s:%d: %s" % (host, port, reason), EXIT_USAGE)
    return server


def add_option(parser):
    parser.add_argument(
        "--metrics-port", type=int, default=0, help="serve Prometheus metrics on 127.0.0.1:PORT (default: none)"
    )
