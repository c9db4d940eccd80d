# Draws hardware/wiring.svg from board.json: the DevKitC headers, level shifter and
# LED chain, keypad, buttons, keyswitch, supply and power injection.
# Every pin number, value and lamp comes from the board data; only geometry is here.

import hwlines as hl
import hwmodel as hw
from draw_chain import draw_chain, draw_power
from draw_parts import draw_parts
from draw_tables import draw_tables
from svgkit import Svg
from wiring_style import (
    BLK,
    BLU,
    BUTTON_KEY,
    BX0,
    BX1,
    GRN,
    ORG,
    PITCH,
    PUR,
    PY0,
    RED,
    YCHAIN,
    YPARTS,
    YTABLES,
    H,
    W,
    gpio_y,
)


def header_label(name):
    if name.startswith("IO"):
        g = int(name[2:])
        return "GPIO%d" % g if name not in hw.SILK else "%s (GPIO%d)" % (hw.SILK[name], g)
    return name


def draw_devkit(s, used):
    s.rect(BX0, PY0 - 40, BX1 - BX0, PITCH * 18 + 80, rx=8, fill="#f5f5f0", stroke=BLK, stroke_width=2)
    s.rect(BX0 + 70, PY0 - 36, BX1 - BX0 - 140, 26, fill="#d7d7d0", stroke="#888")
    s.text((BX0 + BX1) / 2, PY0 - 18, "ESP32-WROVER-E, 8 MB PSRAM (antenna)", size=10, anchor="middle")
    s.rect((BX0 + BX1) / 2 - 22, PY0 + PITCH * 18 + 22, 44, 18, fill="#ccc", stroke="#888")
    s.text((BX0 + BX1) / 2, PY0 + PITCH * 18 + 35, "USB", size=10, anchor="middle")
    s.text((BX0 + BX1) / 2, PY0 - 52, "ESP32-DevKitC-VE (U2)", size=16, anchor="middle", weight="bold")
    for hdr, pins, x, sign in (("J2", hw.J2, BX0, 1), ("J3", hw.J3, BX1, -1)):
        s.text(x + sign * 14, PY0 - 50 + 64 * 0, hdr, size=11, anchor="middle", weight="bold")
        for i, name in enumerate(pins):
            y = PY0 + PITCH * i
            g = int(name[2:]) if name.startswith("IO") else None
            colour, weight = "#666", None
            if g in hw.FLASH or g in hw.PSRAM:
                colour = "#aaa"
            elif g in hw.STRAPPING:
                colour = ORG
            if g in used or name in ("3V3", "5V", "GND"):
                colour, weight = "#000", "bold"
            s.rect(x - 5, y - 5, 10, 10, fill="#c9a227", stroke="#7a5d00", stroke_width=1)
            label = "%d  %s" % (i + 1, header_label(name))
            if g in hw.PSRAM:
                label = "%d  NC (GPIO%d: PSRAM)" % (i + 1, g) if sign > 0 else "NC (GPIO%d: PSRAM)  %d" % (g, i + 1)
            s.text(
                x + sign * 12, y + 4, label, size=11, anchor="start" if sign > 0 else "end", fill=colour, weight=weight
            )


def draw_rows(s, board):
    ohm = board["parts"]["row_series_ohm"]
    ref = hl.refs(board)
    for net, g, conn, kind in hw.keypad_nets(board):
        if kind != "row":
            continue
        y = gpio_y(g)
        s.resistor(BX0 - 90, y, BX0 - 5, "%s %s" % (ref["series:" + net], hw.ohms(ohm)), stroke=BLU)
        s.line(BX0 - 100, y, BX0 - 90, y, stroke=BLU)
        s.tag(BX0 - 100, y, "X2-%d · %s" % (conn, net), BLU, side="left")


