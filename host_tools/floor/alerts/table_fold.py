"""One table's journal records folded through the firmware's own engine, on the host.

The floor sees a board only through its journal records (as the link's
`events` and `subscribe` give them, and the gateway carries them). To know
which Fire Bet point a roll made, the rolls are played into a real
`crapsboard.engine.Table` under CPython: the rules live once, in the firmware.
Records that carry the table's state (undo, configuration, journal start,
snapshot) put that state into the table, so an undo or a fold that starts
mid-journal lands exactly where the board is.

`step(record)` returns what the record means for the people of the floor:
the Fire Bet points the roll made (4, 5 or 6), a progressive top award, a
restart, a gap in the sequence. What is a HOLD (the 6th point, a top award)
is the firmware's own rule (crapsboard/rules/hold.py), the one the board
checks a `verified` clearance against: the floor and the board agree. It never raises on a record it cannot use:
a bad record becomes a finding, since the floor must hear about it.
"""

# host_tools (its __init__) has put firmware/lib on the path.
from crapsboard.journal import snapshot_read
from crapsboard.rules import engine, hold
from crapsboard.rules import paytables as pt

# The points whose making the floor is told of (docs/rules.md, "The floor").
ALERT_POINTS = (4, 5, 6)
STATE_KINDS = ("undo", "config", "journal_start", "snapshot")


class Step:
    """What one record meant: `points` the Fire Bet points this shooter has
    made now (when a roll made a new one, else 0), `top_awards` the wagers a
    roll paid the progressive meter, `restart` the reset cause, `gap` the
    missing (first, last) seq, `bad` a one-line reason the record was unusable."""

    def __init__(self, record):
        self.seq = record.get("seq")
        self.shooter = 0
        self.points = 0
        self.top_awards = []
        self.restart = None
        self.gap = None
        self.bad = None


class TableFold:
    """The engine's table as the board's journal says it is."""

    def __init__(self):
        self.table = engine.Table()
        self.last_seq = 0
        self.in_step = False  # the table mirrors the board (a state record seen, or the journal's start)

    def step(self, record):
        out = Step(record)
        seq = record.get("seq")
        kind = record.get("kind")
        if not isinstance(seq, int) or seq < 1:
            out.bad = "record without a sequence number"
            return out
        if seq <= self.last_seq:
            return out  # a duplicate: the floor carries events at least once
        if self.last_seq and seq != self.last_seq + 1 and kind != "journal_start":
            out.gap = (self.last_seq + 1, seq - 1)
            self.in_step = False  # the missing records may have moved the table
        if seq == 1 and self.last_seq == 0:
            self.in_step = True  # the first record of a journal: a fresh table
        self.last_seq = seq
        try:
            self._apply(record, kind, out)
        except (ValueError, TypeError, KeyError, IndexError) as e:
            out.bad = "record %d (%s) cannot be played: %s" % (seq, kind, e)
            self.in_step = False
        return out

    def _apply(self, record, kind, out):
        if kind in STATE_KINDS and record.get("state"):
            snapshot_read.loads(bytes.fromhex(record["state"]), self.table)
            self.in_step = True
            return
        if kind == "restart":
            out.restart = record.get("arg")
            return
        if not self.in_step:
            return  # nothing to fold onto until the next state record
        if kind == "roll":
            points = self.table.fire_points
            d1, d2 = record["dice"]
            self.table.roll(int(d1), int(d2))
            before, after = engine.popcount(points), engine.popcount(self.table.fire_points)
            out.shooter = self.table.shooter
            if after > before and after in ALERT_POINTS:
                out.points = after
            held = hold.raised(self.table, points)
            out.top_awards = [pt.WAGER_NAMES[w] for w in range(pt.WAGER_COUNT) if w != pt.FIRE and held & (1 << w)]
        elif kind == "end_hand":
            self.table.end_hand()
