"""The linked progressive's parameters per game, and their validation (docs/progressive.md).

One entry per progressive game the floor links: `MEA` (Make 'Em All
Progressive) and `FUP` (Fired Up Progressive). Amounts are integer cents;
rates are integer parts per million (ppm: 1% = 10,000 ppm), so every share of
a wager is an exact fraction and no cent is made or lost by rounding:

    {"MEA": {"paytable": "PT-BJS-MEA-01", "base_unit": 100, "seed": 100000,
             "increment_ppm": 100000, "reserve_ppm": 20000, "cap": 5000000,
             "pay_rule": "shared"}}

- base_unit: the base wagering unit (seed 003 note 4: the paytables are per $1;
  pays, seed and reseed scale with it); every progressive wager is one unit.
- seed: the meter's amount after a reset, for one base-unit wager.
- increment_ppm: the share of each wager added to the meter.
- reserve_ppm: the hidden share, set aside to fund the next reseed.
- cap: the meter stops here; what would pass it goes to the reserve.
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
FIELDS = ("paytable", "base_unit", "seed", "increment_ppm", "reserve_ppm", "cap", "pay_rule")
# A meter above $10,000,000.00 is a typing error, not a progressive.
MAX_CENTS = 1_000_000_000
_PAYTABLE_PREFIX = {"MEA": "PT-BJS-MEA-", "FUP": "PT-BJS-FUP-"}


class Params:
    """One game's parameters, checked (see the module's header)."""

    def __init__(self, game, paytable, base_unit, seed, increment_ppm, reserve_ppm, cap, pay_rule="shared"):
        self.game = game
        self.paytable = paytable
        self.base_unit = base_unit
        self.seed = seed
        self.increment_ppm = increment_ppm
        self.reserve_ppm = reserve_ppm
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


def check_game(game, entry):
    """The Params of `entry` (a dict) for `game`, or ValueError with one line."""
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
    base = _whole(game, "base_unit", entry["base_unit"], 1, MAX_CENTS)
    seed = _whole(game, "seed", entry["seed"], 1, MAX_CENTS)
    inc = _whole(game, "increment_ppm", entry["increment_ppm"], 0, PPM)
    res = _whole(game, "reserve_ppm", entry["reserve_ppm"], 0, PPM)
    cap = _whole(game, "cap", entry["cap"], 1, MAX_CENTS)
    if inc + res > PPM:
        raise ValueError("%s: increment_ppm + reserve_ppm = %d, over 100%% (%d ppm)" % (game, inc + res, PPM))
    if seed > cap:
        raise ValueError("%s: seed %d cents is above the cap %d cents" % (game, seed, cap))
    rule = entry.get("pay_rule", "shared")
    if rule not in PAY_RULES:
        raise ValueError("%s pay_rule %r: one of %s" % (game, rule, ", ".join(PAY_RULES)))
    return Params(game, paytable, base, seed, inc, res, cap, rule)


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
    """A floor's starting parameters (`floor init`): $1 unit, $1,000 seed, 10% to the meter,
    2% hidden, a $50,000 cap, shared pays; a technician and a shift manager change them
    (maintenance.py) before the floor opens."""
    one = {"base_unit": 100, "seed": 100_000, "increment_ppm": 100_000, "reserve_ppm": 20_000, "cap": 5_000_000}
    return {
        "MEA": dict(one, paytable="PT-BJS-MEA-01", pay_rule="shared"),
        "FUP": dict(one, paytable="PT-BJS-FUP-01", pay_rule="shared"),
    }


def params_path(directory):
    return os.path.join(directory, "progressive.json")


def ledger_path(directory):
    return os.path.join(directory, "progressive.sqlite")
