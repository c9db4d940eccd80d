"""The lit board as SVG: lamp positions and labels from board.json, lamp
states from the simulator's JSON (`python -m sim run --svg FILE`)."""

import json
from xml.sax.saxutils import escape

SCALE = 1.5  # px per mm
LAMP_R = 8  # mm, drawn a little larger than the 12 mm lamps so colours read
FOOTER = 34  # mm under the panel for the caption


def _circle(x, y, r, attrs):
    return '<circle cx="%g" cy="%g" r="%g" %s/>' % (x, y, r, attrs)


def _half(x, y, sweep, color):
    # The left (sweep 0) or right (sweep 1) half of a lamp.
    r = LAMP_R
    return '<path d="M %g %g A %g %g 0 0 %d %g %g Z" fill="%s"/>' % (x, y - r, r, r, sweep, x, y + r, color)


def _lamp(parts, x, y, state):
    on, color, alt = state.get("on"), state.get("color", "#000000"), state.get("alt")
    if not on:
        parts.append(_circle(x, y, LAMP_R, 'fill="#1b1b1b" stroke="#555" stroke-width="0.8"'))
        return
    parts.append(_circle(x, y, LAMP_R * 1.7, 'fill="%s" opacity="0.35"' % color))
    if alt:  # flashing between two colours: draw both halves
        parts.append(_half(x, y, 0, color))
        parts.append(_half(x, y, 1, alt))
        parts.append(_circle(x, y, LAMP_R, 'fill="none" stroke="#fff" stroke-width="0.6"'))
    else:
        parts.append(_circle(x, y, LAMP_R, 'fill="%s" stroke="#fff" stroke-width="0.6"' % color))
    if state.get("blink"):
        parts.append(_circle(x, y, LAMP_R + 3, 'fill="none" stroke="#fff" stroke-width="1" stroke-dasharray="3 2"'))


def render(board, state):
    """SVG text for `board` (board.json as a dict) lit as `state` (the run JSON)."""
    width, height = board.get("panel_mm", [640, 330])
    total = height + FOOTER
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %g %g" font-family="sans-serif">'
        % (width * SCALE, total * SCALE, width, total),
        '<rect width="100%" height="100%" fill="#fff"/>',
        '<rect x="1" y="1" width="%g" height="%g" rx="8" fill="#0e5a32" stroke="#c9a14a" stroke-width="2"/>'
        % (width - 2, height - 2),
    ]
    lamps = state.get("lamps", {})
    for lamp in board["lamps"]:
        x, y = lamp["x"], lamp["y"]
        _lamp(parts, x, y, lamps.get(lamp["name"], {}))
        parts.append(
            '<text x="%g" y="%g" font-size="7" fill="#f0f0f0" text-anchor="middle">%s</text>'
            % (x, y + LAMP_R + 9, escape(lamp.get("label", lamp["name"])))
        )
    hand = state.get("hand", {})
    caption = "status %s  |  shooter %s  |  point %s  |  Fire Bet points %s  |  t = %s ms" % (
        state.get("status", "?"),
        hand.get("shooter", "?"),
        hand.get("point") or "OFF",
        ", ".join(str(n) for n in hand.get("fire_points", [])) or "none",
        state.get("t", "?"),
    )
    legend = "dashed ring: blinking  |  two-colour lamp: flashing white and its own state (a win)"
    parts.append('<text x="4" y="%g" font-size="9">%s</text>' % (height + 13, escape(caption)))
    parts.append('<text x="4" y="%g" font-size="7" fill="#555">%s</text>' % (height + 26, escape(legend)))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write(path, board_path, state):
    """Draw `state` on the board of `board_path` into the SVG file `path` (CommandError if it cannot)."""
    from sim.cli import read_text, write_text

    board = json.loads(read_text(board_path, "board description"))
    write_text(path, render(board, state), "SVG file")
