"""The lit board as terminal text: every lamp where hardware/board.json puts it.

Pure: (lamps from board.json, lamp states, size, clock) -> rich Text rows.
Rows keep the layout's order of lamp rows; columns scale its x positions. A
lit lamp shows as [label] on its colour, a dark one as a grey label, so the
state reads without colour too. A label that would run into its right-hand
neighbour is cut short; the board stays readable from 80 columns up.
"""

from rich.text import Text

from crapsboard.table.lamps import SLOW_BLINK_MS  # the JSON state says only "blinks"

DARK = "grey35"
MIN_WIDTH = 40


def panel_size(board):
    return board.get("panel_mm", [max(lamp["x"] for lamp in board["lamps"]) + 40, 0])


def lamp_rows(lamps, height):
    """Row index for each distinct y position, spread evenly over `height`."""
    ys = sorted({lamp["y"] for lamp in lamps})
    if len(ys) == 1 or height <= len(ys):
        return {y: min(i, height - 1) for i, y in enumerate(ys)}
    step = (height - 1) / (len(ys) - 1)
    return {y: round(i * step) for i, y in enumerate(ys)}


def lamp_text(lamp):
    """What a lamp shows: its label, with the puck's "ON " dropped (the row says it)."""
    label = lamp.get("label") or lamp["name"]
    return label[3:] if label.startswith("ON ") else label


def phase_color(state, t_ms):
    """The colour a lamp shows at time t_ms, or None when it is dark."""
    if not state or not state.get("on"):
        return None
    if state.get("blink") and (t_ms // SLOW_BLINK_MS) % 2:
        alt = state.get("alt")
        return alt if alt and alt != "#000000" else None
    return state["color"]


def _fit_row(cells, width):
    """Starts for one row's (centre, text) cells: centred where they fit, pushed
    right past a neighbour, pulled back left from the edge, cut only when the
    row is too full for all of them."""
    starts = []
    end = -2
    for centre, text in cells:  # push right
        start = max(0, centre - len(text) // 2, end + 2)
        starts.append(start)
        end = start + len(text) - 1
    limit = width
    for i in range(len(cells) - 1, -1, -1):  # pull left
        starts[i] = max(0, min(starts[i], limit - len(cells[i][1])))
        limit = starts[i] - 1  # the cell before must end one blank short of this start
    placed = []
    for i, (_, text) in enumerate(cells):  # cut what still overlaps
        room = (starts[i + 1] - 1 if i + 1 < len(cells) else width) - starts[i]
        placed.append((starts[i], text[: max(1, room)]))
    return placed


def layout_cells(board, width, height):
    """[(row, col, text, name)] for every lamp, in rows, left to right."""
    panel_w = panel_size(board)[0]
    rows = lamp_rows(board["lamps"], height)
    by_row = {}
    for lamp in board["lamps"]:
        text = " " + lamp_text(lamp) + " "  # room for the [ ] of a lit lamp
        centre = round(lamp["x"] / panel_w * (width - 1))
        by_row.setdefault(rows[lamp["y"]], []).append((centre, text, lamp["name"]))
    placed = []
    for row in sorted(by_row):
        cells = sorted(by_row[row])
        for (start, text), cell in zip(_fit_row([(c, t) for c, t, _ in cells], width), cells):
            placed.append((row, start, text, cell[2]))
    return placed


def _shown(text, lit):
    """A placed cell's text: [label] when lit, the label between spaces when dark."""
    if len(text) < 3:
        return text
    return "[" + text[1:-1] + "]" if lit else text


def render(board, states, width, height, t_ms):
    """The board as `height` rich Text lines of `width` cells."""
    by_row = [[] for _ in range(height)]
    for row, col, text, name in layout_cells(board, width, height):
        by_row[row].append((col, text, name))
    lines = []
    for cells in by_row:
        line = Text()
        for col, text, name in cells:
            if col >= width:
                continue
            line.append(" " * (col - len(line)))
            color = phase_color(states.get(name), t_ms)
            shown = _shown(text, color is not None)[: width - col]
            line.append(shown, ("bold black on " + color) if color else DARK)
        line.append(" " * (width - len(line)))
        lines.append(line)
    return lines
