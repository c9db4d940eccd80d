"""The linked progressive's parameters per game, and their validation (docs/progressive.md).

One entry per progressive game the floor links: `MEA` (Make 'Em All
Progressive) and `FUP` (Fired Up Progressive). Amounts are integer cents;
rates are integer parts per million (ppm: 1% = 10,000 ppm), so every share of
a wager is an exact fraction and no cent is made or lost by rounding:

    {"MEA": {"paytable": "PT-BJS-MEA-01", "base_unit": 100, "base": 100000,
             "reset": 100000, "increment_ppm": 100000, "reserve_ppm": 20000,
             "reserve_ceiling": 200000, "cap": 5000000, "pay_rule": "shared"}}

- base_unit: the base wagering unit (seed 003 note 4: the paytables are per $1;
  pays, base and reset scale with it); every progressive wager is one unit.
- base: the meter's first (initial) amount, for one base-unit wager.
- reset: the meter's amount after a hit (before the overflow is added).
  Neither may be below the paytable's highest fixed award on the base unit,
  so the top award is never worth less than a lesser one.
- increment_ppm: the share of each wager added to the meter, INCREMENT_RANGE.
- reserve_ppm: the hidden share, set aside to fund resets, RESERVE_RANGE.
- reserve_ceiling: the most the hidden reserve holds (at least one reset);
  what passes it goes to the overflow, which goes back to the players.
- cap: the meter stops here (at least the base and the reset); what would
  pass it goes to the overflow.
- pay_rule: "shared" (several winners of one hit share the meter equally,
  whole cents, the remainder stays in the meter) or "positional" (each winner
  in betting-position order is paid the whole meter, with a reseed between).
- paytable: the paytable the tables play, for the return to player.

`check` refuses anything else with one line (ValueError) and changes nothing.
"""

import json
import os

PPM = 1_000_000
GAMES = {"MEA": "Make 'Em All Progressive", "FUP": "Fired Up Progressive"}
PAY_RULES = ("shared", "positional")
FIELDS = (
    "paytable",
    "base_unit",
    "base",
    "reset",
    "increment_ppm",
    "reserve_ppm",
    "reserve_ceiling",
    "cap",
    "pay_rule",
)
INCREMENT_RANGE = (1_000, 500_000)  # 0.1% … 50% of each wager to the meter
RESERVE_RANGE = (0, 200_000)  # 0 … 20% hidden
# A meter above $10,000,000.00 is a typing error, not a progressive.
MAX_CENTS = 1_000_000_000
_PAYTABLE_PREFIX = {"MEA": "PT-BJS-MEA-", "FUP": "PT-BJS-FUP-"}


class Params:
    """One game's parameters, checked (see the module's header)."""

    def __init__(
        self, game, paytable, base_unit, base, reset, increment_ppm, reserve_ppm, reserve_ceiling, cap, pay_rule
    ):
        self.game = game
        self.paytable = paytable
        self.base_unit = base_unit
        self.base = base
        self.reset = reset
        self.increment_ppm = increment_ppm
        self.reserve_ppm = reserve_ppm
        self.reserve_ceiling = reserve_ceiling
        self.cap = cap
        self.pay_rule = pay_rule

    def to_dict(self):
        return {f: getattr(self, f) for f in FIELDS}

    def __eq__(self, other):
        return isinstance(other, Params) and self.game == other.game and self.to_dict() == other.to_dict()


