# Operator configuration: which wagers are offered, their paytables, casino options.
#
# `parse` checks a whole JSON object before anything is built, so a bad key is
# refused with a message naming it and the configuration in force stays. The
# checking code is in config_parse.py, loaded only when a configuration is
# read: a board without config.json never holds it, and main.py lets it go
# once config.json is read (release_parser).
from micropython import const

from crapsboard import paytables as pt

# Built from a list so its strings load interned (see layout.LAMP_NAMES), as
# are the *_NAMES below.
KEYS = tuple(["offered", "paytables", "rebet_after_win", "fire_window", "bonus_window", "supervisor_pin"])

# When Fire Bets are accepted (RULES: Fire Bet): until the new shooter
# establishes a point (seed 000), or only before the shooter's first roll (seed 001).
FIRE_UNTIL_POINT = const(0)
FIRE_FIRST_ROLL = const(1)
FIRE_WINDOW_NAMES = tuple(["until_point", "first_roll"])
# When All Small / All Tall / Make 'Em All are accepted: only before the first
# roll of a cycle (seed 002), or whenever the wager has no numbers marked.
BONUS_AFTER_SEVEN = const(0)
BONUS_IDLE = const(1)
BONUS_WINDOW_NAMES = tuple(["after_seven", "idle"])

PIN_HASH_COMMAND = "python -m sim pin-hash"


class ConfigError(ValueError):
    def __init__(self, key, message):
        super().__init__(key + ": " + message)
        self.key = key


class Config:
    """A checked configuration. Build it with `parse`; treat it as read-only."""

    def __init__(self, base=None):
        """The defaults, or a copy of `base` for a caller to change (without
        the checking code, which a snapshot's reader would otherwise load
        during the restore; docs/board.md, Memory)."""
        if base is None:
            self.offered = (1 << pt.WAGER_COUNT) - 1  # bitmask over wager indexes
            self.paytables: list = [pt.find(w, pt.DEFAULT_IDS[w]) for w in range(pt.WAGER_COUNT)]
            self.rebet_after_win = True
            self.fire_window = FIRE_UNTIL_POINT
            self.bonus_window = BONUS_AFTER_SEVEN
            # (salt, iterations, PBKDF2-HMAC-SHA256 digest) of the supervisor PIN, or None
            self.supervisor_pin: tuple | None = None
        else:
            self.offered = base.offered
            self.paytables = list(base.paytables)
            self.rebet_after_win = base.rebet_after_win
            self.fire_window = base.fire_window
            self.bonus_window = base.bonus_window
            self.supervisor_pin = base.supervisor_pin

    def is_offered(self, wager):
        return bool(self.offered & (1 << wager))


def parse(obj, base=None):
    """A new Config from a JSON object; keys it lacks come from `base` or the defaults."""
    from crapsboard import config_parse

    return config_parse.parse(obj, base)


def loads(text, base=None):
    """`parse` for JSON text; malformed, oversized or deeply nested JSON is a ConfigError too."""
    from crapsboard import config_parse

    return config_parse.loads(text, base)


def release_parser():
    """Let the GC take the checking code once the board's configuration is read."""
    import sys

    import crapsboard

    sys.modules.pop("crapsboard.config_parse", None)
    if "config_parse" in dir(crapsboard):
        delattr(crapsboard, "config_parse")
