# Checks a configuration (JSON) and builds its Config (config_type.py).
# Reached through config.py (cfg.parse, cfg.loads).
import binascii

from crapsboard.rules import paytables as pt
from crapsboard.rules.config_type import (
    BONUS_WINDOW_NAMES,
    FIRE_WINDOW_NAMES,
    KEYS,
    PIN_HASH_COMMAND,
    Config,
    ConfigError,
)

# A configuration of every key is ~600 bytes and three levels deep; anything far
# larger or deeper is refused before parsing, so the board's heap and the JSON
# parser's recursion are never at the mercy of the file.
MAX_BYTES = 4096
MAX_DEPTH = 8
_PIN_SALT_BYTES = (8, 64)  # accepted salt lengths, bytes
_PIN_ITERATIONS = (1, 1000000)


def _json(value):
    """A value as JSON spells it (true, "fire"), for messages on every runtime."""
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def _article(word):
    return ("an " if word[0] in "aeiou" else "a ") + word


def _wager_index(name, key):
    if isinstance(name, str):
        for w in range(pt.WAGER_COUNT):
            if pt.WAGER_NAMES[w] == name:
                return w
    raise ConfigError(key, "unknown wager " + _json(name) + " (one of " + ", ".join(pt.WAGER_NAMES) + ")")


def _parse_offered(value):
    if not isinstance(value, list):
        raise ConfigError("offered", "must be a list of wager names")
    mask = 0
    for i, name in enumerate(value):
        w = _wager_index(name, "offered[" + str(i) + "]")
        if mask & (1 << w):
            raise ConfigError("offered[" + str(i) + "]", _json(name) + " is listed twice")
        mask |= 1 << w
    return mask


def _parse_paytable(wager, ident, key):
    if isinstance(ident, int) and not isinstance(ident, bool) and wager == pt.FIRE:
        ident = str(ident)  # Fire Bet tables are numbered; accept 3 as well as "3"
    table = pt.find(wager, ident) if isinstance(ident, str) else None
    if table is None:
        raise ConfigError(
            key,
            _json(ident)
            + " is not "
            + _article(pt.WAGER_NAMES[wager])
            + " paytable (one of "
            + ", ".join(pt.ids(wager))
            + ")",
        )
    return table


def _hex_bytes(value, key, what, sizes):
    if isinstance(value, str) and len(value) % 2 == 0 and value == value.lower():
        try:
            raw = binascii.unhexlify(value)
        except ValueError:
            raw = None
        if raw is not None and sizes[0] <= len(raw) <= sizes[1]:
            return raw
    raise ConfigError(key, "must be " + what + " in lowercase hex; make the entry with `" + PIN_HASH_COMMAND + "`")


def _parse_pin(value):
    """{"pbkdf2_sha256": hex, "salt": hex, "iterations": n} or null."""
    if value is None:
        return None
    fields = ("pbkdf2_sha256", "salt", "iterations")
    if not isinstance(value, dict) or sorted(value) != sorted(fields):
        raise ConfigError(
            "supervisor_pin",
            "must be null or an object with exactly " + ", ".join(fields) + "; make it with `" + PIN_HASH_COMMAND + "`",
        )
    digest = _hex_bytes(value["pbkdf2_sha256"], "supervisor_pin.pbkdf2_sha256", "32 bytes", (32, 32))
    salt = _hex_bytes(value["salt"], "supervisor_pin.salt", "8 to 64 bytes", _PIN_SALT_BYTES)
    iterations = value["iterations"]
    if (
        not isinstance(iterations, int)
        or isinstance(iterations, bool)
        or not (_PIN_ITERATIONS[0] <= iterations <= _PIN_ITERATIONS[1])
    ):
        raise ConfigError("supervisor_pin.iterations", "must be a whole number from 1 to 1000000")
    return (salt, iterations, digest)


def _parse_choice(obj, key, names):
    value = obj[key]
    for i in range(len(names)):
        if value == names[i]:
            return i
    raise ConfigError(key, "must be " + " or ".join(['"' + n + '"' for n in names]))


def parse(obj, base=None):
    """A new Config from a JSON object; keys it lacks come from `base` or the defaults."""
    if not isinstance(obj, dict):
        raise ConfigError("config", "must be a JSON object")
    if "supervisor_pin_sha256" in obj:
        raise ConfigError(
            "supervisor_pin_sha256",
            "an unsalted PIN hash is no longer accepted: make a supervisor_pin entry with `" + PIN_HASH_COMMAND + "`",
        )
    for key in obj:
        if key not in KEYS:
            raise ConfigError(str(key), "unknown key (known: " + ", ".join(KEYS) + ")")
    config = Config(base)
    if "offered" in obj:
        config.offered = _parse_offered(obj["offered"])
    if "paytables" in obj:
        tables = obj["paytables"]
        if not isinstance(tables, dict):
            raise ConfigError("paytables", "must be an object mapping wager name to paytable id")
        for name in tables:
            key = "paytables." + str(name)
            w = _wager_index(name, key)
            config.paytables[w] = _parse_paytable(w, tables[name], key)
    if "rebet_after_win" in obj:
        if not isinstance(obj["rebet_after_win"], bool):
            raise ConfigError("rebet_after_win", "must be true or false")
        config.rebet_after_win = obj["rebet_after_win"]
    if "fire_window" in obj:
        config.fire_window = _parse_choice(obj, "fire_window", FIRE_WINDOW_NAMES)
    if "bonus_window" in obj:
        config.bonus_window = _parse_choice(obj, "bonus_window", BONUS_WINDOW_NAMES)
    if "supervisor_pin" in obj:
        config.supervisor_pin = _parse_pin(obj["supervisor_pin"])
    return config


def _check_shape(text):
    if len(text) > MAX_BYTES:
        raise ConfigError("config", "is " + str(len(text)) + " bytes; at most " + str(MAX_BYTES) + " are read")
    depth = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "{" or c == "[":
            depth += 1
            if depth > MAX_DEPTH:
                raise ConfigError("config", "nested more than " + str(MAX_DEPTH) + " levels deep")
        elif c == "}" or c == "]":
            depth -= 1


def loads(text, base=None):
    """`parse` for JSON text; malformed, oversized or deeply nested JSON is a ConfigError too."""
    import json

    _check_shape(text)
    try:
        obj = json.loads(text)
    except ValueError as e:
        raise ConfigError("config", "not valid JSON (" + str(e) + ")")
    return parse(obj, base)
