"""What the pit page knows of the floor: a tile per table, the alerts, what each table recorded.

Fed by the page service's own broker connection (bus.py) with the floor's
messages (topics.py): a table's events, its retained state and presence,
the recorder's alerts, and the people's acknowledgements on
`ack/<role>/<user>` (the broker's ACL vouches for the role and user in the
topic: a person can publish only under their own). Thread-safe: paho's
network thread writes, the web server's event loop reads. Every change bumps
`version` and calls the listeners, which the web server turns into a push
to each open page.
"""

import threading

from host_tools.floor import alerts, topics


class FloorView:
    def __init__(self, floor_name, tables, escalate_after=alerts.DEFAULT_ESCALATE_AFTER, clock=None):
        import time

        self.floor = floor_name
        self.clock = clock or time.time
        self.book = alerts.AlertBook(escalate_after)
        self.tiles = {t: _tile(t) for t in tables}
        self.records = {t: [] for t in tables}  # (record, at): what this page saw of each table
        self.version = 0
        self.lock = threading.RLock()
        self.listeners = []  # callables (version, [changed alert dicts]) run after each change
        self.published = []  # alert dicts to publish (retained) on alert/<id>; bus.py drains it

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
            table, leaf = parsed
            tile = self.tiles.setdefault(table, _tile(table))
            self.records.setdefault(table, [])
            if leaf == "presence":
                online = payload.strip() == topics.ONLINE.encode()
                tile["online"] = online
                return self.book.presence(table, online, now)
            try:
                obj = topics.decode(payload)
            except ValueError:
                return None
            if leaf == "state":
                tile["state"] = obj
                return []
            if leaf == "event" and isinstance(obj.get("record"), dict):
                record = obj["record"]
                journal = obj.get("journal", {}).get("id") if isinstance(obj.get("journal"), dict) else None
                tile["last_event_at"] = now
                tile["seq"] = record.get("seq")
                self.records[table].append((record, now))
                return self.book.event(table, record, now, journal)
            return None
        ack_prefix = topics.floor_root(self.floor) + "/ack/"
        if topic.startswith(ack_prefix):
            return self._ack(topic[len(ack_prefix) :].split("/"), payload, now)
        return None

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
            return []  # logged in the audit trail by the book
        return [alert]

    def tick(self):
        """Escalations due now."""
        with self.lock:
            escalated = self.book.tick(self.clock())
            if escalated:
                self._changed(escalated)

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
                self._changed([])
                return str(e)
            return None

    def snapshot(self):
        """(tiles, open alerts, all alerts, audit) as plain data, taken under the lock."""
        with self.lock:
            tiles = [dict(self.tiles[t]) for t in sorted(self.tiles)]
            every = [a.as_dict() for a in self.book.alerts.values()]
            return tiles, [a for a in every if a["open"]], every, list(self.book.audit)

    def table_records(self, table):
        with self.lock:
            return list(self.records.get(table, []))


def _tile(table):
    return {"table": table, "online": None, "state": None, "last_event_at": None, "seq": None}
