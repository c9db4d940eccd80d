# The linked progressive as the board sees it (docs/progressive.md): for each
# progressive game (MEA Progressive, Fired Up) the count of progressive
# wagers the dealer keyed for its cycle, and whether the floor lets new ones
# be taken.
#
# A count belongs to the cycle that starts with the next roll after it was
# keyed: it is kept with the table's roll counter at the keying (`roll`), and
# is in action while every roll since has carried that cycle on -- the
# cycle's progress (MEA numbers marked, Fired Up rolls matched) equals the
# rolls since. So a 7, a repeat, a mismatch or a win ends it with no
# bookkeeping, an undo puts it back, and the journal's restore needs only the
# last keying of each game (journal_restore: its count and roll) to rebuild it.
from micropython import const

from crapsboard.base import ticks
from crapsboard.rules import paytable as pt
from crapsboard.rules.engine import popcount

MEA = const(0)
FUP = const(1)
GAMES = ("MEA", "FUP")  # the floor's names of the linked games
WAGERS = (pt.MEA_PROGRESSIVE, pt.FIRED_UP)  # each game's wager index
MAX_WAGERS = const(99)

# The floor's meter state, as the gateway's `progressive` request says it.
S_CLOSED = const(0)
S_OPEN = const(1)
S_LOCKED = const(2)
S_PENDING = const(3)
STATE_NAMES = ("closed", "open", "locked", "pending")
LINK_MS = const(6000)  # no request for this long: closed (docs/progressive.md, "Times")
# The meter's pay rule for several winning wagers of one hit, as the request
# names it and as `status` words it for people.
RULES = ("shared", "positional")
PAYS = ("shared by winning wagers", "each winning wager in turn")
NO_WORD = "no word from the floor for 6 s"


def payload(game, field=None, value=0):
    """The JSON payload of a progressive record: {"game": "MEA"} for a
    prog_hit; with `field` b"roll" for a prog_wager (`value`: the table's
    rolls at the keying), b"hit" for a prog_void (the seq of the hit voided)."""
    if field is None:
        return b'{"game": "' + GAMES[game].encode() + b'"}'
    return b'{"game": "' + GAMES[game].encode() + b'", "' + field + b'": ' + str(value).encode() + b"}"


def currency(cents):
    """An amount in cents as the board states it: "$37,790.94"."""
    whole = str(cents // 100)
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return "$" + ",".join(groups) + "." + ("0" + str(cents % 100))[-2:]


def progress(table, game):
    """How many rolls the game's current cycle has carried on."""
    if game == MEA:
        return popcount(table.mea_marks)
    return table.fired_count


class Progressive:
    def __init__(self):
        self.count = [0, 0]  # the last keying's count (summed over keyings before one roll)
        self.roll = [0, 0]  # table.rolls when it was keyed
        # The floor's word, per game: its state, the meter in cents, and when
        # it was said (None: never since power-up, so closed).
        self.said = [S_CLOSED, S_CLOSED]
        self.amount = [0, 0]
        self.heard = [None, None]
        self.rule = [None, None]  # an index of RULES; None: an older gateway did not say
        self.why = [None, None]  # the floor's reason for a closed meter (a short str)

    def told(self, game, state, amount, now_ms, rule=None, why=None):
        """The gateway's `progressive` request: the meter's state and amount,
        its pay rule and, closed, why."""
        self.said[game] = state
        self.amount[game] = amount
        self.heard[game] = now_ms
        self.rule[game] = rule
        self.why[game] = why

    def silent(self, game, now_ms):
        """Whether the floor has said nothing of the game for LINK_MS (or since power-up)."""
        heard = self.heard[game]
        return heard is None or ticks.diff(now_ms, heard) >= LINK_MS

    def state(self, game, now_ms):
        """The game's state on the floor now: what it said last, closed once it is LINK_MS old."""
        return S_CLOSED if self.silent(game, now_ms) else self.said[game]

    def closed_why(self, game, now_ms):
        """Why the game is closed now, for people; None while it is not."""
        if self.silent(game, now_ms):
            return NO_WORD  # the board's own reason, whatever the floor said last
        if self.said[game] != S_CLOSED:
            return None
        return self.why[game] or "closed by the floor"  # an older gateway gives no reason

    def wagers(self, table, game):
        """The progressive wagers in action on the game's cycle now (0: none)."""
        if not self.count[game]:
            return 0
        since = table.rolls - self.roll[game]
        if since < 0 or since != progress(table, game):
            return 0
        return self.count[game]

    def add(self, table, game, count):
        """The dealer keyed `count` more wagers; False when the total would pass 99."""
        total = count + self.wagers(table, game)
        if total > MAX_WAGERS:
            return False
        self.count[game] = total
        self.roll[game] = table.rolls
        return True

    def hits_restored(self, table, hold):
        """The hits of the roll the journal restored last, a list of (game,
        wagers): the top awards its HOLD shows (hold_state.HoldState, restored)
        with the wagers keyed for the cycle each ended. A cycle that wins the
        top award marked one number (MEA) or matched one sequence lamp (Fired
        Up) at every roll, so its wagers were keyed that many rolls before."""
        found = []
        for game in (MEA, FUP):
            w = WAGERS[game]
            if hold.wagers & (1 << w) and self.count[game]:
                marks = hold.marks[w]  # MEA: the numbers' mask; Fired Up: the lamps' count
                rolls = popcount(marks) if game == MEA else marks
                if table.rolls - self.roll[game] == rolls:
                    found.append((game, self.count[game]))
        return found

    def restore(self, found):
        """What the journal's restore found: per game (count, roll) of its last keyings, or None."""
        for game in (MEA, FUP):
            if found[game] is not None:
                self.count[game] = found[game][0]
                self.roll[game] = found[game][1]


def hits(table, before):
    """The top awards the roll `table` has just played paid: a list of (game,
    wagers) with `before`, the wagers in action before the roll, for each game."""
    found = []
    for i in range(table.res_count):
        w = table.res_wager[i]
        if table.res_outcome[i] == pt.OUT_WIN and table.pays(w, table.res_level[i]) == pt.METER:
            game = MEA if w == pt.MEA_PROGRESSIVE else FUP
            if before[game]:
                found.append((game, before[game]))
    return found
