# Every paytable of the seed documents, as data: pays and Dealer Envy by level.
#
# A level is what docs/rules.md and `replay` call it: Fire Bet = distinct points made,
# Bonus Craps = numbers marked in the cycle, Make 'Em All Progressive = distinct
# numbers when the cycle ended, Fired Up = matching rolls. `pays[level]` is the
# pay per 1-unit wager in the table's unit; 0 means the wager loses.
from micropython import const

FOR_1 = const(0)  # stake included in the pay
TO_1 = const(1)  # stake returned on top of the pay
UNIT_NAMES = ("for 1", "to 1")

METER = const(-1)  # "100%": the progressive meter

ENVY_PER_EVENT = const(0)  # fixed amount, once per winning event
ENVY_PER_PLAYER = const(1)  # fixed amount for each winning player
ENVY_PER_WAGER = const(2)  # multiple of each winning player's wager
ENVY_PER_NAMES = ("event", "player", "wager")
# What an envy amount counts: a fixed pay for a 1-unit base bet (scaled like
# the progressive's pays), or a multiple of each winning wager (PT-FLT-BC-03).
ENVY_UNIT_NAMES = ("units for a 1-unit base bet", "units for a 1-unit base bet", "times each winning wager")

# Outcomes of a resolution (RULES "How a resolution is reported").
OUT_LOSS = const(0)  # the stake is lost
OUT_PUSH = const(1)  # the stake back, nothing more
OUT_WIN = const(2)  # more than the stake back
OUT_RETURNED = const(3)  # never in action: the stake returned (Fire Bet at an end hand in its window)
OUTCOME_NAMES = ("loss", "push", "win", "returned")

# Wager indexes: the engine's bit positions, the order of every report.
FIRE = const(0)
ALL_SMALL = const(1)
ALL_TALL = const(2)
MAKE_EM_ALL = const(3)
MEA_PROGRESSIVE = const(4)
FIRED_UP = const(5)
WAGER_COUNT = const(6)
WAGER_NAMES = ("fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up")


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


# The tables as constant tuples, built into Paytable objects only when asked
# for: the board keeps the six in force, not all 27 (~10 KB of heap at boot).
# A spec is (kind, ident, ...): "F" Fire (unit, pays for 3-6 points), "B"
# bonus (marks needed, pay, envy multiple), "M" Make 'Em All Progressive
# (pays for 5-9 numbers, envy per level 6-10 or None), "U" Fired Up (pays,
# envy or None, sequences).
_SMALL_TALL = ((6, 5, 4, 3, 2), (8, 9, 10, 11, 12))
_TALL = ((8, 9, 10, 11, 12),)
_SMALL_FOUR = ((5, 4, 3, 2),)
_EVENT_1000 = (1000, ENVY_PER_EVENT)
_BONUS_SPECS = (("B", "PT1", 5, 34, 0), ("B", "PT2", 5, 30, 0), ("B", "PT-FLT-BC-03", 5, 30, 1))
_SPECS = (
    (
        ("F", "1", FOR_1, 0, 25, 250, 1000),
        ("F", "2", TO_1, 0, 24, 249, 999),
        ("F", "3", FOR_1, 7, 30, 150, 300),
        ("F", "4", TO_1, 6, 29, 149, 299),
        ("F", "5", FOR_1, 0, 40, 200, 500),
        ("F", "6", TO_1, 0, 39, 199, 499),
    ),
    # Seed 002 has no All Small row and no unit in either table; docs/rules.md
    # settles All Small equal to All Tall, "to 1".
    _BONUS_SPECS,
    _BONUS_SPECS,
    (("B", "PT1", 10, 175, 0), ("B", "PT2", 10, 150, 0), ("B", "PT-FLT-BC-03", 10, 150, 5)),
    (
        ("M", "PT-BJS-MEA-01", (2, 5, 10, 50, 300), (None, None, None, (200, ENVY_PER_EVENT), _EVENT_1000)),
        ("M", "PT-BJS-MEA-02", (2, 5, 10, 50, 300), (None, None, None, (50, ENVY_PER_PLAYER), _EVENT_1000)),
        (
            "M",
            "PT-BJS-MEA-03",
            (2, 5, 10, 50, 300),
            (
                (1, ENVY_PER_PLAYER),
                (2, ENVY_PER_PLAYER),
                (5, ENVY_PER_PLAYER),
                (50, ENVY_PER_PLAYER),
                _EVENT_1000,
            ),
        ),
        ("M", "PT-BJS-MEA-04", (2, 5, 10, 50, 300), None),
        ("M", "PT-BJS-MEA-05", (3, 6, 10, 40, 200), (None, None, None, (50, ENVY_PER_PLAYER), _EVENT_1000)),
        ("M", "PT-BJS-MEA-06", (3, 6, 10, 40, 200), None),
    ),
    (
        (
            "U",
            "PT-BJS-FUP-01",
            (0, 1, 5, 40, 300, METER),
            (None, None, None, None, (100, ENVY_PER_EVENT), _EVENT_1000),
            _SMALL_TALL,
        ),
        ("U", "PT-BJS-FUP-02", (0, 1, 5, 40, 300, METER), None, _SMALL_TALL),
        (
            "U",
            "PT-BJS-FUP-03",
            (0, 2, 20, 200, METER),
            (None, None, None, (200, ENVY_PER_EVENT), _EVENT_1000),
            _SMALL_FOUR,
        ),
        ("U", "PT-BJS-FUP-04", (0, 2, 20, 200, METER), None, _SMALL_FOUR),
        (
            "U",
            "PT-BJS-FUP-05",
            (0, 2, 20, 200, 1000, METER),
            (None, None, None, None, (60, ENVY_PER_PLAYER), (2000, ENVY_PER_EVENT)),
            _TALL,
        ),
        ("U", "PT-BJS-FUP-06", (0, 3, 6, 40, 200, METER), None, _TALL),
    ),
)
DEFAULT_IDS = ("1", "PT1", "PT1", "PT1", "PT-BJS-MEA-01", "PT-BJS-FUP-01")


def _build(spec):
    kind = spec[0]
    ident = spec[1]
    if kind == "F":
        return Paytable(ident, spec[2], (0, 0, 0) + spec[3:7])
    if kind == "B":
        count = spec[2]
        envy = (spec[4], ENVY_PER_WAGER) if spec[4] else None
        return Paytable(ident, TO_1, (0,) * count + (spec[3],), (None,) * count + (envy,))
    if kind == "M":
        envy = None if spec[3] is None else (None,) * 6 + spec[3]
        return Paytable(ident, FOR_1, (0, 0, 0, 0, 0) + spec[2] + (METER,), envy)
    return Paytable(ident, FOR_1, spec[2], spec[3], spec[4])


_built = {}  # (wager, ident) -> Paytable: one object per table however often asked for


def _get(wager, spec):
    key = (wager, spec[1])
    table = _built.get(key)
    if table is None:
        table = _built[key] = _build(spec)
    return table


def tables(wager):
    """Every paytable of wager index `wager`, in the seeds' order."""
    return [_get(wager, spec) for spec in _SPECS[wager]]


def find(wager, ident):
    """The paytable `ident` of wager index `wager`, or None."""
    for spec in _SPECS[wager]:
        if spec[1] == ident:
            return _get(wager, spec)
    return None


def ids(wager):
    return [spec[1] for spec in _SPECS[wager]]
