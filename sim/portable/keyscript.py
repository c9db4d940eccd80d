# Key scripts for the simulator: "3 4 6 6 key:on undo wait:500" -> steps.
#
# Shared by CPython and MicroPython. Tokens are separated by spaces; see
# docs/keys.md. A step is (kind, bits, ms): press `bits` (input bitmap, as
# keypad.py numbers it) for `ms`; wait `ms`; or set the keyswitch on/off.
# Scripts are walked token by token, never held as a list.
from crapsboard.table import keypad
from crapsboard.table import layout as lay

PRESS = 0
WAIT = 1
KEYSWITCH = 2  # bits: KEY_OFF, KEY_ON, or a changeover switch's faults KEY_BOTH, KEY_NEITHER
CHATTER = 3  # bits start flipping every `ms` (0: stop)
FLOOR = 4  # the floor's `progressive` request: bits rule << 3 | game << 2 | state, ms the meter in cents
KEYSWITCH_INPUT = -1  # CHATTER's bits for the keyswitch, whose bit the app owns
MIN_CHATTER_MS = 1
KEY_OFF = 0
KEY_ON = 1
KEY_BOTH = 2  # both contacts closed: a shorted lead
KEY_NEITHER = 3  # neither closed: a broken lead
_KEY_TOKENS = {"key:off": KEY_OFF, "key:on": KEY_ON, "key:both": KEY_BOTH, "key:neither": KEY_NEITHER}

PRESS_MS = 80  # a plain key press lasts this long...
GAP_MS = 120  # ...then every press and keyswitch turn is followed by this pause
MAX_MS = 3600000

# Readable names for keypad roles and buttons.
ALIASES = {
    "clear": "clear",
    "enter": "enter",
    "undo": "undo",
    "end": "end_hand",
    "end_hand": "end_hand",
    "test": "lamp_test",
    "lamp_test": "lamp_test",
    "pin": "supervisor_pin",
    "supervisor_pin": "supervisor_pin",
}
HELP = (
    "keys: 0-9 * # A-D, clear enter undo end test pin, btn:undo btn:end btn:test;"
    " also K+K, hold:K:MS, wait:MS, key:on, key:off, key:both, key:neither, chatter:K:MS, chatter:K:off,"
    " floor:GAME:STATE:CENTS[:RULE]"
)
_FLOOR_GAMES = ("mea", "fup")
_FLOOR_STATES = ("closed", "open", "locked", "pending")
_FLOOR_RULES = ("", "shared", "positional")  # 0: not said (an older gateway); else progressive.RULES + 1


class KeyScriptError(ValueError):
    pass


def _bad(token, message):
    return KeyScriptError("token " + repr(token) + ": " + message)


def _ms(text, token):
    if not text or not all(c in "0123456789" for c in text) or int(text) > MAX_MS:
        raise _bad(token, repr(text) + " is not a time in ms (0-" + str(MAX_MS) + ")")
    return int(text)


def _key(name, token, layout):
    """The input bit of one key name: a keypad label, an alias or btn:NAME."""
    low = name.lower()
    if low.startswith("btn:"):
        button = ALIASES.get(low[4:], low[4:])
        if button in lay.BUTTONS and button != "supervisor_key":
            index = lay.BUTTONS.index(button)
            if layout.button_pins[index] is not None:
                return 1 << (keypad.BUTTON_SHIFT + index)
        raise _bad(token, "no button " + repr(name[4:]) + " (btn:undo, btn:end, btn:test)")
    index = layout.key_index(name.upper() if len(name) == 1 else name)
    if index < 0 and low in ALIASES:
        index = layout.role_index(ALIASES[low])
    if index < 0:
        raise _bad(token, "unknown key " + repr(name) + " (" + HELP + ")")
    return 1 << index


def _keys(text, token, layout):
    bits = 0
    for name in text.split("+"):
        bit = _key(name, token, layout)
        if bits & bit:
            raise _bad(token, repr(name) + " twice")
        bits |= bit
    return bits


