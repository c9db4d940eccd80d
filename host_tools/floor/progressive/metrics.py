"""The progressive controller's figures for Prometheus
(host_tools/floor/base/metrics.py), read at scrape time from the ledger's
meters: each game's amount and reserve (in cents), its state (one series
per state, 1 for the one it is in), hits waiting for acknowledgement; the
broker connection (the tables close while the controller is away)."""

from host_tools.floor.progressive.meter import LOCKED, OPEN, PENDING


class ControllerFigures:
    def __init__(self, service):
        self.service = service

    def read(self, f):
        s = self.service
        with s.controller.ledger.lock:
            views = s.controller.views()
        for game, view in views.items():
            f.gauge("progressive_amount_cents", "the meter's amount, cents", view["amount"], game=game)
            f.gauge("progressive_reserve_cents", "the reserve for the next seed, cents", view["reserve"], game=game)
            for state in (OPEN, PENDING, LOCKED):
                f.gauge(
                    "progressive_state",
                    "1 for the state the meter is in",
                    int(view["state"] == state),
                    game=game,
                    state=state,
                )
            f.gauge("progressive_hits_pending", "hits paid and not yet acknowledged", len(view["pending"]), game=game)
        f.gauge(
            "progressive_broker_connected",
            "1 while connected to the broker (the meters' writer is on the bus)",
            int(s.client.connected.is_set()),
        )
