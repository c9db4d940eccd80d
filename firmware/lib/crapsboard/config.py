# Operator configuration: which wagers are offered, their paytables, casino options.
#
# `parse` checks a whole JSON object before anything is built, so a bad key is
# refused with a message naming it and the configuration in force stays.
from crapsboard import paytables as pt

KEYS = ("offered", "paytables", "rebet_after_win", "supervisor_pin_sha256")
# A configuration of every key is ~500 bytes and two levels deep; anything far
# larger or deeper is refused before parsing, so the board's heap and the JSON
# parser's recursion are never at the mercy of the file.
MAX_BYTES = 4096
MAX_DEPTH = 8


class ConfigError(ValueError):
    def __init__(self, key, message):
        super().__init__(key + ": " + message)
        self.key = key


class Config:
    """A checked configuration. Build it with `parse`; treat it as read-only."""

    def __init__(self):
        self.offered = (1 << pt.WAGER_COUNT) - 1  # bitmask over wager indexes
        self.paytables: list = [pt.find(w, pt.DEFAULT_IDS[w]) for w in range(pt.WAGER_COUNT)]
        self.rebet_after_win = True
        self.supervisor_pin_sha256: str | None = None  # hex digest of the supervisor PIN, or None

    def is_offered(self, wager):
        return bool(self.offered & (1 << wager))


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


def _parse_pin_hash(value):
    if value is None:
        return None
    hexdigits = "0123456789abcdef"
    if not isinstance(value, str) or len(value) != 64 or any(c not in hexdigits for c in value):
        raise ConfigError("supervisor_pin_sha256", "must be 64 lowercase hex digits (sha256 of the PIN) or null")
    return value


def parse(obj, base=None):
    """A new Config from a JSON object; keys it lacks come from `base` or the defaults."""
    if not isinstance(obj, dict):
        raise ConfigError("config", "must be a JSON object")
    for key in obj:
        if key not in KEYS:
            raise ConfigError(str(key), "unknown key (known: " + ", ".join(KEYS) + ")")
    config = Config()
    if base is not None:
        config.offered = base.offered
        config.paytables = list(base.paytables)
        config.rebet_after_win = base.rebet_after_win
        config.supervisor_pin_sha256 = base.supervisor_pin_sha256
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
    if "supervisor_pin_sha256" in obj:
        config.supervisor_pin_sha256 = _parse_pin_hash(obj["supervisor_pin_sha256"])
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