def draw_key(s, board):
    b = board["buttons"]["supervisor_key"]
    y = gpio_y(b["pin"])
    xj = 300
    s.line(BX0 - 5, y, xj, y, stroke=PUR)
    s.dot(xj, y)
    s.vresistor(xj, y, y - 60, "%s %s" % (hl.refs(board)["pullup:KEY_ON"], hw.ohms(board["parts"]["input_pullup_ohm"])))
    s.rail_flag(xj, y - 60, "3V3", ORG)
    switch(s, xj, y, 170, y, PUR)
    s.ground(150, y)
    s.lines(
        100,
        y + 46,
        [
            "SUPERVISOR KEYSWITCH %s (changeover)" % hl.refs(board)["switch:supervisor_key"],
            "NO: KEY_ON GPIO%d, closed = on" % b["pin"],
            "NC: KEY_OFF GPIO%d (X3-%d), closed = off" % (b["nc_pin"], _x3_pin(board, "KEY_OFF")),
        ],
        size=11,
        weight="bold",
    )


def switch(s, x1, y1, x2, y2, colour):
    """Normally-open contact between two points (horizontal or vertical)."""
    if y1 == y2:
        a, b = max(x1, x2), min(x1, x2)
        s.line(a, y1, a - 25, y1, stroke=colour)
        s.dot(a - 25, y1, 3)
        s.line(a - 25, y1, b + 25, y1 - 14, stroke=BLK)
        s.dot(b + 25, y1, 3)
        s.line(b + 25, y1, b - 20, y1, stroke=colour)
    else:
        s.line(x1, y1, x1, y1 + 12, stroke=colour)
        s.dot(x1, y1 + 12, 3)
        s.line(x1, y1 + 12, x1 + 14, y2 - 12, stroke=BLK)
        s.dot(x1, y2 - 12, 3)
        s.line(x1, y2 - 12, x1, y2, stroke=BLK)


def _x3_pin(board, net):
    for cref, _, pins in hl.connectors(board):
        if net in pins and cref == "X3":
            return pins.index(net) + 1
    raise ValueError(net)


def draw_left_stubs(s, board):
    """Lines on the left header other than the rows and KEY_ON: switch contacts
    (their parts in the X3 table below) and the eFuse FAULT flags."""
    for net, g, _ in hw.switch_nets(board):
        if net == "KEY_ON" or not hw.header_pin(g).startswith("J2"):
            continue
        y = gpio_y(g)
        s.line(BX0 - 5, y, BX0 - 30, y, stroke=PUR)
        s.tag(BX0 - 30, y, "X3-%d · %s" % (_x3_pin(board, net), net), PUR, side="left")
    ref = hl.refs(board)
    for net, g, efuse, feed in hw.fault_nets(board):
        y = gpio_y(g)
        s.line(BX0 - 5, y, BX0 - 90, y, stroke=RED)
        s.tag(BX0 - 90, y, "%s FAULT · %s (%s↑) · feed %s" % (efuse, net, ref["pullup:" + net], feed), RED, side="left")


def draw_buttons(s, board):
    """The switch contacts on the right header, each with its pull-up and contact."""
    nets = [(net, g) for net, g, _ in hw.switch_nets(board) if net != "KEY_ON" and hw.header_pin(g).startswith("J3")]
    nets.sort(key=lambda n: (gpio_y(n[1]) >= 400, -gpio_y(n[1])))
    k = hw.ohms(board["parts"]["input_pullup_ohm"])
    ref = hl.refs(board)
    names = {"SW_" + n.upper(): n for n in board["buttons"]}
    for i, (net, g) in enumerate(nets):
        name = names.get(net, "supervisor_key")
        y, xc = gpio_y(g), 1240 + 125 * i
        yj = max(400, y)  # a contact on a low header pin hangs from its own row
        s.path([(BX1 + 5, y), (xc, y), (xc, yj)], stroke=PUR)
        s.dot(xc, yj)
        s.line(xc, yj, xc + 10, yj)
        s.resistor(xc + 10, yj, xc + 56, "%s %s" % (ref["pullup:" + net], k), below=True)
        s.rail_flag(xc + 56, yj, "3V3", ORG)
        switch(s, xc, yj, xc, yj + 50, PUR)
        s.ground(xc, yj + 50)
        key = BUTTON_KEY.get(name)
        s.lines(
            xc,
            yj + 86,
            [
                (name.upper().replace("_", " ") if net != "KEY_OFF" else "KEY NC") + " " + ref["switch:" + name],
                "%s · X3-%d" % (net, _x3_pin(board, net)),
                "GPIO%d" % g,
                "(= key %s)" % key if key else ("closed = off" if net == "KEY_OFF" else ""),
            ],
            size=11,
            anchor="middle",
            weight="bold",
        )


