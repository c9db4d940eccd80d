# One paytable and the constants it is written in: pay units, Dealer Envy
# kinds, outcomes, and the wager indexes (the engine's bit positions).
#
# Below both paytable_specs.py (the seeds' tables as data) and paytables.py
# (the catalogue that builds them), so neither imports the other's half.
# paytables re-exports every name here: the rest of the firmware reads them
# as pt.FIRE, pt.Paytable.
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
