"""What the pit page knows of the floor: a tile per table, the alerts, what people did.

Fed by the page service's own broker connection (bus.py) with the floor's
messages (topics.py):

- `table/<t>/recorded` (the recorder: the table's journal is complete up to
  seq N): the new records are read from the recorder's SQLite and folded
  into the alerts (recorded.py says why the verified copy, not the bus);
- `table/<t>/event`: only the tile's "last event" (the bus is faster than
  the recorder); `state`, and `availability` (the recorder's verdict) with
  `presence` (the gateway's word), offline if either says so: the tile, and
  an offline alert;
- `alert/<id>` from the recorder (gap, chain broken, journal differs, a bad
  message): an alert for the floor supervisor;
- `ack/<role>/<user>`: a person's acknowledgement. The broker's ACL vouches
  for the role and the user in the topic: a person can publish only there;
- `progressive/<game>/meter` (the progressive controller's, only it writes
  there): a hit it holds PENDING is an alert for the shift manager, a table
  it closed for playing another paytable one for the floor supervisor;
  `progressive/check`, its self-check at start: a refusal is an alert for
  the shift manager and surveillance.

Thread-safe: paho's network thread writes, the web server's loop reads.
Every change bumps `version` and calls the listeners (the pushes to pages).
"""

import threading
import time

from host_tools.floor.alerts import book as alerts
from host_tools.floor.base import presence, topics
from host_tools.floor.base.words import money

METER_NAMES = {"MEA": "Make 'Em All Progressive", "FUP": "Fired Up Progressive"}
# What the page shows of a meter: a message changing none of these (the heartbeat) changes nothing.
_SHOWN = ("amount", "reserve", "overflow", "state", "pending", "tables", "closed_tables", "hits_seen", "paytable")

# The recorder's alert kinds (host_tools/floor/recorder/service.py) as the book's findings.
RECORDER_KINDS = {
    "gap": "gap",
    "chain broken": "chain_broken",
    "journal differs from the floor's copy": "journal_differs",
    "bad message": "bad_record",
    "record not written by the board": "forged_record",
    "board erased": "board_erased",
    "board-erased step refused": "erased_refused",
}


