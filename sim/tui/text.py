"""Text for the terminal simulator's panels: the hand, the key map, the events."""

import textwrap

from rich.text import Text

from sim.tui import bindings

SHORT = {
    "fire": "Fire",
    "all_small": "Small",
    "all_tall": "Tall",
    "make_em_all": "All",
    "mea_progressive": "MEA",
    "fired_up": "FiredUp",
}

ERRORS = {
    "not_a_die": "not a die face: use 1-6",
    "two_keys": "two keys at once",
    "timeout": "half-entered roll timed out",
    "roll_pending": "finish or clear the roll first",
    "not_authorised": "needs the supervisor (key, or D PIN #)",
    "nothing_to_undo": "nothing to undo",
    "no_pin": "no supervisor PIN is configured",
    "wrong_pin": "wrong PIN",
    "pin_locked": "PIN locked after wrong tries",
    "pin_too_long": "PIN too long",
    "unexpected_key": "that key does nothing here",
    "keyswitch_fault": "KEYSWITCH FAULT: both contacts or neither (check its leads)",
    "prog_count": "progressive count: # game(1 MEA, 2 Fired Up) 1-99 #, at most 99 a cycle",
    "prog_closed": "progressive closed or PENDING: no new progressive wager",
    "prog_window": "progressive wager not open now (its cycle has begun)",
}

VIA = {"key": "keyswitch", "pin": "PIN"}


