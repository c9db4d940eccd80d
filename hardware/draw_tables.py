# The bottom band of wiring.svg: every carrier connector pin by pin with the
# protection parts on its line (series resistor, pull-up, RC capacitor, TVS
# channel), the eFuses with their FAULT flags, and the isolated USB path, so
# the drawing names every part the carrier holds (tests/test_hardware.py
# checks each one is in the BOM).

import hwlines as hl
import hwmodel as hw
from wiring_style import BLK, BLU, GRN, PUR, RED


def _pin_rows(board):
    """{connector ref: [(pin, net, what)]}: each carrier connector's pins with the
    parts between the pin and its GPIO."""
    ref = hl.refs(board)
    parts = board["parts"]
    gpio = {net: g for net, g, _ in hl.offboard_lines(board)}
    kind = {net: k for net, _, k in hl.offboard_lines(board)}
    out = {}
    for cref, _what, pins in hl.connectors(board):
        rows = []
        for i, net in enumerate(pins):
            if net in gpio:
                k = kind[net]
                bits = []
                series = ref["series"] if k == "data" else ref["series:" + net]
                bits.append(
                    "%s %s"
                    % (
                        series,
                        hw.ohms(
                            parts[
                                "data_series_ohm"
                                if k == "data"
                                else ("row_series_ohm" if k == "row" else "input_series_ohm")
                            ]
                        ),
                    )
                )
                if "pullup:" + net in ref:
                    bits.append("%s %s to 3V3" % (ref["pullup:" + net], hw.ohms(parts["input_pullup_ohm"])))
                if "filter:" + net in ref:
                    bits.append("%s %d nF" % (ref["filter:" + net], parts["switch_filter_nf"]))
                bits.append("TVS %s" % ref["tvs:" + net])
                where = "GPIO%d" % gpio[net] if k != "data" else "U1 pin 3 (GPIO%d in)" % gpio[net]
                rows.append((i + 1, net, "%s · %s" % (where, ", ".join(bits))))
            elif net == "SCREEN":
                rows.append((i + 1, net, "cable screen + drain, to GND here only"))
            elif net == "GND":
                rows.append((i + 1, net, "GND"))
            elif net in ("+5V",):
                rows.append((i + 1, net, "from its eFuse output"))
            else:
                rows.append((i + 1, "—", "empty (keying)"))
        out[cref] = rows
    return out


def draw_tables(s, board, b, y0):
    """The connector, eFuse and USB band, from y0 down."""
    rows = _pin_rows(board)
    titles = {cref: what for cref, what, _ in hl.connectors(board)}
    cols = [("X2", 30, BLU), ("X3", 600, PUR), ("X4", 1170, GRN)]
    for cref, x, colour in cols:
        s.text(
            x,
            y0,
            "%s — %s (Micro-Fit 3.0, %d-way)" % (cref, titles[cref], len(rows[cref])),
            size=12,
            weight="bold",
            fill=colour,
        )
        for k, (pin, net, what) in enumerate(rows[cref]):
            s.text(x, y0 + 18 + 15 * k, "%d  %s: %s" % (pin, net, what), size=10)
    ref = hl.refs(board)
    x, y = 1170, y0 + 80
    s.text(x, y, "eFuses EF1–EF%d (TPS2552-1, latch-off)" % len(b["branches"]), size=12, weight="bold", fill=RED)
    lines = ["IN from TB1 +5V, EN to GND (always on), RILIM RL1–RL%d," % len(b["branches"])]
    lines.append("1 µF at IN and OUT (C%s); OUT to its header." % _cap_span(board, b))
    for net, g, efuse, feed in hw.fault_nets(board):
        lines.append("%s FAULT → %s GPIO%d, %s 10 kΩ to 3V3 (feed %s)" % (efuse, net, g, ref["pullup:" + net], feed))
    lines.append("%s: FAULT not wired (the board goes dark)." % b["branches"][-1][0])
    s.lines(x, y + 18, lines, size=10)
    y = y0 + 80 + 18 + 15 * (len(lines) + 1)
    s.text(x, y, "USB link (isolated, no auto-reset)", size=12, weight="bold", fill=BLK)
    s.lines(
        x,
        y + 18,
        [
            "pit PC → W5 → X8 bulkhead (E6 wall, clamp SR1)",
            "→ W7 → U7 USB isolator (Adafruit 2107) → W6 (VBUS cut)",
            "→ DevKitC micro-USB. Auto-reset transistors removed:",
            "flash with BOOT held, EN tapped (README).",
        ],
        size=10,
    )


def _cap_span(board, b):
    lines = hl.offboard_lines(board)
    ncaps = len([1 for _, _, k in lines if k == "switch"])
    first = 3 + ncaps + len(b["feeds"]) - 1
    return "%d–C%d" % (first, first + 2 * len(b["branches"]) - 1)