class FloorView:
    def __init__(self, floor_name, tables, escalate_after=alerts.DEFAULT_ESCALATE_AFTER, **parts):
        """`parts`: clock (a callable), copy (RecordedCopy), log (PeopleLog), keys_dir (the floor's directory)."""
        clock, copy, log, keys_dir = (parts.get(k) for k in ("clock", "copy", "log", "keys_dir"))
        self.floor = floor_name
        self.clock = clock or time.time
        self.book = alerts.AlertBook(escalate_after)
        self.copy = copy  # recorded.RecordedCopy: the recorder's events
        self.log = log  # recorded.PeopleLog: acknowledgements and refusals kept
        self.tiles = {t: _tile(t) for t in tables}
        self.cursors = {}  # (table, board, journal) -> the last seq folded
        self.behind = {}  # table -> its last `recorded`, while the copy has not given all it says (tick reads again)
        self.version = 0
        self.lock = threading.RLock()
        self.listeners = []  # callables (version, [changed alert dicts]) run after each change
        self.published = []  # alert dicts to publish (retained) on alert/<id>; bus.py drains it
        self.keys_dir = keys_dir  # the floor's directory (DIR/keys/<table>.key): HOLD clearances are signed
        self.downlinks = []  # (table, payload) of cleared HOLDs to publish on table/<t>/downlink
        self.saved_acks = {}  # alert id -> [ack entries] from the log, applied when the alert is raised again
        self.meters = {}  # game -> the controller's meter view (progressive/<game>/meter)
        self.prog_presence = None  # the controller's presence: online, offline, refused, or None
        self.unlock_listeners = []  # callables (user) run when a shift manager lifts an account's lock
        for entry in log.entries() if log else []:
            if entry["action"] == "acknowledged":
                self.saved_acks.setdefault(entry["alert"], []).append(entry)
            else:
                self.book.audit.append(entry)

    # ---- the bus ---------------------------------------------------------------------

    def message(self, topic, payload):
        """One message from the broker; ignored (never raised) when it is not the floor's."""
        now = self.clock()
        with self.lock:
            changed = self._message(topic, payload, now)
            if changed is None:
                return
            self._changed(changed)

    def _message(self, topic, payload, now):
        parsed = topics.parse_table_topic(self.floor, topic)
        if parsed:
            return self._table_message(parsed[0], parsed[1], payload, now)
        root = topics.floor_root(self.floor)
        if topic.startswith(root + "/ack/"):
            return self._ack(topic[len(root + "/ack/") :].split("/"), payload, now)
        if topic.startswith(root + "/alert/"):
            return self._recorder_alert(payload, now)
        if topic.startswith(root + "/progressive/") and topic.endswith("/meter"):
            return self._progressive(payload, now)
        if topic == root + "/progressive/check":
            return self._progressive_check(payload, now)
        if topic == root + "/progressive/presence":
            word = payload.decode("utf-8", "replace").strip() if isinstance(payload, bytes) else str(payload)
            changed, self.prog_presence = word != self.prog_presence, word
            return [] if changed and self.meters else None
        return None

    def _progressive_check(self, payload, now):
        """The controller's self-check at start (only it writes the topic): a refusal is
        an alert for the shift manager and surveillance, the technician told."""
        try:
            check = topics.decode(payload)
        except ValueError:
            return None
        if check.get("ok") is not False:
            return None
        detail = "the progressive controller checked itself at start and refused to open: %s" % check.get("reason")
        raised = self.book.progressive("check", 0, "floor", now, detail, "progressive_refused", "prog-check")
        for alert in raised:
            self._restore_acks(alert)
        return raised or None

    def _progressive(self, payload, now):
        """The controller's meter (only its account writes the topic): a hit it holds
        PENDING is an alert for the shift manager, with the controller's id."""
        try:
            meter = topics.decode(payload)
        except ValueError:
            return None
        game, last = meter.get("game"), meter.get("last_hit") or {}
        if game not in METER_NAMES or not isinstance(meter.get("amount"), int):
            return None
        before = self.meters.get(game)
        self.meters[game] = meter
        shown_changed = before is None or any(before.get(k) != meter.get(k) for k in _SHOWN)
        voided = meter.get("voided") or []
        raised = []
        for n in meter.get("pending") or []:
            if not isinstance(n, int):
                continue
            table, detail = "floor", "%s hit %d: PENDING until a shift manager acknowledges" % (game, n)
            if last.get("n") == n:
                table = str(last.get("table"))
                detail = _hit_detail(game, n, table, last)
            kind = "progressive_pending"
            if n in voided:
                kind, detail = "progressive_voided", _void_detail(game, n, table, last if last.get("n") == n else {})
            raised += self.book.progressive(game, n, table, now, detail, kind)
        for hit in meter.get("voids_not_reversed") or []:
            n = hit.get("n") if isinstance(hit, dict) else None
            if isinstance(n, int):
                table, ident = str(hit.get("table")), "prog-%s-%d-void" % (game, n)
                detail = _kept_detail(game, n, table, hit)
                raised += self.book.progressive(game, n, table, now, detail, "progressive_void_kept", ident)
        closed = meter.get("closed_tables") if isinstance(meter.get("closed_tables"), dict) else {}
        for table, why in sorted(closed.items()):
            detail = "%s progressive closed at %s: it %s; closed until its board is set right" % (game, table, why)
            ident = "prog-%s-table-%s" % (game, table)
            raised += self.book.progressive(game, 0, str(table), now, detail, "progressive_wrong_paytable", ident)
        for alert in raised:
            self._restore_acks(alert)
        if raised or shown_changed:
            return raised
        return None  # the controller's heartbeat (every 2 s) changes nothing on the page

    def _table_message(self, table, leaf, payload, now):
        tile = self.tiles.setdefault(table, _tile(table))
        if leaf in ("presence", "availability"):
            # the recorder's verdict (availability: heartbeats, within 1.5x the keepalive)
            # and the gateway's own word and last will: offline if either says so
            tile[leaf] = topics.ONLINE if payload.strip() == topics.ONLINE.encode() else topics.OFFLINE
            online = presence.shown(tile["availability"], tile["presence"])[0] == topics.ONLINE
            tile["online"] = online
            return self.book.presence(table, online, now)
        try:
            obj = topics.decode(payload)
        except ValueError:
            return None
        if leaf == "state":
            tile["state"] = obj
            return self._board_answers(obj)
        if leaf == "event" and isinstance(obj.get("record"), dict):
            tile["last_event_at"] = now
            tile["seq"] = obj["record"].get("seq")
            return []
        if leaf == "recorded":
            return self._fold_recorded(table, obj)
        return None

    def _board_answers(self, state):
        """The board's answers to cleared HOLDs (the gateway's `downlinks`), onto their alerts."""
        changed = []
        for outcome in state.get("downlinks") or []:
            alert = self.book.alerts.get(str(outcome.get("alert"))) if isinstance(outcome, dict) else None
            # The board took it: a later refusal (the same request again) does not undo that.
            taken = alert is not None and alert.board is not None and alert.board.get("ok")
            if alert is not None and alert.hold and alert.board != outcome and not taken:
                alert.board = outcome
                changed.append(alert)
        return changed

    def _fold_recorded(self, table, obj):
        journal = obj.get("journal")
        if self.copy is None or not isinstance(journal, dict) or not isinstance(obj.get("seq"), int):
            return None
        board, jid = journal.get("board"), journal.get("id")
        # After a board-erased step the board's journals start again: the step's number
        # keeps its new journal 1 apart from the old one (a fresh fold, its own cursor).
        erased = obj.get("erased") if isinstance(obj.get("erased"), int) else None
        folded = (board, jid) if erased is None else (board, jid, erased)
        key = (table,) + folded
        raised = []
        tile = self.tiles.setdefault(table, _tile(table))
        for record, received in self.copy.records(table, board, jid, self.cursors.get(key, 0), obj["seq"]):
            self.cursors[key] = record["seq"]
            if tile["last_event_at"] is None or received > tile["last_event_at"]:
                tile["last_event_at"], tile["seq"] = received, record["seq"]
            for alert in self.book.event(table, record, received, journal=folded):
                raised.append(alert)
                self._restore_acks(alert)
        # A read that failed or came back short (the file not made yet, SQLite or the server
        # refusing it) is not the end: no later `recorded` may come once the hand is over.
        if self.cursors.get(key, 0) < obj["seq"]:
            self.behind[table] = obj
        else:
            self.behind.pop(table, None)
        return raised

    def _restore_acks(self, alert):
        for entry in self.saved_acks.pop(alert.id, []):
            alert.acks.append({k: entry[k] for k in ("user", "role", "for_role", "at", "note")})
            self.book.audit.append(dict(entry, table=alert.table, kind=alert.kind))

    def _recorder_alert(self, payload, now):
        try:
            obj = topics.decode(payload)
        except ValueError:
            return None
        kind = RECORDER_KINDS.get(obj.get("kind"))
        if kind is None or "alert" in obj:  # not the recorder's (the page's own alerts carry "alert")
            return None
        table = obj.get("table") or "floor"
        raised = self.book.finding(table, kind, obj.get("at", now), detail=str(obj.get("text", "")), ref=obj.get("id"))
        for alert in raised:  # retained: a restarted page hears it again, with the same id
            self._restore_acks(alert)
        return raised

    def _ack(self, parts, payload, now):
        if len(parts) != 2:
            return None
        role, user = parts
        try:
            obj = topics.decode(payload)
        except ValueError:
            return None
        try:
            alert = self.book.acknowledge(str(obj.get("alert")), user, role, now, str(obj.get("note", ""))[:500])
        except alerts.Refused:
            self._keep(self.book.audit[-1])
            return []
        self._keep(self.book.audit[-1])
        if alert.kind == "login_locked" and not alert.open:
            for listener in list(self.unlock_listeners):
                listener(alert.detail.split(":", 1)[0])
        if alert.hold and not alert.open and self.keys_dir:
            from host_tools.floor.page import downlink

            state = self.tiles.get(alert.table, {}).get("state") or {}
            signed = downlink.for_cleared_hold(self.keys_dir, alert, state.get("ctr"))
            if signed:
                self.downlinks.append(signed)
        return [alert]

    def _keep(self, entry):
        if self.log is not None:
            self.log.add(entry)

    def tick(self):
        """Escalations due now, and the records a table's last `recorded` said that the copy
        had not given yet."""
        with self.lock:
            changed, moved = [], False
            for table, obj in sorted(self.behind.items()):
                before = dict(self.cursors)
                changed += self._fold_recorded(table, obj)
                moved = moved or self.cursors != before
            changed += self.book.tick(self.clock())
            if changed or moved:  # records folded without an alert still move the table's tile
                self._changed(changed)

    def _changed(self, changed_alerts):
        self.version += 1
        dicts = [a.as_dict() for a in changed_alerts]
        self.published.extend(dicts)
        for listener in list(self.listeners):
            listener(self.version, dicts)

    # ---- the page ----------------------------------------------------------------------

    def refuse_early(self, alert_id, user, role, note):
        """The refusal the book would give `user`'s acknowledgement, recorded now; None when it would be taken."""
        with self.lock:
            alert = self.book.alerts.get(alert_id)
            if alert is not None and alert.may_acknowledge(role) is not None:
                return None
            try:
                self.book.acknowledge(alert_id, user, role, self.clock(), note)
            except alerts.Refused as e:
                self._keep(self.book.audit[-1])
                self._changed([])
                return str(e)
            return None

    def login_failed(self, user, address, reason):
        """A failed or refused login: into the audit trail, kept."""
        with self.lock:
            self._keep(self.book.login_failed(user, address, self.clock(), reason))
            self._changed([])

    def login_locked(self, user, failures, since):
        """An account locked (at `since`): the alert surveillance sees and a shift manager lifts."""
        with self.lock:
            raised = self.book.login_locked(user, failures, since, self.clock())
            for alert in raised:
                self._restore_acks(alert)
            self._changed(raised)
            return raised

    def snapshot(self):
        """(tiles, open alerts, all alerts, audit) as plain data, taken under the lock."""
        with self.lock:
            tiles = [dict(self.tiles[t]) for t in sorted(self.tiles)]
            every = [a.as_dict() for a in self.book.alerts.values()]
            return tiles, [a for a in every if a["open"]], every, list(self.book.audit)

    def progressive(self):
        """Each meter as the page shows it: [{game, name, state, amount, reserve, overflow,
        pay_rule, tables, closed_tables, per_wager (1, 2, 3 winning wagers, cut), break_even,
        break_even_seen, winners_per_hit, past_break_even}], `closed` while the controller
        is not online."""
        from host_tools.floor.progressive import rtp

        out = []
        with self.lock:
            meters = [dict(self.meters[g]) for g in sorted(self.meters)]
            online = self.prog_presence == topics.ONLINE
        for m in meters:
            row = {k: m.get(k) for k in ("game", "amount", "reserve", "overflow", "pay_rule", "pending")}
            row["name"] = METER_NAMES[m["game"]]
            row["state"] = m.get("state") if online else "closed"
            row["why"] = None if online else "the controller is %s" % (self.prog_presence or "not heard yet")
            row["tables"] = m.get("tables") if isinstance(m.get("tables"), dict) else {}
            row["closed_tables"] = m.get("closed_tables") if isinstance(m.get("closed_tables"), dict) else {}
            try:
                after = min(m["cap"], m["reset"] + (m.get("overflow") or 0))
                fig = rtp.figures(
                    m["game"],
                    m["paytable"],
                    m["amount"],
                    m["base_unit"],
                    m.get("pay_rule") or "shared",
                    after,
                    m.get("hits_seen") or 0,
                    m.get("winning_wagers_seen") or 0,
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                fig = None
            if fig is not None:
                row["per_wager"] = ["%.2f%%" % rtp.truncated_pct(fig["per_wager"][w], 2) for w in (1, 2, 3)]
                row.update({k: fig[k] for k in ("break_even", "break_even_seen", "past_break_even")})
                row["winners_per_hit"] = float(fig["winners_per_hit"])
            out.append(row)
        return out

    def table_records(self, table):
        """[(record, received)]: the table's history as the recorder holds it."""
        return self.copy.table_records(table) if self.copy is not None else []


def _hit_detail(game, n, table, hit):
    """One line for the pit: who won what, in currency (the meter's view: integer cents)."""
    pays, meter = hit.get("pays"), hit.get("meter_at_hit")
    if not isinstance(pays, list) or not all(isinstance(p, int) for p in pays) or not isinstance(meter, int):
        return "%s hit %d at %s: PENDING until a shift manager acknowledges" % (game, n, table)
    paid = ", ".join(money(p) for p in pays)
    wagers = "1 winning wager" if len(pays) == 1 else "%d winning wagers" % len(pays)
    return "%s hit %d at %s: %s paid %s from a meter of %s" % (game, n, table, wagers, paid, money(meter))


def _void_detail(game, n, table, hit):
    meter = hit.get("meter_at_hit")
    back = "to its amount at the hit, %s" % money(meter) if isinstance(meter, int) else "to its amount at the hit"
    return (
        "%s hit %d at %s VOIDED at the table: a supervisor's undo reversed its roll, nothing is owed on it "
        "and the meter is back %s. PENDING until a shift manager acknowledges" % (game, n, table, back)
    )


def _kept_detail(game, n, table, hit):
    pays = hit.get("pays") if isinstance(hit.get("pays"), list) else []
    paid = money(sum(p for p in pays if isinstance(p, int)))
    why = "it was acknowledged (paid) by %s" % hit["acked_by"] if hit.get("acked_by") else "later hits rest on it"
    return (
        "%s hit %d at %s was voided at the table after %s: no money moved; its %s stays paid "
        "and the meter stands. Check the pay-out against the undone roll" % (game, n, table, why, paid)
    )


def _tile(table):
    return {
        "table": table,
        "online": None,
        "availability": None,
        "presence": None,
        "state": None,
        "last_event_at": None,
        "seq": None,
    }
