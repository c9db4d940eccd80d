"""`python -m host_tools monitor`: the board's live events, as a technician reads them.

The board pushes each journal record as it is appended (docs/link.md,
`subscribe`): a roll's dice, an undo, a hand end, a configuration change —
not what they resolved. So that people see what the terminal simulator's
event pane shows (the roll, the point, the seven-out, what won, lost, pushed
or was returned), the monitor keeps its own copy of the table: it reads the
journal (`events`, verified as `log` verifies it) up to now, restores the
table from its last state-bearing record and the rolls and hand ends after it,
as the board does at power-up (crapsboard/journal/journal_restore.py), then applies
each pushed record with the firmware's own engine and words it with
sim/tui/text.py. It says once that it is listening, to which board, and
where the table stands. `--json` prints the pushed records as they come, for
machines.
"""

import json
import time

from host_tools import EXIT_INTERRUPTED, HostToolError
from host_tools.commands import add_port_options, connect, monitor

KINDS = {
    "roll": 1,
    "undo": 2,
    "end_hand": 3,
    "error": 5,
    "supervisor_on": 6,
    "config": 16,
    "restart": 17,
    "journal_start": 18,
    "snapshot": 19,
    "drop": 20,
    "time": 21,
    "verified": 22,
    "prog_wager": 23,
    "prog_hit": 24,
}
HAND_ENDS = 0  # a hand end among the replayed codes (a roll is d1 * 8 + d2, never 0)


class TableCopy:
    """The board's table, kept on the host from its journal and pushed records."""

    def __init__(self, records):
        """`records`: the journal's Records (host_tools.sync.download), oldest first."""
        from crapsboard.rules import engine

        self.table = engine.Table()
        self.applied = []  # seqs of the rolls and hand ends an undo may take back
        state, codes = None, []
        for r in records:
            if r.state:
                state, codes, self.applied = r.state, [], []
            elif r.kind == KINDS["roll"]:
                codes.append(r.arg)
                self.applied.append(r.seq)
            elif r.kind == KINDS["end_hand"]:
                codes.append(HAND_ENDS)
                self.applied.append(r.seq)
        if state is None:
            raise ValueError("no table state in the journal")
        self._load(state)
        for code in codes:
            if code:
                self.table.roll(code >> 3, code & 7)
            else:
                self.table.end_hand()
        self.applied = self.applied[-16:]

    def _load(self, state):
        from crapsboard.journal import snapshot_read

        snapshot_read.loads(state, self.table)

    def where(self):
        t = self.table
        return "shooter %d, point %s, roll %d" % (t.shooter, t.point or "OFF", t.rolls)

    def lines(self, event):
        """What one pushed record means, in the event pane's words."""
        from crapsboard.table import entry as en
        from crapsboard.table import events
        from host_tools.status import reset_cause_text
        from sim.tui import text

        kind, seq, t, arg = event.get("event"), event.get("seq", 0), event.get("t", 0), event.get("arg", 0)
        state = bytes.fromhex(event["state"]) if isinstance(event.get("state"), str) else b""
        table = self.table
        if kind == "roll":
            d1, d2 = event["dice"]
            table.roll(d1, d2)
            self.applied.append(seq)
            return text.event_text(events.event_record(table, seq, en.ACT_ROLL, d1 * 8 + d2, t))
        if kind == "end_hand":
            table.end_hand()
            self.applied.append(seq)
            return text.event_text(events.event_record(table, seq, en.ACT_END_HAND, arg, t))
        if kind == "undo":
            undone = self.applied.pop() if self.applied else 0
            if undone and table.undo():
                return text.event_text(events.event_record(table, seq, en.ACT_UNDO, arg, t, undone))
            self._load(state)  # beyond what this copy can take back: the board's state
            return ["%s #%d undo · %s" % (text.clock(t), seq, self.where())]
        head = "%s #%d " % (text.clock(t), seq)
        if kind == "error":
            return text.event_text(events.event_record(table, seq, en.ACT_ERROR, arg, t))
        if kind == "supervisor_on":
            return text.event_text(events.event_record(table, seq, en.ACT_AUTH_ON, arg, t))
        if kind == "restart":
            self.applied = []  # undo never reaches back across a restart
            return [head + "board restarted: %s · %s" % (reset_cause_text(arg), self.where())]
        if state:
            self._load(state)
            self.applied = []
            what = {"config": "configuration changed", "journal_start": "new journal started"}.get(kind, kind)
            return [head + "%s · %s" % (what, self.where())]
        payload = event.get("payload")
        if kind == "verified":  # docs/link.md: payload {"alert", "by", "seq"} as JSON, hex on the link
            try:
                cleared = json.loads(bytes.fromhex(payload))
            except (TypeError, ValueError):
                cleared = {}
            return [
                head + "HOLD of record %s cleared by %s: verified — pay" % (cleared.get("seq", arg), cleared.get("by"))
            ]
        if kind in ("prog_wager", "prog_hit"):  # docs/progressive.md: payload {"game"[, "roll"]}
            try:
                game = json.loads(bytes.fromhex(payload)).get("game")
            except (TypeError, ValueError, AttributeError):
                game = None
            if kind == "prog_wager":
                return [head + "%s progressive wagers keyed: %d" % (game, arg)]
            return [head + "%s progressive top award: %d winning wagers, claimed from the floor's meter" % (game, arg)]
        return [head + str(kind).replace("_", " ") + ("" if payload is None else " " + json.dumps(payload))]


def read_table(link):
    """A TableCopy of the board's table now, from its whole journal (verified)."""
    from host_tools import sync

    records = []
    sync.download(link, 0, on_page=records.extend)
    return TableCopy(records)


def _arguments(parser):
    add_port_options(parser)
    parser.add_argument("--count", type=int, help="stop after this many events")
    parser.add_argument("--seconds", type=float, help="stop after this many seconds")


def _run(args):
    with connect(args) as link:
        if args.json:

            def show(event):
                print(json.dumps(event, sort_keys=True), flush=True)
        else:
            show = _for_people(link, args.port)
        try:
            monitor(link, show, args.count, args.seconds)
        except KeyboardInterrupt:
            raise HostToolError("stopped", EXIT_INTERRUPTED)


def _for_people(link, port):
    """Say who is listened to and where the table stands; the printer of events."""
    hello = link.hello()
    journal = hello.get("journal") if isinstance(hello.get("journal"), dict) else {}
    try:
        copy = read_table(link)
        where = "table: " + copy.where()
    except (HostToolError, ValueError) as e:  # no journal, a damaged one, or a board without `events`
        copy = None
        where = "events shown as recorded (cannot follow the table: %s)" % str(e).splitlines()[0]
    print(
        "listening to board %s on %s (journal %s, record %s); %s. Ctrl-C to stop."
        % (hello.get("board"), port, journal.get("id"), journal.get("seq"), where),
        flush=True,
    )

    def show(event):
        stamp = time.strftime("%H:%M:%S")
        if copy is not None:
            lines = copy.lines(event)
        else:
            fields = " ".join("%s=%s" % (k, json.dumps(v)) for k, v in sorted(event.items()) if k != "event")
            lines = ["%s %s" % (event.get("event"), fields)]
        for line in lines:
            print(stamp + " " + line, flush=True)

    return show


COMMANDS = {"monitor": (_arguments, _run, "live events from the board, as the simulator's event pane shows them")}
