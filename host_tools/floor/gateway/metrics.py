"""The gateway's figures for Prometheus (host_tools/floor/base/metrics.py),
read at scrape time: its broker and board connections, how far it has read
the board's journal, what its outbox holds unsent, what is in flight to the
broker, and where the recorder says the floor's copy is."""

import os
import sqlite3


class GatewayFigures:
    def __init__(self, gateway):
        self.gateway = gateway

    def read(self, f):
        g = self.gateway
        t = g.table
        f.gauge("gateway_broker_connected", "1 while connected to the broker", int(g.mqtt.connected.is_set()), table=t)
        f.counter(
            "gateway_broker_connections", "connections made to the broker since start", g.mqtt.connections, table=t
        )
        f.gauge("gateway_board_connected", "1 while the board answers on its port", int(bool(g.board_up)), table=t)
        f.gauge("gateway_records_in_flight", "records published and not yet acknowledged", len(g.inflight), table=t)
        if g.recorded is not None:
            f.gauge(
                "gateway_recorded_seq",
                "the record up to which the recorder says it holds every one",
                g.recorded[1],
                table=t,
            )
        if g.outbox is not None and os.path.exists(g.outbox_path):
            db = sqlite3.connect("file:%s?mode=ro" % g.outbox_path, uri=True, timeout=2)
            try:
                total, sent = db.execute("select count(*), coalesce(sum(sent), 0) from records").fetchone()
                cursor = db.execute("select journal, seq from cursor").fetchone()
            finally:
                db.close()
            f.counter("gateway_records_read", "records read from the board into the outbox", total, table=t)
            f.gauge(
                "gateway_records_unsent", "records in the outbox the broker has not acknowledged", total - sent, table=t
            )
            if cursor:
                f.gauge(
                    "gateway_read_seq",
                    "the last record read from the board's journal",
                    cursor[1],
                    table=t,
                    journal=cursor[0],
                )
