# The table's last event as the floor's HOLD sees it (docs/link.md, `verified`):
# its record in the journal (journal id, seq), the wagers whose HOLD it raised
# (crapsboard/rules/hold.py) and whether surveillance has cleared it.
#
# The app keeps it after every roll, undo and hand end it journals; the
# journal's restore rebuilds it at power-up (journal_restore: the last table
# event and the last `verified` record), so "verified — pay" survives a power
# cut. The lamps read it (lamps.Lamps.hold) and the link's `verified` checks
# a clearance against it and sets it (crapsboard/link/link_verified.py).
from crapsboard.rules import hold
from crapsboard.rules import paytable as pt


class HoldState:
    def __init__(self):
        self.journal = 0  # the journal id of the last table event's record (0: none yet)
        self.seq = 0  # its seq
        self.wagers = 0  # bit w: the event raised wager w's HOLD
        self.marks = [0] * pt.WAGER_COUNT  # the lamps each held wager won with (rules/hold.raised)
        self.verified = False  # surveillance cleared it: "verified — pay" is lit

    def rolled(self, table, points_before, journal_id, seq):
        """A roll journalled as record `seq`: its HOLD, if it raised one."""
        self.moved(journal_id, seq)
        self.wagers = hold.raised(table, points_before, self.marks)

    def moved(self, journal_id, seq):
        """A table event journalled as record `seq` (an undo, a hand end): the
        hand has moved on, a clearance before it shows no more."""
        self.journal = journal_id
        self.seq = seq
        self.wagers = 0
        self.verified = False

    def restore(self, journal):
        """What the journal's restore found (Journal.hold: (seq, wagers, marks, verified) or None)."""
        found = journal.hold
        if found is None:
            self.moved(journal.journal_id, 0)
            return
        self.moved(journal.journal_id, found[0])
        self.wagers = found[1]
        self.marks = found[2]
        self.verified = found[3]

    def showing(self):
        """The wagers whose "verified — pay" the lamps show now (0: none)."""
        return self.wagers if self.verified else 0
