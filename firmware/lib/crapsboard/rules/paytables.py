# Every paytable of the seed documents, as data: pays and Dealer Envy by level.
#
# A level is what docs/rules.md and `replay` call it: Fire Bet = distinct points made,
# Bonus Craps = numbers marked in the cycle, Make 'Em All Progressive = distinct
# numbers when the cycle ended, Fired Up = matching rolls. `pays[level]` is the
# pay per 1-unit wager in the table's unit; 0 means the wager loses.
from crapsboard.rules import paytable_specs
from crapsboard.rules.paytable import (  # noqa: F401 (re-exported: pt.FIRE, pt.Paytable, ...)
    ALL_SMALL,
    ALL_TALL,
    ENVY_PER_EVENT,
    ENVY_PER_NAMES,
    ENVY_PER_PLAYER,
    ENVY_PER_WAGER,
    ENVY_UNIT_NAMES,
    FIRE,
    FIRED_UP,
    FOR_1,
    MAKE_EM_ALL,
    MEA_PROGRESSIVE,
    METER,
    OUT_LOSS,
    OUT_PUSH,
    OUT_RETURNED,
    OUT_WIN,
    OUTCOME_NAMES,
    TO_1,
    UNIT_NAMES,
    WAGER_COUNT,
    WAGER_NAMES,
    Paytable,
)

DEFAULT_IDS = ("1", "PT1", "PT1", "PT1", "PT-BJS-MEA-01", "PT-BJS-FUP-01")


# The tables themselves are data in paytable_specs.py; each is built into a
# Paytable the first time it is asked for, and that one object is kept (the
# engine compares tables by identity).


def _specs(wager):
    return paytable_specs.SPECS[wager]


_built = {}  # (wager, ident) -> Paytable: one object per table however often asked for


def _get(wager, spec):
    key = (wager, spec[1])
    table = _built.get(key)
    if table is None:
        table = _built[key] = paytable_specs.build(spec)
    return table


def tables(wager):
    """Every paytable of wager index `wager`, in the seeds' order."""
    return [_get(wager, spec) for spec in _specs(wager)]


def find(wager, ident):
    """The paytable `ident` of wager index `wager`, or None."""
    for spec in _specs(wager):
        if spec[1] == ident:
            return _get(wager, spec)
    return None


def ids(wager):
    return [spec[1] for spec in _specs(wager)]
