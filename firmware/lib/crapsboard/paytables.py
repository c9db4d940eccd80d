# Every paytable of the seed documents, as data: pays and Dealer Envy by level.
#
# A level is what docs/rules.md and `replay` call it: Fire Bet = distinct points made,
# Bonus Craps = numbers marked in the cycle, Make 'Em All Progressive = distinct
# numbers when the cycle ended, Fired Up = matching rolls. `pays[level]` is the
# pay per 1-unit wager in the table's unit; 0 means the wager loses.
from micropython import const

FOR_1 = const(0)  # stake included in the pay
TO_1 = const(1)  # stake returned on top of the pay
# Name tuples are built from lists so their strings load interned, not as heap
# strings (see layout.LAMP_NAMES).
UNIT_NAMES = tuple(["for 1", "to 1"])

METER = const(-1)  # "100%": the progressive meter

ENVY_PER_EVENT = const(0)  # fixed amount, once per winning event
ENVY_PER_PLAYER = const(1)  # fixed amount for each winning player
ENVY_PER_WAGER = const(2)  # multiple of each winning player's wager
ENVY_PER_NAMES = tuple(["event", "player", "wager"])
# What an envy amount counts: a fixed pay for a 1-unit base bet (scaled like
# the progressive's pays), or a multiple of each winning wager (PT-FLT-BC-03).
ENVY_UNIT_NAMES = tuple(["units for a 1-unit base bet", "units for a 1-unit base bet", "times each winning wager"])

# Outcomes of a resolution (RULES "How a resolution is reported").
OUT_LOSS = const(0)  # the stake is lost
OUT_PUSH = const(1)  # the stake back, nothing more
OUT_WIN = const(2)  # more than the stake back
OUT_RETURNED = const(3)  # never in action: the stake returned (Fire Bet at an end hand in its window)
OUTCOME_NAMES = tuple(["loss", "push", "win", "returned"])

# Wager indexes: the engine's bit positions, the order of every report.
FIRE = const(0)
ALL_SMALL = const(1)
ALL_TALL = const(2)
MAKE_EM_ALL = const(3)
MEA_PROGRESSIVE = const(4)
FIRED_UP = const(5)
WAGER_COUNT = const(6)
WAGER_NAMES = tuple(["fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up"])


class Paytable:
    """One paytable of one wager. `envy[level]` is None or (amount, ENVY_PER_*)."""

    def __init__(self, ident, unit, pays, envy=None, sequences=None):
        self.ident = ident
        self.unit = unit
        self.pays = pays
        self.envy = envy if envy is not None else (None,) * len(pays)
        self.sequences = sequences  # Fired Up only: the sequences a first roll may start
        if len(self.envy) != len(pays):
            raise ValueError("paytable " + ident + ": envy and pays differ in length")
        # outcome(level) for every level, read on the engine's hot path
        self.outcomes = bytes([self.outcome(level) for level in range(len(pays))])

    def top_level(self):
        return len(self.pays) - 1

    def returns(self, level):
        """Units handed back per unit staked at `level`, stake included
        ("30 to 1" -> 31, "25 for 1" -> 25, a loss -> 0), or METER."""
        pay = self.pays[level]
        if pay == METER or pay == 0:
            return pay
        return pay + 1 if self.unit == TO_1 else pay

    def outcome(self, level):
        """OUT_WIN, OUT_PUSH or OUT_LOSS of a wager settled at `level`: the one
        place that decides whether a pay is a win."""
        back = self.returns(level)
        if back == METER or back > 1:
            return OUT_WIN
        return OUT_PUSH if back == 1 else OUT_LOSS


DEFAULT_IDS = ("1", "PT1", "PT1", "PT1", "PT-BJS-MEA-01", "PT-BJS-FUP-01")


# The tables themselves are data in paytable_specs.py, imported when a table
# not yet built is asked for; the board builds the six in force (and any a
# restored journal names) at power-up and main.py then drops that module, so
# the board holds six small objects, not the constant tuples of all 27.


def _specs(wager):
    from crapsboard import paytable_specs

    return paytable_specs.SPECS[wager]


_built = {}  # (wager, ident) -> Paytable: one object per table however often asked for


def _get(wager, spec):
    key = (wager, spec[1])
    table = _built.get(key)
    if table is None:
        from crapsboard import paytable_specs

        table = _built[key] = paytable_specs.build(spec)
    return table


def keep_only(*configs):
    """Drop every built table the `configs` (None: skipped) do not use. A
    restore builds each table a snapshot names, and the cache would hold
    them all for ever (~0.5 KB each). A table kept stays the one object for
    its id, which the engine compares by identity; one dropped is built
    afresh if asked for again, when nothing holds the old one."""
    used = [t for c in configs if c is not None for t in c.paytables]
    for key in list(_built):
        if _built[key] not in used:
            del _built[key]


def tables(wager):
    """Every paytable of wager index `wager`, in the seeds' order."""
    return [_get(wager, spec) for spec in _specs(wager)]


def find(wager, ident):
    """The paytable `ident` of wager index `wager`, or None."""
    table = _built.get((wager, ident))
    if table is not None:  # the tables in force: found without loading the specs
        return table
    for spec in _specs(wager):
        if spec[1] == ident:
            return _get(wager, spec)
    return None


def ids(wager):
    return [spec[1] for spec in _specs(wager)]
