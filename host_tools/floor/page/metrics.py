"""The pit page's figures for Prometheus (host_tools/floor/base/metrics.py):
alerts open per kind and per table, sessions open, logins refused by why,
and its broker connection. Read at scrape time; the logins refused are
counted where the page refuses them (`login_refused`)."""

import threading
from collections import Counter

_lock = threading.Lock()
_refused = Counter()  # why -> logins refused


def login_refused(why):
    """A login the page refused: `password` (wrong name or password), `form` (an expired or foreign form), `broker`."""
    with _lock:
        _refused[why] += 1


class PageFigures:
    def __init__(self, view, sessions, service):
        self.view, self.sessions, self.service = view, sessions, service

    def read(self, f):
        with self.view.lock:
            open_alerts = Counter((a.kind, a.table or "") for a in self.view.book.open_alerts())
        kinds = sorted({k for k, _ in open_alerts})
        for kind in kinds:
            n = sum(v for (k, _), v in open_alerts.items() if k == kind)
            f.gauge("page_alerts_open", "alerts open (waiting for an acknowledgement), by kind", n, kind=kind)
        for (kind, table), n in sorted(open_alerts.items()):
            f.gauge("page_alerts_open_by_table", "alerts open by kind and table", n, kind=kind, table=table)
        if not kinds:
            f.gauge("page_alerts_open", "alerts open (waiting for an acknowledgement), by kind", 0, kind="none")
        with _lock:
            refused = dict(_refused)
        for why in ("password", "form", "broker"):
            f.counter("page_logins_refused", "logins the page refused, by why", refused.get(why, 0), reason=why)
        with self.sessions._lock:
            f.gauge("page_sessions", "people logged in now (sessions open)", len(self.sessions._by_id))
        f.gauge(
            "page_broker_connected",
            "1 while the page's own broker connection is up",
            int(self.service.connected.is_set()),
        )
