"""The lit board as SVG: lamp positions and labels from board.json, lamp
states from the simulator's JSON (`python -m sim run --svg FILE`).

Drawn with the project's one SVG writer (hardware/svgkit.py). Each lamp is a
group `<g id="lamp-NAME">`, so a reader (or a test) finds a lamp by name."""

import json

from hardware.svgkit import FONT, Svg

SCALE = 1.5  # px per mm
LAMP_R = 8  # mm, drawn a little larger than the 12 mm lamps so colours read
FOOTER = 34  # mm under the panel for the caption
DARK, DARK_RIM = "#1b1b1b", "#555"
LEGEND = "dashed ring: blinking  |  two-colour lamp: flashing white and its own state (a win)"


def _half(svg, x, y, sweep, color):
    # The left (sweep 0) or right (sweep 1) half of a lamp.
    r = LAMP_R
    svg.shape(("M", x, y - r, "A", r, r, 0, 0, sweep, x, y + r, "Z"), fill=color, stroke="none", stroke_width=None)


def _lamp(svg, x, y, state):
    on, color, alt = state.get("on"), state.get("color", "#000000"), state.get("alt")
    if not on:
        svg.circle(x, y, LAMP_R, fill=DARK, stroke=DARK_RIM, stroke_width=0.8)
        return
    svg.circle(x, y, LAMP_R * 1.7, fill=color, stroke="none", stroke_width=None, opacity=0.35)
    if alt:  # flashing between two colours: draw both halves
        _half(svg, x, y, 0, color)
        _half(svg, x, y, 1, alt)
        svg.circle(x, y, LAMP_R, fill="none", stroke="#fff", stroke_width=0.6)
    else:
        svg.circle(x, y, LAMP_R, fill=color, stroke="#fff", stroke_width=0.6)
    if state.get("blink"):
        svg.circle(x, y, LAMP_R + 3, fill="none", stroke="#fff", stroke_width=1, stroke_dasharray="3 2")


def caption(state):
    """The line under the board: status, shooter, point, Fire Bet points, time;
    a figure the state does not hold is left out, never shown as `?`."""
    hand = state.get("hand", {})
    parts = []
    if state.get("status") is not None:
        parts.append("status %s" % state["status"])
    if hand.get("shooter") is not None:
        parts.append("shooter %s" % hand["shooter"])
    if hand:
        parts.append("point %s" % (hand.get("point") or "OFF"))
        parts.append("Fire Bet points %s" % (", ".join(str(n) for n in hand.get("fire_points", [])) or "none"))
    if state.get("t") is not None:
        parts.append("t = %s ms" % state["t"])
    return "  |  ".join(parts)


def render(board, state):
    """SVG text for `board` (board.json as a dict) lit as `state` (the run JSON)."""
    width, height = board.get("panel_mm", [640, 330])
    svg = Svg(width, height + FOOTER, title="The lit board", scale=SCALE, family=FONT)
    svg.rect(1, 1, width - 2, height - 2, rx=8, fill="#0e5a32", stroke="#c9a14a", stroke_width=2)
    lamps = state.get("lamps", {})
    for lamp in board["lamps"]:
        x, y = lamp["x"], lamp["y"]
        with svg.group(id="lamp-" + lamp["name"]):
            _lamp(svg, x, y, lamps.get(lamp["name"], {}))
            svg.text(x, y + LAMP_R + 9, lamp.get("label", lamp["name"]), size=7, anchor="middle", fill="#f0f0f0")
    svg.text(4, height + 13, caption(state), size=9, id="caption")
    svg.text(4, height + 26, LEGEND, size=7, fill="#555", id="legend")
    return svg.render()


def write(path, board_path, state):
    """Draw `state` on the board of `board_path` into the SVG file `path` (CommandError if it cannot)."""
    from sim.cli import read_text, write_text

    board = json.loads(read_text(board_path, "board description"))
    write_text(path, render(board, state), "SVG file")
