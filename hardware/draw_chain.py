# The lower half of wiring.svg: the supply, fuse, rails, DevKitC power, the power
# feeds with the bulk capacitor, and the LED chain in pixel order.

import hwmodel as hw
from wiring_style import BLK, BX0, BX1, GRN, GROUP_FILL, PITCH, PY0, RED, YCHAIN, pin_y


def draw_power(s, board, b):
    p5, p0, px0 = 830, 880, 200
    pw = board["power"]
    s.rect(px0, p5 - 30, 190, 110, fill="#eef3ff", stroke=BLK, stroke_width=2)
    s.lines(
        px0 + 10,
        p5 - 8,
        [
            "PSU %g V %g A (%g W)" % (pw["supply_v"], pw["supply_a"], b["supply_w"]),
            "PS1 · mains in via X1:",
            "fused, earthed IEC inlet",
        ],
        size=11,
    )
    s.text(px0 + 180, p5 + 4, "+V", size=10, anchor="end", fill=RED)
    s.text(px0 + 180, p0 + 4 - 10, "−V", size=10, anchor="end", fill=BLK)
    fx = px0 + 190
    s.line(fx, p5, fx + 20, p5, stroke=RED, stroke_width=3)
    s.line(fx + 20, p5, fx + 66, p5, stroke=RED, stroke_width=3)
    s.line(fx + 66, p5, 920, p5, stroke=RED, stroke_width=3)
    branches = b["branches"]
    s.line(fx, p0 - 10, fx, p0, stroke=BLK, stroke_width=3)
    s.line(fx, p0, 920, p0, stroke=BLK, stroke_width=3)
    s.text(925, p5 + 4, "+5V", size=12, fill=RED, weight="bold")
    s.text(925, p0 + 4, "GND", size=12, fill=BLK, weight="bold")
    # DevKitC 5V pin through the Schottky diode.
    y5, xd = pin_y("J2", "5V"), 560
    s.path([(BX0 - 5, y5), (xd, y5), (xd, y5 + 20)], stroke=RED, stroke_width=2)
    s.path([(xd - 9, y5 + 48), (xd + 9, y5 + 48), (xd, y5 + 30), (xd - 9, y5 + 48)], fill="#fff", stroke=BLK)
    s.line(xd - 9, y5 + 30, xd + 9, y5 + 30, stroke=BLK, stroke_width=2)
    s.line(xd, y5 + 20, xd, y5 + 30, stroke=RED, stroke_width=2)
    s.line(xd, y5 + 48, xd, p5 - 30, stroke=RED, stroke_width=2)
    fuse(s, xd, p5 - 30, p5, "%s %gA" % (branches[-1][0], branches[-1][3]))
    s.dot(xd, p5)
    s.text(xd - 14, y5 + 44, "D1 " + board["parts"]["supply_diode"], size=10, anchor="end")
    yg = pin_y("J2", "GND")
    s.line(BX0 - 5, yg, BX0 - 25, yg)
    s.ground(BX0 - 25, yg)
    for name in ("GND",):
        for i, n in enumerate(hw.J3):
            if n == name:
                s.line(BX1 + 5, PY0 + PITCH * i, BX1 + 25, PY0 + PITCH * i)
                s.ground(BX1 + 25, PY0 + PITCH * i)
    # Injection taps.
    for i, (fname, first, _last) in enumerate(b["feeds"]):
        x = 640 + 110 * i
        s.dot(x, p5)
        s.dot(x + 30, p0)
        fuse(s, x, p5, p5 + 34, "%s %gA" % (branches[i][0], branches[i][3]))
        s.line(x, p5 + 34, x, p0 + 44, stroke=RED, stroke_width=2)
        s.line(x + 30, p0, x + 30, p0 + 44, stroke=BLK, stroke_width=2)
        s.text(x + 15, p0 + 60, fname, size=13, anchor="middle", weight="bold", fill=RED)
        s.text(x + 15, p0 + 74, "X%d → #%d" % (5 + i, first), size=10, anchor="middle")
        if True:  # each string's bulk capacitor across its input
            yc = p0 + 28
            s.dot(x, yc, 3)
            s.dot(x + 30, yc, 3)
            s.line(x, yc, x + 12, yc, stroke=RED)
            s.line(x + 12, yc - 8, x + 12, yc + 8, stroke=BLK, stroke_width=2.5)
            s.line(x + 18, yc - 8, x + 18, yc + 8, stroke=BLK, stroke_width=2.5)
            s.line(x + 18, yc, x + 30, yc)
            s.text(x + 7, yc - 10, "+", size=10, fill=RED, anchor="middle")
            s.text(
                x - 6, yc + 4, "%s %d µF" % (bulk_ref(board, i), board["parts"]["bulk_cap_uf"]), size=9, anchor="end"
            )


def bulk_ref(board, i):
    """The bulk capacitor at string i's input: C1, then those after the switch-line filters."""
    if i == 0:
        return "C1"
    nsw = len([1 for _, _, what in hw.switch_nets(board)])
    return "C%d" % (2 + nsw + i)


def fuse(s, x, y1, y2, label):
    """A vertical fuse between (x, y1) and (x, y2), labelled on its left."""
    s.line(x, y1, x, y1 + 6, stroke=RED, stroke_width=2)
    s.rect(x - 5, y1 + 6, 10, y2 - y1 - 12, fill="#fff", stroke=BLK)
    s.line(x, y2 - 6, x, y2, stroke=RED, stroke_width=2)
    s.text(x - 8, (y1 + y2) / 2 + 4, label, size=9, anchor="end")


def draw_chain(s, board, b):
    lamps = hw.lamps_by_pixel(board)
    feed_first = {first: name for name, first, _ in b["feeds"]}
    per, bw, bh, gap, y0 = 12, 108, 52, 18, YCHAIN
    s.text(
        130,
        y0 - 14,
        "LED CHAIN (%d × %s, %s, DOUT → DIN; %d pre-wired %d AWG strings; +5V not linked between strings)"
        % (len(lamps), board["strip"]["type"], board["strip"]["order"], len(b["strings"]), b["link_awg"]),
        size=13,
        weight="bold",
    )
    pos = []
    for lamp in lamps:
        r, c = divmod(lamp["pixel"], per)
        if r % 2:
            c = per - 1 - c
        pos.append((30 + c * (bw + gap), y0 + r * (bh + 32)))
    for (xa, ya), (xb, yb) in zip(pos, pos[1:]):
        if ya == yb:
            a, z = (xa + bw, xb) if xb > xa else (xa, xb + bw)
            s.line(a, ya + bh / 2, z, yb + bh / 2, stroke=GRN, stroke_width=2, marker_end="url(#arr)")
        else:
            s.line(xa + bw / 2, ya + bh, xb + bw / 2, yb, stroke=GRN, stroke_width=2, marker_end="url(#arr)")
    for lamp, (x, y) in zip(lamps, pos):
        grp = lamp["name"].split(".")[0]
        s.rect(x, y, bw, bh, rx=5, fill=GROUP_FILL.get(grp, "#fff"), stroke=BLK)
        s.text(x + 6, y + 18, "#%d" % lamp["pixel"], size=14, weight="bold")
        s.text(x + bw / 2, y + 40, lamp["name"], size=11, anchor="middle")
        if lamp["pixel"] in feed_first:
            s.rect(x + bw - 30, y + 4, 26, 16, rx=3, fill=RED, stroke="none")
            s.text(x + bw - 17, y + 16, feed_first[lamp["pixel"]], size=11, anchor="middle", fill="#fff", weight="bold")
