"""The terminal board's keyboard, in one table.

The key handling, the footer, the key panel and the help screen are all made
from the tables below; what a keypad key does comes from board.json's roles,
in the words of ROLE_WORDS (the printed key card, hardware/draw_cards.py, is
held to the same words by tests/test_tui.py).
"""

# Computer key (textual's name) -> keypad label. Digits, * and # are themselves;
# Esc and Enter are the * and # a keyboard user reaches for.
KEYPAD_KEYS = {str(d): str(d) for d in range(10)}
KEYPAD_KEYS.update({"asterisk": "*", "escape": "*", "number_sign": "#", "enter": "#"})
KEYPAD_KEYS.update({letter.lower(): letter for letter in "ABCD"})

# The buttons beside the keypad: (computer key, key-script token, button name).
BUTTON_KEYS = (("u", "btn:undo", "undo"), ("e", "btn:end", "end_hand"), ("t", "btn:test", "lamp_test"))

# The simulator's own keys: (computer key as shown, action, footer word, help text).
ACTION_KEYS = (
    ("k", "keyswitch", "key", "turn the supervisor keyswitch on or off"),
    ("r", "roll", "roll", "auto-roll: two random dice (--seed makes them repeatable)"),
    ("s", "snapshot", "svg", "save an SVG snapshot of the board in the current folder"),
    ("?", "help", "help", "this help (also h, F1)"),
    ("q", "quit", "quit", "quit"),
)
ACTION_NAMES = {"k": "keyswitch", "r": "roll", "s": "snapshot", "question_mark": "help", "f1": "help", "h": "help"}

# A keypad role in words: (footer word, panel and help wording).
ROLE_WORDS = {
    "die": ("dice", "die"),
    "digit": ("", "refused as dice (the status lamp shows the error)"),
    "clear": ("clear", "clear a half-entered roll"),
    "enter": ("", "enter (ends a PIN)"),
    "undo": ("undo", "undo the last roll (needs the supervisor)"),
    "end_hand": ("end", "end hand: shooter leaves (needs the supervisor)"),
    "lamp_test": ("test", "lamp test"),
    "supervisor_pin": ("PIN", "supervisor by PIN: then the PIN, then enter"),
}
BUTTON_WORDS = {"undo": "undo", "end_hand": "end", "lamp_test": "test"}


def key_tokens():
    """Computer key -> key-script token, for every key that presses something on the board."""
    tokens = dict(KEYPAD_KEYS)
    tokens.update({key: token for key, token, _ in BUTTON_KEYS})
    return tokens


def shown_key(label):
    """How the help and panels name the computer key for a keypad label."""
    return label.lower() if label in "ABCD" else label


def _labels_by_role(board):
    out = {}
    for row in board["keypad"]["labels"]:
        for label in row:
            out.setdefault(board["keys"][label], []).append(label)
    return out


def footer(board):
    """One line: the dice keys, each role key and each simulator key, in words."""
    by_role = _labels_by_role(board)
    dice = by_role.get("die", [])
    parts = ["%s-%s dice" % (dice[0], dice[-1])] if dice else []
    for role in ("clear", "undo", "end_hand", "lamp_test", "supervisor_pin"):
        for label in by_role.get(role, []):
            parts.append("%s %s" % (shown_key(label), ROLE_WORDS[role][0]))
    parts += ["%s %s" % (key, word) for key, _, word, _ in ACTION_KEYS]
    return " " + "  ".join(parts)


def panel_role(board, label):
    """The short word beside a keypad row's last key in the key panel."""
    role = board["keys"].get(label, "")
    return ROLE_WORDS[role][0] if role in ROLE_WORDS and ROLE_WORDS[role][0] else role


def help_lines(board):
    """The help screen's key lines."""
    by_role = _labels_by_role(board)
    lines = []
    for role, (_, words) in ROLE_WORDS.items():
        labels = by_role.get(role, [])
        if role == "die" or not labels:
            continue
        keys = " ".join(shown_key(label) for label in labels)
        if role == "clear":
            keys += " or Esc"
        elif role == "enter":
            keys += " or Enter"
        lines.append("  %-12s %s" % (keys, words))
    buttons = " / ".join(key for key, _, _ in BUTTON_KEYS)
    names = " / ".join(BUTTON_WORDS[name] for _, _, name in BUTTON_KEYS)
    lines.append("  %-12s the %s buttons" % (buttons, names))
    lines += ["  %-12s %s" % (key, text) for key, _, _, text in ACTION_KEYS]
    return lines
