# Operator configuration: which wagers are offered, their paytables, casino options.
#
# `parse` checks a whole JSON object before anything is built, so a bad key is
# refused with a message naming it and the configuration in force stays. The
# type and its constants are in config_type.py, the checking code in
# config_parse.py; this module is the front the rest of the firmware calls
# (cfg.loads, cfg.Config, cfg.FIRE_FIRST_ROLL).
from crapsboard.rules import config_parse
from crapsboard.rules.config_type import (  # noqa: F401 (re-exported: cfg.Config, cfg.KEYS, ...)
    BONUS_AFTER_SEVEN,
    BONUS_IDLE,
    BONUS_WINDOW_NAMES,
    FIRE_FIRST_ROLL,
    FIRE_UNTIL_POINT,
    FIRE_WINDOW_NAMES,
    KEYS,
    PIN_HASH_COMMAND,
    Config,
    ConfigError,
)


def parse(obj, base=None):
    """A new Config from a JSON object; keys it lacks come from `base` or the defaults."""
    return config_parse.parse(obj, base)


def loads(text, base=None):
    """`parse` for JSON text; malformed, oversized or deeply nested JSON is a ConfigError too."""
    return config_parse.loads(text, base)
