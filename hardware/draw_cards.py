# Draws the dealer's printable key-map card (keymap.svg) and the technician's lamp
# map (layout.svg) from board.json. Keys, roles, buttons and lamps all come from
# the data, and the status lamp's colours from the firmware's lamps module; this
# module holds only wording and geometry.

import os
import sys

import hwmodel as hw
from svgkit import Svg
from wiring_style import GROUP_FILL

_HERE = os.path.dirname(os.path.abspath(__file__))

# Each key role in plain dealer words: (short word on the key, fill colour).
ROLE_WORDS = {
    "die": ("DIE", "#e8f5e9"),
    "digit": ("PIN · COUNT", "#eeeeee"),
    "clear": ("CLEAR", "#fff9c4"),
    "enter": ("ENTER", "#fff9c4"),
    "undo": ("UNDO ★", "#ffcdd2"),
    "end_hand": ("END HAND ★", "#ffcdd2"),
    "lamp_test": ("LAMP TEST", "#e3f2fd"),
    "supervisor_pin": ("SUPERVISOR", "#e1bee7"),
}
BUTTON_WORDS = {
    "undo": "UNDO ★",
    "end_hand": "END HAND ★",
    "lamp_test": "LAMP TEST",
    "supervisor_key": "SUPERVISOR|KEY",
}


def keys_with(board, role):
    out = []
    for row in board["keypad"]["labels"]:
        out += [k for k in row if board["keys"][k] == role]
    return out


def wrap(text, width_mm, size):
    """Greedy word wrap for a text size in mm (sans-serif, average glyph width)."""
    limit = max(8, int(width_mm / (size * 0.56)))
    lines, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > limit:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word).strip()
    return lines + [cur] if cur else lines


def procedures(board):
    dice = keys_with(board, "die")
    digits = keys_with(board, "digit")
    k = {r: keys_with(board, r)[0] for r in ("clear", "enter", "undo", "end_hand", "lamp_test", "supervisor_pin")}
    return [
        (
            "ENTER A ROLL",
            "Two presses, one per die (%s–%s): %s then %s for a 7. Between them the status "
            "lamp shows 'roll half-entered'." % (dice[0], dice[-1], dice[2], dice[3]),
        ),
        ("CLEAR", "%s drops a half-entered roll (or a PIN being typed). Start again." % k["clear"]),
        (
            "REFUSED",
            "%s as a die, two keys at once, a half roll left about 10 s: status lamp ERROR, "
            "nothing else changes. Enter the roll again." % " ".join(digits),
        ),
        (
            "UNDO ★ / END HAND ★",
            "Supervisor first: turn the SUPERVISOR KEY on and keep it on, "
            "or press %s, type the PIN, press %s (status lamp: supervisor mode). Then press %s or UNDO to undo "
            "the last roll, or %s or END HAND when the shooter leaves. Both are recorded."
            % (k["supervisor_pin"], k["enter"], k["undo"], k["end_hand"]),
        ),
        (
            "PROGRESSIVE COUNT",
            "Open lamp green (meter open, cycle not begun): %s, game (1 MEA Progressive, 2 Fired Up), "
            "wagers 1–99, %s. %s 1 1 2 %s = twelve MEA wagers; the lamp turns blue."
            % (k["enter"], k["enter"], k["enter"], k["enter"]),
        ),
        (
            "LAMP TEST",
            "%s or the LAMP TEST button lights every lamp: report any lamp that stays dark." % k["lamp_test"],
        ),
    ]


