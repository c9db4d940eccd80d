"""The controller's decisions: each input applied to its meter, committed to the
ledger, then published (docs/progressive.md). No MQTT here: `publish(game,
view)` is given (service.py sends it retained on the meter topic), so the
tests drive it message by message.

Order: inputs are taken one at a time in the order they arrive (the broker
delivers one subscription's messages in its own arrival order; service.py
hands them over from paho's single network thread), and each is numbered by
the ledger's log as it commits. Near-simultaneous hits at two tables are
therefore paid in the broker's arrival order, and the order is the log's:
after a restart the same hits keep the same numbers. A copy of a record
already taken (a gateway publishing again after a reconnect) is dropped; a
hit record claimed again is refused with a line in the log. A record's
identity carries its table's board-erased step (`epoch`, floor_copy.py): an
erased board's new journal, numbered from 1 again, is a new set of records.
"""

import sys
import time

from host_tools.floor.progressive import ledgers, messages
from host_tools.floor.progressive.meter import LOCKED, Refused

ALERT_PREFIX = "prog-"  # a hit's id on the page and in acknowledgements: prog-MEA-3


def log(text):
    print("%s progressive: %s" % (time.strftime("%H:%M:%S"), text), file=sys.stderr, flush=True)


def hit_alert_id(game, n):
    return "%s%s-%d" % (ALERT_PREFIX, game, n)


def parse_alert_id(text):
    """(game, hit number) of a progressive hit's id, or None."""
    if not isinstance(text, str) or not text.startswith(ALERT_PREFIX):
        return None
    game, _, n = text[len(ALERT_PREFIX) :].partition("-")
    return (game, int(n)) if n.isdigit() else None


def _void_line(meter, body):
    hit = meter.hits[body["n"] - 1]
    what = "%s hit %d at %s voided by its table (record %d undid the roll)" % (
        meter.params.game,
        hit["n"],
        body["table"],
        body["seq"],
    )
    if body["reversed"]:
        return what + ": reversed, meter %d cents, reserve %d cents; PENDING until a shift manager acknowledges" % (
            meter.amount,
            meter.reserve,
        )
    why = "acknowledged (paid) by %s" % hit["acked_by"] if hit["acked_by"] else "later hits rest on it"
    return what + ": NOT reversed, %s; %s cents stay paid; alert to the shift manager and surveillance" % (
        why,
        hit["paid"],
    )


