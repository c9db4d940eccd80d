# The operator configuration's type: Config (the defaults, or a copy), ConfigError,
# and the constants its values are written in.
#
# Below both config.py (the front the rest of the firmware calls) and
# config_parse.py (the checker), so neither half imports the other.
from micropython import const

from crapsboard.rules import paytables as pt

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
        """The defaults, or a copy of `base` for a caller to change (a
        snapshot's reader puts its rule settings into such a copy)."""
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