def clock(ms):
    return "%02d:%04.1f" % (ms // 60000, (ms % 60000) / 1000)


def hand_line(state, runtime, keyswitch):
    hand = state["hand"]
    parts = ["shooter %d" % hand["shooter"], "point %s" % (hand["point"] or "OFF")]
    points = hand["fire_points"]
    parts.append(
        "Fire %d pt%s%s"
        % (len(points), "" if len(points) == 1 else "s", (" " + " ".join(map(str, points))) if points else "")
    )
    if state.get("pending"):
        parts.append("entering %s _" % state["pending"])
    if state.get("supervisor"):
        parts.append("SUPERVISOR")
    parts.append("key %s" % ("ON" if keyswitch else "off"))
    parts.append("%s %s" % (runtime, clock(state["t"])))
    status = state.get("status", "")
    line = Text(" " + " · ".join(parts) + "  ")
    line.append(" " + status.upper() + " ", "bold black on " + ("red" if status == "error" else "green"))
    return line


def progressive_line(state):
    """The floor's meters as the board states them, for the line under the
    board: "MEA $1,000.00 open, shared by winning wagers · FUP closed: why".
    A game the floor never spoke of and with no wagers keyed is left out."""
    from crapsboard.table.progressive import NO_WORD

    parts = []
    for game, p in (state.get("progressive") or {}).items():
        if p.get("closed") == NO_WORD and not p["wagers"]:
            continue
        text = "%s %s %s" % (game, p["amount"], p["state"])
        if p.get("pays") and p["state"] == "open":
            text += ", " + p["pays"]
        if p.get("closed"):
            text += ": " + p["closed"]
        if p["wagers"]:
            text += " (%d wager%s in action)" % (p["wagers"], "" if p["wagers"] == 1 else "s")
        parts.append(text)
    return " · ".join(parts)


def windows_text(config):
    """The betting windows in force (config: a crapsboard Config, None for the defaults)."""
    from crapsboard.rules import config as cfg

    config = config or cfg.Config()
    fire = {"until_point": "until a point", "first_roll": "before the first roll"}
    bonus = {"after_seven": "after a 7 only", "idle": "while unmarked"}
    return "Fire bets: %s\nBonus bets: %s" % (
        fire[cfg.FIRE_WINDOW_NAMES[config.fire_window]],
        bonus[cfg.BONUS_WINDOW_NAMES[config.bonus_window]],
    )


def keypad_panel(board, keyswitch, windows=None):
    labels = board["keypad"]["labels"]
    lines = []
    for row in labels:
        keys = " ".join("[%s]" % label for label in row)
        last = row[-1]
        lines.append("%s  %s %s" % (keys, bindings.shown_key(last), bindings.panel_role(board, last)))
    lines.append("dice · * clear/Esc · # enter")
    lines.append("buttons: " + " · ".join("%s %s" % (k, bindings.BUTTON_WORDS[n]) for k, _, n in bindings.BUTTON_KEYS))
    lines.append("k keyswitch: %s" % ("ON" if keyswitch else "off"))
    lines.append(
        " · ".join("%s %s" % (k, w) for k, a, w, _ in bindings.ACTION_KEYS if a in ("roll", "snapshot", "help"))
    )
    if windows:
        lines.append(windows)
    return Text("\n".join(lines))  # Text, not str: "[A]" is not markup


def _resolved_text(resolved):
    # The engine decided each outcome; this only words it.
    wins = []
    losses = []
    for r in resolved:
        if r["outcome"] == "loss":
            losses.append("%s %d" % (SHORT[r["wager"]], r["level"]))
            continue
        if r["outcome"] == "returned":
            wins.append("RETURNED %s: never in action, the stake back" % SHORT[r["wager"]])
            continue
        if r["outcome"] == "push":
            wins.append("PUSH %s %d: %s %s, the stake back" % (SHORT[r["wager"]], r["level"], r["pays"], r["unit"]))
            continue
        pays = "the meter" if r["pays"] == "meter" else str(r["pays"])
        text = "WIN %s %d pays %s %s" % (SHORT[r["wager"]], r["level"], pays, r["unit"])
        envy = r.get("envy")
        if envy:
            text += " + envy %s %s per %s" % (envy["amount"], envy["unit"], envy["per"])
        wins.append(text)
    lines = ["  " + w for w in wins]
    if losses:
        lines.append("  lost: " + ", ".join(losses))
    return lines


def event_text(event):
    """Lines for one event record of the app (crapsboard/table/events.py)."""
    kind = event["event"]
    head = "%s #%d " % (clock(event["t"]), event["seq"])
    if kind == "roll":
        d1, d2 = event["dice"]
        lines = [head + "roll %d-%d = %d, point %s" % (d1, d2, event["total"], event["point"] or "OFF")]
        if any(r["wager"] == "fire" and r["level"] < 6 for r in event["resolved"]):
            lines.append("  seven-out: shooter %d comes out" % event["shooter"])
        return lines + _resolved_text(event["resolved"])
    if kind == "error":
        return [head + "ERROR " + ERRORS.get(event["reason"], event["reason"])]
    if kind == "undo":
        undid = event["undid"]
        what = "roll %d-%d" % tuple(undid["dice"]) if undid["event"] == "roll" else "end hand"
        lines = [
            head
            + "undo (%s) · back to roll %d, point %s · took back #%d %s"
            % (VIA.get(event["via"], event["via"]), event["rolls"], event["point"] or "OFF", undid["seq"], what)
        ]
        return lines + ["  reversed: " + text.strip() for text in _resolved_text(event["reversed"])]
    if kind == "end_hand":
        return [
            head + "end hand (%s) · shooter %d" % (VIA.get(event["via"], event["via"]), event["shooter"])
        ] + _resolved_text(event["resolved"])
    if kind == "supervisor_on":
        return [head + "supervisor on (%s)" % VIA.get(event["via"], event["via"])]
    if kind == "supervisor_off":
        return [head + "supervisor off"]
    if kind == "clear":
        return [head + "cleared the half-entered roll (%s)" % event["die"]]
    return [head + kind.replace("_", " ")]


def event_lines(events, rows, width):
    """The newest events that fit in `rows` lines, oldest first, errors and wins coloured."""
    lines = []
    for event in reversed(events):
        block = []
        for text in event_text(event):
            block += textwrap.wrap(text, width, subsequent_indent="    ") or [""]
        if len(lines) + len(block) > rows:
            break
        lines = block + lines
    out = Text()
    for i, line in enumerate(lines):
        style = "bold red" if "ERROR" in line else "bold green" if line.startswith("  WIN") else ""
        out.append(line + ("\n" if i + 1 < len(lines) else ""), style)
    return out if lines else Text("no events yet: enter a roll (two presses, 1-6)", "dim")


# What the events pane's wager names stand for (SHORT's values), for the help.
WAGER_NAMES = {
    "fire": "Fire Bet",
    "all_small": "All Small",
    "all_tall": "All Tall",
    "make_em_all": "Make 'Em All",
    "mea_progressive": "Make 'Em All Progressive",
    "fired_up": "Fired Up Progressive",
}


def events_legend():
    """The help's lines on reading the events pane: the wagers' short names,
    what the number after one is, and why "lost: FiredUp 0" comes so often."""
    names = " · ".join("%s = %s" % (SHORT[w], WAGER_NAMES[w]) for w in SHORT)
    return [
        "Events: each roll, then what it resolved: WIN / PUSH / RETURNED / lost, the",
        "wager and its level (Fire: points made; Small, Tall, All, MEA: numbers marked;",
        "FiredUp: matching rolls).",
        "  " + names,
        '"lost: FiredUp 0": a roll that starts no Fired Up sequence while Fired Up is',
        "idle ends its cycle at level 0. The board cannot see chips, so every cycle's",
        "end is reported for whatever was bet (docs/rules.md). A 7 does the same for",
        "Small, Tall, All and MEA.",
    ]


def help_text(board):
    return Text(
        "\n".join(
            [
                "Craps side-bet marker board - simulator",
                "",
                "The keyboard is the dealer's keypad. A roll is two presses, one per die (1-6).",
                *bindings.help_lines(board),
                "",
                *events_legend(),
                "",
                "Lamps: lit = label on its colour; dark = grey. Colours and blinks: docs/lamps.md.",
                "Layout: %d lamps placed as hardware/board.json puts them." % len(board["lamps"]),
                "",
                "Up/Down scroll; Esc or q closes this help.",
            ]
        )
    )


def too_small(width, height, min_cols, min_rows):
    return Text(
        "The terminal is %dx%d; the board needs at least %dx%d.\nMake the window larger, or press q to quit."
        % (width, height, min_cols, min_rows),
        "bold yellow",
    )