class Controller:
    def __init__(self, ledger_path, initial_params, publish=None, clock=time.time, fence=None):
        """`ledger_path`: a SQLite file or a postgresql:// URL (ledgers.py); `fence`: the lease
        the ledger's writes are checked against (service.py, on PostgreSQL)."""
        self.ledger = ledgers.open_ledger(ledger_path, fence=fence)
        self.clock = clock
        self.publish = publish or (lambda game, view: None)
        # read under the ledger's write lock: a writer before this one has committed, or never will
        with self.ledger.lock, self.ledger.transaction():
            params = self.ledger.params()
            if not params:  # the first start: the floor's parameters go into the ledger, recorded
                for game, p in sorted(initial_params.items()):
                    self.ledger.commit(
                        clock(), "params", game, {"params": p.to_dict(), "by": []}, "applied", params={game: p}
                    )
                params = self.ledger.params()
            elif initial_params and initial_params != params:
                log(
                    "the parameters file differs from the ledger's:"
                    " the ledger's are in force (floor progressive-params)"
                )
            self.meters = self.ledger.meters(params)
            self.tables = self.ledger.tables()  # table -> the progressive paytables its board plays
            self.epochs = self.ledger.epochs()  # table -> its newest board-erased step known
        self.version = self.ledger.data_version()
        self.refusals = 0
        for m in self.meters.values():
            if m.state == LOCKED:  # killed between a hit's lock and its pay: pay it now, the same way
                self._settle(m)

    def close(self):
        self.ledger.close()

    def fresh(self):
        """Reload the meters if another process (a maintenance) committed to the ledger."""
        version = self.ledger.data_version()
        if version != self.version:
            self.meters = self.ledger.meters(self.ledger.params())
            self.tables = self.ledger.tables()
            self.version = version
            return True
        return False

    def view(self, meter):
        """The meter's view with the linked tables: which paytable each plays, and the
        tables closed for this game because they play another one than the meter's."""
        out = meter.view()
        game, want = meter.params.game, meter.params.paytable
        plays = {t: c["paytables"].get(game) for t, c in sorted(self.tables.items())}
        out["tables"] = plays
        out["closed_tables"] = {
            t: "plays %s; the %s meter is on %s" % (p, game, want) for t, p in plays.items() if p != want
        }
        return out

    def views(self):
        return {g: self.view(m) for g, m in sorted(self.meters.items())}

    def publish_all(self):
        for game, view in self.views().items():
            self.publish(game, view)

    # ---- inputs ------------------------------------------------------------------

    def epoch(self, table):
        return self.epochs.get(table, 0)

    def learn_epoch(self, table, step):
        """The recorder took board-erased step `step` at `table` (its `recorded`, or its copy):
        the table's records from now on are keyed with it. True when it is news."""
        with self.ledger.lock:
            if step <= self.epoch(table):
                return False
            self.ledger.set_epoch(table, step)
            self.epochs[table] = step
        log(
            "table %s: board-erased step %d; its new journal is taken from record 1, the old journal's"
            " records stay as taken" % (table, step)
        )
        return True

    def take(self, inp):
        """One progressive record from a table (messages.Input): "applied",
        "duplicate" or "refused: …"."""
        with self.ledger.lock:
            self.fresh()
            if self.ledger.seen(inp.key()):
                if inp.kind == messages.PROG_HIT:
                    log("refused: hit already claimed: %r" % inp)
                return "duplicate"
            meter = self.meters.get(inp.game)
            body = {
                "kind": messages.KINDS[inp.kind],
                "table": inp.table,
                "board": inp.board,
                "journal": inp.journal,
                "seq": inp.seq,
                "count": inp.count,
            }
            if inp.epoch:  # a row before any step has none: the replay reads 0
                body["epoch"] = inp.epoch
            try:
                if meter is None:
                    raise Refused("%s is not linked on this floor" % inp.game)
                plays = self.tables.get(inp.table, {}).get("paytables", {}).get(inp.game)
                if inp.kind != messages.PROG_VOID and plays is not None and plays != meter.params.paytable:
                    raise Refused(
                        "table %s plays %s; the %s meter is on %s: its progressive is closed until it is set right"
                        % (inp.table, plays, inp.game, meter.params.paytable)
                    )
                if inp.kind == messages.PROG_WAGER:
                    meter.contribute(inp.table, inp.count)
                elif inp.kind == messages.PROG_VOID:
                    body["hit"] = inp.hit
                    n, reversed_ = meter.void(inp.table, inp.board, inp.journal, inp.seq, inp.hit, inp.count, inp.epoch)
                    body.update(n=n, reversed=reversed_)
                else:
                    body["arrival"] = self._next_arrival()
                    body["positions"] = inp.positions
                    meter.lock(inp.table, inp.board, inp.journal, inp.seq, inp.count, body["arrival"], inp.epoch)
            except Refused as e:
                self.refusals += 1
                log("refused: %s: %s" % (inp, e))
                self.ledger.commit(self.clock(), "input", inp.game, body, "refused: %s" % e, key=inp.key())
                return "refused: %s" % e
            self._commit(meter, "input", body, key=inp.key())
            if inp.kind == messages.PROG_VOID:
                log(_void_line(meter, body))
            if meter.state == LOCKED:
                self._settle(meter)
            return "applied"

    def take_config(self, cfg):
        """A table's record carrying its configuration (messages.TableConfig): which
        progressive paytables its board plays. "applied" or "duplicate"."""
        with self.ledger.lock:
            self.fresh()
            if self.ledger.seen(cfg.key()):
                return "duplicate"
            body = {"table": cfg.table, "board": cfg.board, "journal": cfg.journal, "seq": cfg.seq}
            if cfg.epoch:
                body["epoch"] = cfg.epoch
            body["paytables"] = cfg.paytables
            before = self.tables.get(cfg.table, {}).get("paytables")
            row = (self.clock(), "table_config", None, body, "applied")
            self.ledger.commit(*row, key=cfg.key(), table=(cfg.table, body))
            self.tables[cfg.table] = body
            if before != cfg.paytables:
                for game, m in sorted(self.meters.items()):
                    plays = cfg.paytables.get(game)
                    if plays != m.params.paytable:
                        log(
                            "table %s plays %s; the %s meter is on %s: its progressive is closed"
                            % (cfg.table, plays, game, m.params.paytable)
                        )
                self.publish_all()
            return "applied"

    def _next_arrival(self):
        return self.ledger.last_n() + 1

    def _settle(self, meter):
        paid = meter.settle()
        body = {"hits": [{k: h[k] for k in ("n", "table", "wagers", "pays", "meter_at_hit", "reseeds")} for h in paid]}
        self._commit(meter, "settle", body)
        for h in paid:
            log(
                "%s hit %d at %s: %d winning wagers paid %s cents from a meter of %d; pending"
                % (meter.params.game, h["n"], h["table"], h["wagers"], h["pays"], h["meter_at_hit"])
            )

    def acknowledge(self, alert_id, by, role, note=""):
        """A person's acknowledgement of hit `alert_id`: "applied" or "refused: …"."""
        with self.ledger.lock:
            parsed = parse_alert_id(alert_id)
            if parsed is None:
                return "ignored"
            game, n = parsed
            body = {"hit": n, "by": by, "role": role, "note": note}
            self.fresh()
            try:
                if role != "shift_manager":
                    raise Refused("only a shift manager acknowledges a progressive hit (%s is a %s)" % (by, role))
                meter = self.meters.get(game)
                if meter is None:
                    raise Refused("%s is not linked on this floor" % game)
                meter.acknowledge(n, by)
            except Refused as e:
                log("refused acknowledgement of %s: %s" % (alert_id, e))
                self.ledger.commit(self.clock(), "ack", game, body, "refused: %s" % e)
                return "refused: %s" % e
            self._commit(meter, "ack", body)
            log("%s acknowledged by %s" % (alert_id, by))
            return "applied"

    def change_params(self, new, technician, manager):
        """New parameters for one game, by a technician and a shift manager (maintenance.py
        checks who they are and that no table is live): "applied" or "refused: …"."""
        with self.ledger.lock, self.ledger.transaction():  # read, change and write under one lock
            self.meters = self.ledger.meters(self.ledger.params())
            meter = self.meters.get(new.game)
            body = {"params": new.to_dict(), "by": [technician, manager]}
            try:
                if meter is None:
                    raise Refused("%s is not linked on this floor" % new.game)
                meter.change_params(new)
            except Refused as e:
                self.ledger.commit(self.clock(), "params", new.game, body, "refused: %s" % e)
                return "refused: %s" % e
            self._commit(meter, "params", body, params={new.game: new})
            return "applied"

    def _commit(self, meter, what, body, key=None, params=None):
        try:
            self.ledger.commit(self.clock(), what, meter.params.game, body, "applied", [meter], key, params)
        except BaseException:  # not durable: the meter in memory goes back to the ledger's
            self.meters = self.ledger.meters(self.ledger.params())
            raise
        self.publish(meter.params.game, self.view(meter))
