"""The floor's alerts: seed 000's game protection as alerts that stay until the right person acknowledges.

A pure fold, time passed in (seconds, as the caller's clock gives them): no
I/O, no broker, no clock. The page service feeds it what the floor bus
carries (each table's journal records, its presence, the recorder's findings)
and the people's acknowledgements; it answers with the alerts and an audit
trail. docs/rules.md, "The floor: alerts", is the table this implements:

| trigger                                  | roles that acknowledge             |
| the shooter's 4th Fire Bet point         | floor supervisor and surveillance  |
| the 5th point                            | shift manager                      |
| the 6th point, a progressive top award   | surveillance: HOLD                 |
| offline, gap, chain broken, restart, ... | floor supervisor (technician told) |
| a record the table's board did not write | floor supervisor and surveillance       |
| a board erased (the technician's step)   | floor supervisor (technician told)       |
| a board-erased step refused              | floor supervisor and surveillance       |

An alert not fully acknowledged `escalate_after` seconds after it was raised
(or last escalated) escalates: the shift manager is told, and may then
acknowledge for the role that has not (never for surveillance's HOLD: the
payoff check is surveillance's alone). A role acknowledging what is not its
own is refused, and the refusal is in the audit trail like every
acknowledgement.
"""

from host_tools.floor.alerts.table_fold import TableFold
from host_tools.floor.base.words import reset_cause

FLOOR_SUPERVISOR = "supervisor"  # the floor's account role name (floordir.ROLES)
SURVEILLANCE = "surveillance"
SHIFT_MANAGER = "shift_manager"
TECHNICIAN = "technician"  # reads the floor, acknowledges nothing
ROLES = (FLOOR_SUPERVISOR, SURVEILLANCE, SHIFT_MANAGER, TECHNICIAN)
ROLE_TITLES = {
    FLOOR_SUPERVISOR: "floor supervisor",
    SURVEILLANCE: "surveillance",
    SHIFT_MANAGER: "shift manager",
    TECHNICIAN: "technician",
}

PAGE = "page"  # the `table` of the page's own alerts (an account locked)
DEFAULT_ESCALATE_AFTER = 120.0  # seconds; `floor page --escalate-after`

