# The last band of wiring.svg: every part the BOM buys, every wire, every
# protective-earth bond and the mains circuit, so the drawing names all of
# them (tests/test_hardware_drawing.py fails when one is missing).

import hwbonds
import hwparts
import hwwires
from wiring_style import BLK, GRN, RED


def drawing_refs(board):
    """Every reference the drawing must name: each BOM line's refs, each wire."""
    rows = hwparts.parts_rows(board)
    return sorted(hwparts._covered(rows) | {w[0] for w in hwwires.wires(board)})


def draw_parts(s, board, y0):
    """Mains circuit, bonds, then the part and wire index in columns, from y0 down."""
    s.text(30, y0, "MAINS CIRCUIT (in E1, qualified electrician)", size=12, weight="bold", fill=RED)
    s.lines(
        30,
        y0 + 18,
        [
            "E5 cord → X1 inlet (switch, FU1) → L brown, N blue (W12) → PS1 L, N",
            "X1 PE → E1 earth stud → PS1 FG (W12 green/yellow); PS1 +V/−V → W0 → TB1/TB2",
        ],
        size=10,
    )
    s.text(760, y0, "PROTECTIVE-EARTH BONDS (each < 0.1 Ω to X1 PE)", size=12, weight="bold", fill=GRN)
    bonds = ["%s (%s) → %s (%s)" % b for b in hwbonds.BONDS]
    half = (len(bonds) + 1) // 2
    s.lines(760, y0 + 18, bonds[:half], size=10)
    s.lines(1240, y0 + 18, bonds[half:], size=10)
    y = y0 + 18 + 15 * half + 20
    s.text(30, y, "PARTS AND WIRES (BOM.md lines; every one is on this drawing)", size=12, weight="bold", fill=BLK)
    rows = ["%s: %s" % (r[0], str(r[2]).replace("**", "")[:34]) for r in hwparts.parts_rows(board)]
    rows += ["%s: %s" % (w[0], w[1][:34]) for w in hwwires.wires(board)]
    per = (len(rows) + 3) // 4
    for k in range(4):
        s.lines(30 + 420 * k, y + 18, rows[k * per : (k + 1) * per], size=9)
    return y + 18 + 13 * per
