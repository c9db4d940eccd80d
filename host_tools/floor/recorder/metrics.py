"""The recorder's figures for Prometheus (host_tools/floor/base/metrics.py):
what it took from the broker and what became of it, per table what it
stored, how far the floor's copy is behind the table's gateway, and its
verdict on the table; its broker connection.

Counted by wrapping the recorder's handle_batch() and announce() (the
service's code is unchanged): an alert counts once it is committed and
said; the rest is read from the recorder at scrape time.
"""

import threading
import time
from collections import Counter

from host_tools.floor.base import topics


class RecorderFigures:
    def __init__(self, recorder):
        self.recorder = recorder
        self.client = None  # the broker connection, once made
        self.lock = threading.Lock()
        self.results = Counter()  # what handle() said
        self.stored = Counter()  # table -> records stored
        self.alerts = Counter()  # kind -> alerts raised
        self.read_seq = {}  # table -> (journal, seq) the gateway has read from its board (its `state`)
        self.handle_s = 0.0

    def watch(self):
        """Wrap the recorder's handle_batch() and announce(); returns the handle_batch to feed."""
        handle_batch, announce = self.recorder.handle_batch, self.recorder.announce

        def counted(messages):
            t0 = time.perf_counter()
            results = handle_batch(messages)
            spent = time.perf_counter() - t0
            with self.lock:
                self.handle_s += spent
                for (topic, payload, _), result in zip(messages, results):
                    self._count(topic, payload, result)
            return results

        def said(aid, tbl, kind, text, extra=None):
            announce(aid, tbl, kind, text, extra)
            with self.lock:
                self.alerts[kind] += 1

        self.recorder.handle_batch = counted
        self.recorder.announce = said
        return counted

    def _count(self, topic, payload, result):
        where = topics.parse_table_topic(self.recorder.floor, topic)
        self.results[result] += 1
        if result == "stored" and where:
            self.stored[where[0]] += 1
        if result == "state" and where:
            try:
                j = topics.decode(payload)["journal"]
                self.read_seq[where[0]] = (int(j["id"]), int(j["seq"]))
            except (ValueError, KeyError, TypeError):
                pass

    def read(self, f):
        r = self.recorder
        with self.lock:
            results, stored, alerts = dict(self.results), dict(self.stored), dict(self.alerts)
            read_seq, handle_s = dict(self.read_seq), self.handle_s
        for result in ("stored", "duplicate", "rejected", "state", "presence", "heartbeat", "ignored"):
            f.counter(
                "recorder_messages",
                "messages taken from the broker, by what became of them",
                results.get(result, 0),
                result=result,
            )
        f.counter(
            "recorder_verification_failures",
            "messages refused: not a record, or its chain does not check",
            results.get("rejected", 0),
        )
        f.counter("recorder_handle_seconds", "time spent checking and storing messages", handle_s)
        for kind, n in sorted(alerts.items()):
            f.counter("recorder_alerts", "alerts this recorder raised, by kind", n, kind=kind)
        f.gauge(
            "recorder_broker_connected",
            "1 while connected to the broker",
            1 if self.client is not None and self.client.connected.is_set() else 0,
        )
        now = r.clock()
        for tbl in sorted(set(stored) | set(read_seq) | set(r.said)):
            f.counter(
                "recorder_records_stored", "records this recorder stored, by table", stored.get(tbl, 0), table=tbl
            )
            said = r.said.get(tbl)
            if said:
                f.gauge(
                    "table_recorded_seq",
                    "the record up to which the floor holds every one (the table's newest journal)",
                    said[1],
                    table=tbl,
                )
            if tbl in read_seq:
                jid, seq = read_seq[tbl]
                behind = seq - said[1] if said and said[0] == jid else seq
                f.gauge(
                    "table_lag_records",
                    "records the table's gateway has read that the floor does not hold yet",
                    max(0, behind),
                    table=tbl,
                )
            online = r.judge.online(tbl, now)
            if online is not None:
                f.gauge("table_online", "1 when the recorder judges the table online", 1 if online else 0, table=tbl)
        f.gauge("recorder_duplicates", "copies of stored records dropped since start", r.duplicates)