def draw_keypad(s, board):
    kp = board["keypad"]
    x0, y0, pitch = 1000, 650, 20
    s.rect(x0, y0, 540, 170, rx=6, fill="#fafafa", stroke=BLK, stroke_width=2)
    s.text(x0 + 10, y0 + 162, "4×4 MEMBRANE KEYPAD KP1 — X2 pins 1–8 left to right", size=11, weight="bold")
    nets = hw.keypad_nets(board)
    cols = [n for n in nets if n[3] == "col"]
    for net, g, conn, kind in nets:
        x = x0 + pitch * conn
        s.rect(x - 5, y0 - 5, 10, 10, fill="#c9a227", stroke="#7a5d00", stroke_width=1)
        s.text(x, y0 + 20, str(conn), size=10, anchor="middle")
        s.text(x, y0 + 32 + 12 * (conn % 2), net, size=10, anchor="middle", fill=BLU if kind == "row" else GRN)
        if kind == "row":
            yt = y0 - 25 - 18 * (conn - 1)
            s.line(x, y0 - 5, x, yt, stroke=BLU)
            s.tag(x, yt, "%s ← GPIO%d (%s)" % (net, g, hw.header_pin(g)), BLU, side="left")
        else:
            s.path([(BX1 + 5, gpio_y(g)), (x, gpio_y(g)), (x, y0 - 5)], stroke=GRN)
            s.text(BX1 + 120 + 0 * len(cols), gpio_y(g) - 4, "%s · pin %d" % (net, conn), size=10, fill=GRN)
    kx, ky, ks = x0 + 230, y0 + 8, 34
    for r, row in enumerate(kp["labels"]):
        s.text(kx - 10, ky + r * ks + 22, "ROW%d" % (r + 1), size=10, anchor="end", fill=BLU)
        for c, lab in enumerate(row):
            s.rect(kx + c * ks * 1.6, ky + r * ks, ks * 1.6 - 6, ks - 6, rx=4, fill="#fff", stroke="#555")
            s.text(kx + c * ks * 1.6 + ks * 0.8 - 3, ky + r * ks + 20, lab, size=14, anchor="middle", weight="bold")
    for c in range(4):
        s.text(kx + c * ks * 1.6 + ks * 0.8 - 3, ky + 4 * ks + 8, "COL%d" % (c + 1), size=10, anchor="middle", fill=GRN)
    s.lines(
        x0 + 10,
        y0 + 70,
        [
            "Rows: open-drain, pulled low",
            "one at a time. Columns: inputs,",
            "%s pull-ups at X2; wait" % hw.ohms(board["parts"]["column_pullup_ohm"]),
            "%d µs after each row." % kp["settle_us"],
        ],
        size=11,
    )