def _whole(game, name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("%s %s: %r is not a whole number" % (game, name, value))
    if value < low:
        what = "negative" if low == 0 else "below %d" % low
        raise ValueError("%s %s: %d is %s" % (game, name, value, what))
    if value > high:
        raise ValueError("%s %s: %d is above %d" % (game, name, value, high))
    return value


def top_fixed_award(game, paytable):
    """The highest fixed pay of `paytable` below its top award, in base units ("for 1")."""
    from crapsboard.rules import paytables as pt

    table = pt.find(pt.MEA_PROGRESSIVE if game == "MEA" else pt.FIRED_UP, paytable)
    return max(p for p in table.pays if p >= 0)


def check_game(game, entry):
    """The Params of `entry` (a dict) for `game`, or ValueError with one line.
    Every field is checked before any is compared with another."""
    from crapsboard.rules import paytables as pt

    if game not in GAMES:
        raise ValueError("unknown game %r: the linked games are %s" % (game, ", ".join(GAMES)))
    if not isinstance(entry, dict):
        raise ValueError("%s: give an object of %s" % (game, ", ".join(FIELDS)))
    unknown = sorted(set(entry) - set(FIELDS))
    if unknown:
        raise ValueError("%s: unknown field %r (fields: %s)" % (game, unknown[0], ", ".join(FIELDS)))
    missing = [f for f in FIELDS if f not in entry and f != "pay_rule"]
    if missing:
        raise ValueError("%s: %s missing" % (game, missing[0]))
    paytable = entry["paytable"]
    wager = pt.MEA_PROGRESSIVE if game == "MEA" else pt.FIRED_UP
    if not isinstance(paytable, str) or pt.find(wager, paytable) is None:
        raise ValueError("%s paytable %r: one of %s01-06" % (game, paytable, _PAYTABLE_PREFIX[game]))
    unit = _whole(game, "base_unit", entry["base_unit"], 1, MAX_CENTS)
    base = _whole(game, "base", entry["base"], 1, MAX_CENTS)
    reset = _whole(game, "reset", entry["reset"], 1, MAX_CENTS)
    inc = _whole(game, "increment_ppm", entry["increment_ppm"], *INCREMENT_RANGE)
    res = _whole(game, "reserve_ppm", entry["reserve_ppm"], *RESERVE_RANGE)
    ceiling = _whole(game, "reserve_ceiling", entry["reserve_ceiling"], 0, MAX_CENTS)
    cap = _whole(game, "cap", entry["cap"], 1, MAX_CENTS)
    rule = entry.get("pay_rule", "shared")
    if rule not in PAY_RULES:
        raise ValueError("%s pay_rule %r: one of %s" % (game, rule, ", ".join(PAY_RULES)))
    top = top_fixed_award(game, paytable)
    for name, value in (("base", base), ("reset", reset)):
        if value < top * unit:
            raise ValueError(
                "%s %s: %d cents is below %s's highest fixed award, %d for 1 on a %d-cent unit (%d cents): "
                "the top award would be worth less than a lesser one"
                % (game, name, value, paytable, top, unit, top * unit)
            )
        if value > cap:
            raise ValueError("%s: %s %d cents is above the cap %d cents" % (game, name, value, cap))
    if ceiling < reset:
        raise ValueError("%s: reserve_ceiling %d cents is below one reset (%d cents)" % (game, ceiling, reset))
    return Params(game, paytable, unit, base, reset, inc, res, ceiling, cap, rule)


def check(obj):
    """{game: Params} of a whole parameters object, or ValueError with one line."""
    if not isinstance(obj, dict) or not obj:
        raise ValueError("the parameters are an object with at least one game of %s" % ", ".join(GAMES))
    return {game: check_game(game, entry) for game, entry in sorted(obj.items())}


def load(path):
    """{game: Params} from the JSON file at `path`, or ValueError with one line."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except FileNotFoundError:
        raise ValueError("no progressive parameters at %s" % path)
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e))
    except ValueError as e:
        raise ValueError("%s is not JSON: %s" % (path, e))
    return check(obj)


def default_params():
    """A floor's starting parameters (`floor init`): $1 unit, $1,000 base and reset, 10% to
    the meter, 2% hidden up to two resets ($2,000), a $50,000 cap, shared pays; a technician
    and a shift manager change them (maintenance.py) before the floor opens."""
    one = {
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 100_000,
        "reserve_ppm": 20_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
    }
    return {
        "MEA": dict(one, paytable="PT-BJS-MEA-01", pay_rule="shared"),
        "FUP": dict(one, paytable="PT-BJS-FUP-01", pay_rule="shared"),
    }


def params_path(directory):
    return os.path.join(directory, "progressive.json")


def ledger_path(directory):
    return os.path.join(directory, "progressive.sqlite")