def draw_keymap(board):
    s = Svg(210, 148, unit="mm", title="Dealer key card (generated from hardware/board.json)")
    s.rect(3, 3, 204, 142, rx=3, stroke="#222", stroke_width=0.5)
    s.text(8, 13, "DEALER KEY CARD", size=6.5, weight="bold")
    s.text(8, 18.5, "Craps side-bet marker board · ★ = needs supervisor key or PIN", size=3.2, fill="#333")
    kw, kh, gap, x0, y0 = 21, 14, 2.5, 8, 24
    for r, row in enumerate(board["keypad"]["labels"]):
        for c, lab in enumerate(row):
            role = board["keys"][lab]
            word, fill = ROLE_WORDS[role]
            x, y = x0 + c * (kw + gap), y0 + r * (kh + gap)
            s.rect(x, y, kw, kh, rx=2, fill=fill, stroke="#333", stroke_width=0.45)
            s.text(x + kw / 2, y + 7.6, lab, size=7, anchor="middle", weight="bold")
            s.text(x + kw / 2, y + 11.8, word, size=2.9, anchor="middle", fill="#222")
    yb = y0 + 4 * (kh + gap) + 4
    s.text(x0, yb, "BUTTONS AND KEYSWITCH", size=3.4, weight="bold")
    names = list(board["buttons"])
    for i, name in enumerate(names):
        cx = x0 + 11 + i * 23.5
        key = name == "supervisor_key"
        if key:
            s.rect(cx - 6, yb + 3, 12, 12, rx=1.5, fill="#e1bee7", stroke="#333", stroke_width=0.45)
            s.line(cx, yb + 5.5, cx, yb + 12.5, stroke="#333", stroke_width=1)
        else:
            s.circle(cx, yb + 9, 6, fill=ROLE_WORDS[name][1], stroke="#333", stroke_width=0.45)
        s.lines(cx, yb + 19.5, BUTTON_WORDS[name].split("|"), size=2.8, anchor="middle", weight="bold")
    px, py = 108, 27
    for n, (head, body) in enumerate(procedures(board), 1):
        s.text(px, py, "%d  %s" % (n, head), size=3.8, weight="bold")
        py = s.lines(px + 5, py + 4.6, wrap(body, 92, 3.2), size=3.2, gap=1.3) + 1.8
    # The status lamp's legend under the buttons: the procedures fill the right column.
    legend = status_legend() + [feed_fault_legend()]
    rows = (len(legend) + 1) // 2
    lx, ly = x0 + 2, yb + 26.5
    s.rect(lx - 2, ly - 1, 98, 8.6 + 3.6 * rows, rx=2, fill="#f5f5f5", stroke="#999", stroke_width=0.3)
    s.text(lx + 1, ly + 4.5, "STATUS LAMP  (check it before every entry)", size=3.6, weight="bold")
    for i, (meaning, rgb, looks) in enumerate(legend):
        x = lx + 1 + 44 * (i // rows)
        y = ly + 8.8 + 3.6 * (i % rows)
        s.circle(x + 1.5, y - 1.0, 1.4, fill=rgb, stroke="#333", stroke_width=0.3)
        s.text(x + 4.0, y, looks + " · " + meaning, size=2.8)
    return s.render()


# Indexed by entry.ST_* (a test holds them the same length as lamps.STATUS_COLOR).
STATUS_MEANINGS = ("ready", "half roll", "typing PIN", "supervisor", "refused", "restored: verify", "journal fault")


def feed_fault_legend():
    """The lamp-feed fault, shown over any status (docs/lamps.md), as a legend row."""
    status_legend()  # puts the firmware on the path
    from crapsboard.table import lamps

    return ("lamps unpowered", "#%06x" % lamps.RGB[lamps.FEED_FAULT_COLOR], "red blink")


def status_legend():
    """[(meaning, "#rrggbb", "yellow blink")] for the status lamp, read from the
    firmware's own lamp module so the card cannot drift from the board."""
    root = os.path.dirname(_HERE)
    for path in (os.path.join(root, "sim", "shims"), os.path.join(root, "firmware", "lib")):
        if path not in sys.path:
            sys.path.insert(0, path)
    from crapsboard.table import lamps

    names = {getattr(lamps, n): n[2:].lower() for n in dir(lamps) if n.startswith("C_")}
    blinks = {lamps.BLINK_NONE: "", lamps.BLINK_SLOW: " blink", lamps.BLINK_FAST: " fast blink"}
    return [
        (meaning, "#%06x" % lamps.RGB[color], names[color] + blinks[blink])
        for meaning, color, blink in zip(STATUS_MEANINGS, lamps.STATUS_COLOR, lamps.STATUS_BLINK)
    ]


LS, LX0, LY0 = 2.0, 70, 110  # layout.svg: px per mm, panel origin


def draw_layout(board):
    pw, ph = board["panel_mm"]
    r_mm = board["parts"]["lamp_diameter_mm"] / 2.0
    lamps = hw.lamps_by_pixel(board)
    feed_first = {first: name for name, first, _ in hw.feeds(board)}
    W, H = LX0 + pw * LS + 40, LY0 + ph * LS + 90
    s = Svg(W, H, title="Lamp layout (generated from hardware/board.json)")
    s.raw(
        '<defs><marker id="a" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" '
        'markerHeight="5" orient="auto"><path d="M0 0 L10 5 L0 10 z" fill="#888"/></marker></defs>'
    )
    s.text(
        30,
        38,
        "LAMP LAYOUT — %d × %s on a %d × %d mm panel" % (len(lamps), board["strip"]["type"], pw, ph),
        size=22,
        weight="bold",
    )
    s.text(
        30,
        62,
        "Seen from the front (dealer side); drilling from the back, mirror x. Millimetres from the "
        "panel's top-left corner. Generated from hardware/board.json.",
        size=12,
        fill="#444",
    )
    s.text(
        30,
        80,
        "Circle = lamp with its pixel index; bold = layout label; grey = logical name. "
        "Dashed line = chain order (DOUT → DIN). Red tag = power feed.",
        size=12,
        fill="#444",
    )

    def X(mm):
        return LX0 + mm * LS

    def Y(mm):
        return LY0 + mm * LS

    s.rect(X(0), Y(0), pw * LS, ph * LS, fill="#1b5e20", stroke="#111", stroke_width=2)
    for mm in range(0, pw + 1, 50):
        s.line(X(mm), Y(0), X(mm), Y(ph), stroke="#2e7d32", stroke_width=0.8)
        s.text(X(mm), Y(0) - 6, str(mm), size=10, anchor="middle", fill="#555")
    for mm in range(0, ph + 1, 50):
        s.line(X(0), Y(mm), X(pw), Y(mm), stroke="#2e7d32", stroke_width=0.8)
        s.text(X(0) - 6, Y(mm) + 4, str(mm), size=10, anchor="end", fill="#555")
    pts = [(X(lp["x"]), Y(lp["y"])) for lp in lamps]
    for a, b in zip(pts, pts[1:]):
        s.line(a[0], a[1], b[0], b[1], stroke="#81c784", stroke_width=1, stroke_dasharray="3 5", stroke_opacity=0.7)
    for lp, (x, y) in zip(lamps, pts):
        grp = lp["name"].split(".")[0]
        r = r_mm * LS
        s.circle(x, y, r, fill=GROUP_FILL.get(grp, "#fff"), stroke="#000", stroke_width=1.2)
        s.text(x, y + 4, lp["pixel"], size=11, anchor="middle", weight="bold")
        halo = {"stroke": "#1b5e20", "stroke_width": 4, "paint_order": "stroke"}
        s.text(x, y + r + 14, lp["label"], size=12, anchor="middle", weight="bold", fill="#fff", **halo)
        s.text(x, y + r + 26, lp["name"], size=10, anchor="middle", fill="#c8e6c9", family="monospace", **halo)
        if lp["pixel"] in feed_first:
            s.rect(x - r - 28, y - 9, 24, 16, rx=3, fill="#c62828", stroke="#fff", stroke_width=1)
            s.text(x - r - 16, y + 3, feed_first[lp["pixel"]], size=11, anchor="middle", fill="#fff", weight="bold")
    s.text(
        30,
        H - 40,
        "Chain: DATA enters at pixel 0 (%s) and runs in pixel order. Feeds: %s."
        % (lamps[0]["name"], "; ".join("%s → pixels %d–%d" % f for f in hw.feeds(board))),
        size=12,
    )
    s.text(
        30,
        H - 20,
        "Lamp Ø %g mm. Wiring: wiring.svg · pin table: pinout.md · parts: BOM.md." % board["parts"]["lamp_diameter_mm"],
        size=12,
        fill="#444",
    )
    return s.render()