def draw_data_path(s, board):
    st, parts = board["strip"], board["parts"]
    y = gpio_y(st["pin"])
    xj, ux0, ux1 = 540, 320, 470
    s.line(BX0 - 5, y, ux1, y, stroke=GRN, stroke_width=2.5)
    s.dot(xj, y)
    ref = hl.refs(board)
    s.vresistor(xj, y, y + 60, "%s %s" % (ref["pulldown"], hw.ohms(parts["data_pulldown_ohm"])), left=True)
    s.ground(xj, y + 60)
    s.rect(ux0, y - 30, ux1 - ux0, 120, fill="#fffbe6", stroke=BLK, stroke_width=2)
    s.text((ux0 + ux1) / 2, y + 40, "U1 " + parts["level_shifter"], size=12, anchor="middle", weight="bold")
    s.text((ux0 + ux1) / 2, y + 56, "3.3 V → 5 V buffer", size=10, anchor="middle")
    s.text(ux1 - 4, y - 4, "2 1A", size=10, anchor="end")
    s.text(ux0 + 4, y - 4, "1Y 3", size=10)
    s.text((ux0 + ux1) / 2, y - 16, "14 VCC", size=10, anchor="middle")
    s.line((ux0 + ux1) / 2, y - 30, (ux0 + ux1) / 2, y - 40, stroke=RED)
    s.rail_flag((ux0 + ux1) / 2, y - 40, "+5V", RED)
    for x, lab in ((ux0 + 35, "1 1OE"), (ux1 - 35, "7 GND")):
        s.text(x, y + 84, lab, size=10, anchor="middle")
        s.ground(x, y + 90)
    s.lines(
        ux0 - 10,
        y + 132,
        [
            "Unused gates: inputs 5, 9, 12 to GND;",
            "OE 4, 10, 13 to +5V.",
            "C2 %d nF from VCC to GND at U1." % parts["decoupling_nf"],
        ],
        size=10,
    )
    xd, ytop = 84, YCHAIN
    s.path([(ux0, y), (xd, y), (xd, y + 50)], stroke=GRN, stroke_width=2.5)
    s.vresistor(xd, y + 50, y + 130, "%s %s" % (ref["series"], hw.ohms(parts["data_series_ohm"])), stroke=GRN)
    s.line(xd, y + 130, xd, ytop - 8, stroke=GRN, stroke_width=2.5)
    s.path([(xd - 6, ytop - 16), (xd, ytop - 6), (xd + 6, ytop - 16)], stroke=GRN, stroke_width=2.5)
    s.text(
        xd + 8,
        ytop - 40,
        "DATA via X4 → DIN of pixel 0 (≤ 1 m, twisted with a GND wire)",
        size=11,
        fill=GRN,
        weight="bold",
    )


def draw(board):
    b = hw.budget(board)
    used = {u[0] for u in hl.gpio_uses(board)}
    s = Svg(W, H, title="Wiring drawing (generated from hardware/board.json)")
    s.raw(
        '<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0 0 L10 5 L0 10 z" fill="%s"/></marker></defs>' % GRN
    )
    s.text(30, 40, "WIRING — craps side-bet marker board", size=22, weight="bold")
    s.text(
        30,
        62,
        "Generated from hardware/board.json by hardware/drawings.py — edit the data, not this "
        "drawing. Pin table: pinout.md. Lamp positions: layout.svg.",
        size=12,
        fill="#444",
    )
    draw_devkit(s, used)
    draw_rows(s, board)
    draw_key(s, board)
    draw_buttons(s, board)
    draw_left_stubs(s, board)
    draw_keypad(s, board)
    draw_data_path(s, board)
    draw_power(s, board, b)
    draw_chain(s, board, b)
    draw_tables(s, board, b, YTABLES)
    draw_parts(s, board, YPARTS)
    s.lines(
        1000,
        860,
        [
            "EVERY OFF-BOARD LINE (X2 keypad, X3 switches, X4 data):",
            "TVS channel (U3–U%d) at its connector, series resistor;" % (2 + hl.tvs_count(board)),
            "inputs: %s pull-up at the connector;" % hw.ohms(board["parts"]["column_pullup_ohm"]),
            "switch lines: + %d nF RC at the GPIO." % board["parts"]["switch_filter_nf"],
            "Parts per net: BOM.md, Inputs.",
        ],
        size=11,
    )
    legend = [
        (RED, "+5V supply"),
        (BLK, "GND (one common ground for all parts)"),
        (GRN, "LED data / keypad columns"),
        (BLU, "keypad rows"),
        (PUR, "buttons / keyswitch (active low)"),
        (ORG, "3V3 from DevKitC J2-1"),
    ]
    x = 30
    for c, t in legend:
        s.line(x, H - 30, x + 30, H - 30, stroke=c, stroke_width=3)
        s.text(x + 36, H - 26, t, size=11)
        x += 36 + hw.text_width(t, 11) + 30
    return s.render()