# kind: (title, roles that must acknowledge, roles told, a HOLD)
KINDS = {
    "fire_4": ("4th Fire Bet point", (FLOOR_SUPERVISOR, SURVEILLANCE), (), False),
    "fire_5": ("5th Fire Bet point", (SHIFT_MANAGER,), (), False),
    "fire_6": ("HOLD: 6th Fire Bet point", (SURVEILLANCE,), (), True),
    "top_award": ("HOLD: progressive top award", (SURVEILLANCE,), (), True),
    "offline": ("table offline", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "gap": ("journal gap", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "chain_broken": ("hash chain broken", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "journal_differs": ("journal differs from the floor's copy", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "restart": ("board restored after a restart or power cut", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "bad_record": ("record the floor cannot read", (FLOOR_SUPERVISOR,), (TECHNICIAN,), False),
    "forged_record": (
        "record the table's board did not write: stored nowhere, paid nothing",
        (FLOOR_SUPERVISOR, SURVEILLANCE),
        (TECHNICIAN,),
        False,
    ),
    "board_erased": (
        "board erased: a new journal, the old one's records archived",
        (FLOOR_SUPERVISOR,),
        (TECHNICIAN,),
        False,
    ),
    "erased_refused": (
        "board-erased step refused: nothing archived",
        (FLOOR_SUPERVISOR, SURVEILLANCE),
        (TECHNICIAN,),
        False,
    ),
    "progressive_pending": ("progressive PENDING", (SHIFT_MANAGER,), (), False),
    "login_locked": ("account locked after failed logins", (SHIFT_MANAGER,), (SURVEILLANCE,), False),
    "progressive_voided": ("progressive hit VOIDED at the table: reversed, PENDING", (SHIFT_MANAGER,), (), False),
    "progressive_wrong_paytable": (
        "progressive closed at this table: it plays another paytable than the meter's",
        (FLOOR_SUPERVISOR,),
        (TECHNICIAN,),
        False,
    ),
    "progressive_refused": (
        "progressive controller REFUSED to open: every table's progressive closed",
        (SHIFT_MANAGER, SURVEILLANCE),
        (TECHNICIAN,),
        False,
    ),
    "progressive_void_kept": (
        "progressive hit voided at the table but NOT reversed: check the pay-out",
        (SHIFT_MANAGER, SURVEILLANCE),
        (),
        False,
    ),
}
FINDINGS = ("gap", "chain_broken", "journal_differs", "bad_record", "forged_record", "board_erased", "erased_refused")
# What one event (the floor or a pit restarted, a power cut) raises at every
# table at once: these may be acknowledged together, each still recorded on
# its own. A finding that may be tampering (a gap, a chain broken, a journal
# that differs) is never acknowledged in bulk: each is looked at.
BULK_KINDS = ("offline", "restart")
RELATED_S = 120.0  # an alert raised within this of the one before it belongs to the same event


class Refused(Exception):
    """An acknowledgement the alert's rules do not allow; the message is one line."""


class Alert:
    def __init__(self, ident, table, kind, raised_at, seq=None, detail=""):
        title, required, told, hold = KINDS[kind]
        self.id = ident
        self.table = table
        self.kind = kind
        self.title = title
        self.required = required
        self.told = told
        self.hold = hold
        self.raised_at = raised_at
        self.seq = seq
        self.detail = detail
        self.journal = None  # (board, journal id) of the record that raised it, when a record did
        self.acks = []  # {"user", "role", "for_role", "at", "note"}
        self.escalations = 0
        self.escalated_at = None
        self.board = None  # a cleared HOLD: the board's answer to its `verified` (the gateway's state `downlinks`)

    def acknowledged_roles(self):
        return {a["for_role"] for a in self.acks}

    def missing(self):
        """The roles whose acknowledgement the alert still waits for."""
        done = self.acknowledged_roles()
        return [r for r in self.required if r not in done]

    @property
    def open(self):
        return bool(self.missing())

    def may_acknowledge(self, role):
        """The missing role `role` acknowledges for, or None when it may not."""
        missing = self.missing()
        if role in missing:
            return role
        if self.escalations and role == SHIFT_MANAGER and not self.hold and missing:
            return missing[0]
        return None

    def as_dict(self):
        return {
            "id": self.id,
            "table": self.table,
            "kind": self.kind,
            "title": self.title,
            "hold": self.hold,
            "seq": self.seq,
            "detail": self.detail,
            "raised_at": self.raised_at,
            "required": list(self.required),
            "told": list(self.told) + ([SHIFT_MANAGER] if self.escalations else []),
            "missing": self.missing(),
            "open": self.open,
            "escalations": self.escalations,
            "escalated_at": self.escalated_at,
            "acks": list(self.acks),
            "board": self.board,
        }


class AlertBook:
    """Every table's alerts, in the order raised, and the audit trail."""

    def __init__(self, escalate_after=DEFAULT_ESCALATE_AFTER):
        if escalate_after <= 0:
            raise ValueError("escalate_after must be positive")
        self.escalate_after = escalate_after
        self.alerts = {}
        self.audit = []  # {"at", "action": raised|acknowledged|refused|escalated, "alert", ...}
        self._folds = {}
        self._keys = set()  # what raised an alert already: one alert per shooter and point
        self._online = {}

    # ---- what the floor bus carries ------------------------------------------------

    def event(self, table, record, now, journal=None):
        """A table's journal record (link `events` fields); the alerts it raised."""
        fold = self._folds.setdefault((table, journal), TableFold())
        step = fold.step(record)
        raised = []
        tag = _journal_tag(journal)
        if step.bad:
            key = (table, journal, "bad", step.seq)
            raised += self._raise(table, "bad_record", now, step.seq, step.bad, key, tag)
        if step.gap:
            detail = "records %d to %d never reached the floor" % step.gap
            raised += self._raise(table, "gap", now, step.seq, detail, (table, journal, "gap", step.gap), tag)
        if step.restart is not None:
            detail = "the board came back after a reset: %s" % reset_cause(step.restart)
            raised += self._raise(table, "restart", now, step.seq, detail, (table, journal, "restart", step.seq), tag)
        if step.points:
            kind = "fire_%d" % step.points
            detail = "shooter %d made the %s point" % (step.shooter, _ordinal(step.points))
            raised += self._raise(table, kind, now, step.seq, detail, (table, journal, step.shooter, kind), tag)
        for wager in step.top_awards:
            detail = wager + " pays the meter"
            raised += self._raise(table, "top_award", now, step.seq, detail, (table, journal, "top", step.seq), tag)
        for alert in raised:
            alert.journal = journal
        return raised

    def presence(self, table, online, now):
        """The table's retained presence; an alert when it goes offline."""
        was = self._online.get(table)
        self._online[table] = online
        if online or was is False:
            return []
        return self._raise(table, "offline", now, None, "the table's gateway went offline", key=None)

    def finding(self, table, kind, now, seq=None, detail="", ref=None):
        """What the recorder found in a table's records (FINDINGS); `ref` the
        recorder's own id for it, so the same finding heard twice is one alert."""
        if kind not in FINDINGS:
            raise ValueError("unknown finding " + repr(kind))
        tag = None if ref is None else "r%s" % ref
        return self._raise(table, kind, now, seq, detail, (table, "finding", kind, seq, ref), tag)

    def progressive(self, game, n, table, now, detail="", kind="progressive_pending", ident=None):
        """A hit the progressive controller holds PENDING (its meter's `pending`): the
        alert's id is the controller's own, prog-<game>-<n>, so the shift manager's
        acknowledgement of it reaches the controller too (docs/progressive.md). The
        same id of another kind replaces it (a hit voided at its table while PENDING),
        keeping its acknowledgements; `ident` names an alert of the page's own (a void
        the controller could not reverse)."""
        ident = ident or "prog-%s-%d" % (game, n)
        old = self.alerts.get(ident)
        if old is not None and old.kind == kind:
            return []
        alert = Alert(ident, table, kind, now, None, detail)
        self.alerts[ident] = alert
        if old is not None:
            alert.acks = old.acks
        self._log(now, "raised" if old is None else "replaced", alert, detail=detail)
        return [alert]

    def login_locked(self, user, failures, since, now):
        """`user`'s account locked by the page at `since` after `failures` failed logins
        in a row: the alert whose acknowledgement by a shift manager lifts the lock
        (one per lock: its id names the account and when it was locked)."""
        detail = "%s: %d failed logins in a row; acknowledging unlocks the account" % (user, failures)
        key = ("login", user, since)
        return self._raise(PAGE, "login_locked", now, None, detail, key, tag="login-%s-%d" % (user, since))

    def login_failed(self, user, address, now, reason):
        """A failed or refused login, into the audit trail."""
        entry = {"at": now, "action": "login_failed", "alert": None, "user": user, "role": None}
        entry.update(note="from %s" % address, reason=reason)
        self.audit.append(entry)
        return entry

    # ---- people --------------------------------------------------------------------

    def acknowledge(self, alert_id, user, role, now, note=""):
        """`user` (of `role`) acknowledges; the alert, or Refused (logged)."""
        alert = self.alerts.get(alert_id)
        if alert is None:
            reason = "no alert %s" % alert_id
        else:
            for_role = alert.may_acknowledge(role)
            if for_role is not None:
                ack = {"user": user, "role": role, "for_role": for_role, "at": now, "note": note}
                alert.acks.append(ack)
                self._log(now, "acknowledged", alert, user=user, role=role, for_role=for_role, note=note)
                return alert
            if not alert.open:
                reason = "alert %s is already acknowledged" % alert_id
            elif role in alert.acknowledged_roles():
                reason = "alert %s: the %s has acknowledged it already" % (alert_id, ROLE_TITLES.get(role, role))
            else:
                reason = "alert %s (%s) is for the %s, not the %s" % (
                    alert_id,
                    alert.title,
                    " and the ".join(ROLE_TITLES[r] for r in alert.missing()),
                    ROLE_TITLES.get(role, role),
                )
        refusal = {"at": now, "action": "refused", "alert": alert_id, "user": user, "role": role}
        refusal.update(note=note, reason=reason)
        self.audit.append(refusal)
        raise Refused(reason)

    # ---- time ----------------------------------------------------------------------

    def tick(self, now):
        """Escalate what waited too long; the alerts escalated now."""
        escalated = []
        for alert in self.alerts.values():
            since = alert.escalated_at if alert.escalated_at is not None else alert.raised_at
            if alert.open and now - since >= self.escalate_after:
                alert.escalations += 1
                alert.escalated_at = now
                self._log(now, "escalated", alert, missing=alert.missing(), to=SHIFT_MANAGER)
                escalated.append(alert)
        return escalated

    def open_alerts(self):
        return [a for a in self.alerts.values() if a.open]

    # ---- inside ----------------------------------------------------------------------

    def _raise(self, table, kind, now, seq, detail, key, tag=None):
        if key is not None:
            if key in self._keys:
                return []
            self._keys.add(key)
        # The same history gives the same ids (a restarted page finds its people's
        # acknowledgements again): table, journal, seq and kind, numbered only when
        # they repeat (a table offline twice).
        base = "-".join(str(p) for p in (table, tag, seq, kind) if p is not None)
        ident, n = base, 1
        while ident in self.alerts:
            n += 1
            ident = "%s-%d" % (base, n)
        alert = Alert(ident, table, kind, now, seq, detail)
        self.alerts[ident] = alert
        self._log(now, "raised", alert, detail=detail)
        return [alert]

    def _log(self, now, action, alert, **more):
        entry = {"at": now, "action": action, "alert": alert.id, "table": alert.table, "kind": alert.kind}
        entry.update(more)
        self.audit.append(entry)


def acts_for(alert, role):
    """The role `role` may acknowledge for on `alert` (an Alert.as_dict()), or
    None: as Alert.may_acknowledge, for what the page holds."""
    missing = alert["missing"]
    if role in missing:
        return role
    if alert["escalations"] and role == SHIFT_MANAGER and not alert["hold"] and missing:
        return missing[0]
    return None


def related(alerts, role):
    """Groups (lists, oldest first) of two or more open alerts of BULK_KINDS
    that `role` may acknowledge, each raised within RELATED_S of the one before:
    the alerts of one event, to acknowledge together."""
    mine = sorted(
        (a for a in alerts if a["open"] and a["kind"] in BULK_KINDS and acts_for(a, role)),
        key=lambda a: (a["raised_at"], a["id"]),
    )
    groups, group = [], []
    for a in mine:
        if group and a["raised_at"] - group[-1]["raised_at"] > RELATED_S:
            groups.append(group)
            group = []
        group.append(a)
    groups.append(group)
    return [g for g in groups if len(g) >= 2]


def _journal_tag(journal):
    """A journal's short name in alert ids: j<id> of (board, id), j<id>e<step> of
    (board, id, step) after a board-erased step (the new journal 1 is not the old one)."""
    if journal is None:
        return None
    if not isinstance(journal, tuple):
        return "j%s" % journal
    return "j%s" % journal[1] + ("e%s" % journal[2] if len(journal) > 2 else "")


def _ordinal(n):
    return {4: "4th", 5: "5th", 6: "6th"}.get(n, str(n))