def tokens(text):
    """The tokens of a script, one at a time (no list: scripts can be long)."""
    start = -1
    for i in range(len(text)):
        if text[i] in " \t\r\n":
            if start >= 0:
                yield text[start:i]
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        yield text[start:]


def _chatter(token, layout):
    """chatter:KEY:MS starts KEY (a key, btn:NAME or keyswitch) flipping every
    MS; chatter:KEY:off stops it. A faulty contact, for testing the debouncer."""
    colon = token.rfind(":")
    name = token[8:colon]
    if colon <= 8 or not name:
        raise _bad(token, "write chatter:KEY:MS or chatter:KEY:off")
    period = token[colon + 1 :]
    ms = 0 if period.lower() == "off" else _ms(period, token)
    if period.lower() != "off" and ms < MIN_CHATTER_MS:
        raise _bad(token, "a chatter period is at least 1 ms")
    if name.lower() in ("key", "keyswitch"):
        if layout.button_pins[lay.BUTTONS.index("supervisor_key")] is None:
            raise _bad(token, "this board has no supervisor keyswitch")
        return (CHATTER, KEYSWITCH_INPUT, ms)
    return (CHATTER, _key(name, token, layout), ms)


def _floor(token, low):
    """floor:GAME:STATE:CENTS[:RULE], the floor's `progressive` request as the
    table's gateway sends it over the link (docs/progressive.md): MEA or FUP;
    closed, open, locked or pending; the meter in cents; the pay rule, shared
    or positional (left out: not said)."""
    parts = low.split(":")
    if len(parts) == 4:
        parts.append("")
    if len(parts) != 5 or parts[1] not in _FLOOR_GAMES or parts[2] not in _FLOOR_STATES or parts[4] not in _FLOOR_RULES:
        raise _bad(
            token,
            "write floor:GAME:STATE:CENTS[:RULE] (GAME MEA or FUP; STATE closed, open, locked or pending;"
            " RULE shared or positional)",
        )
    if not parts[3].isdigit() or len(parts[3]) > 12:
        raise _bad(token, "the meter is a whole number of cents")
    bits = _FLOOR_RULES.index(parts[4]) << 3 | _FLOOR_GAMES.index(parts[1]) << 2 | _FLOOR_STATES.index(parts[2])
    return (FLOOR, bits, int(parts[3]))


def step(token, layout):
    """The step of one token; KeyScriptError names a bad one."""
    low = token.lower()
    if low.startswith("wait:"):
        return (WAIT, 0, _ms(token[5:], token))
    if low.startswith("hold:"):
        colon = token.rfind(":")
        if colon <= 5:
            raise _bad(token, "write hold:KEY:MS")
        return (PRESS, _keys(token[5:colon], token, layout), _ms(token[colon + 1 :], token))
    if low.startswith("chatter:"):
        return _chatter(token, layout)
    if low.startswith("floor:"):
        return _floor(token, low)
    if low in _KEY_TOKENS:
        if layout.button_pins[lay.BUTTONS.index("supervisor_key")] is None:
            raise _bad(token, "this board has no supervisor keyswitch")
        if _KEY_TOKENS[low] > KEY_ON and layout.button_pins[-1] is None:
            raise _bad(token, "this board's keyswitch has one contact: key:on or key:off")
        return (KEYSWITCH, _KEY_TOKENS[low], 0)
    if low.startswith("key:"):
        raise _bad(token, "the keyswitch is key:on or key:off (key:both, key:neither: a faulty changeover switch)")
    return (PRESS, _keys(token, token, layout), PRESS_MS)


def check(text, layout):
    """Raise KeyScriptError for the first bad token of the script."""
    for token in tokens(text):
        step(token, layout)


def steps(text, layout):
    """The steps of a script, one at a time; check() it first."""
    for token in tokens(text):
        yield step(token, layout)
