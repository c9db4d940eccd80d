# Every line that leaves the controller carrier, its connector and its protection,
# and the reference designators the wiring drawing and the BOM share.
# Rule: an off-board line gets a series resistor and a TVS channel at its
# connector; inputs get a 10 kΩ pull-up at the connector; switch lines also get an
# RC filter. The keypad settle time the firmware waits after driving a row is
# computed here from that RC and the cable capacitance (board.json keypad.settle_us).

import math

import hwmodel as hw
import partfacts as pf

# Carrier connectors (X1 is the mains inlet): ref, what, and its lines in pin order.
# Each function has its own pin count, so no plug fits a header of another function.
FEED_PINS = ("+5V", "GND")
DATA_PINS = ("DATA", "GND", "—")  # pin 3 empty: a 3-way housing no feed plug fits


def offboard_lines(board):
    """[(net, gpio or None, kind)] for every signal leaving the carrier.

    kind: "row" (output), "col" (input), "switch" (input with RC), "data" (LED data).
    """
    out = [(net, g, kind) for net, g, _, kind in hw.keypad_nets(board)]
    out += [(net, g, "switch") for net, g, _ in hw.switch_nets(board)]
    out.append(("DATA", board["strip"]["pin"], "data"))
    return out


def gpio_uses(board):
    """Every GPIO the product uses: [(gpio, function, direction, electrical)]."""
    st = board["strip"]
    parts = board["parts"]
    uses = [
        (
            st["pin"],
            "LED data (%s, via %s)" % (st["type"], parts["level_shifter"]),
            "output",
            "push-pull, %s pull-down at the shifter input" % hw.ohms(parts["data_pulldown_ohm"]),
        )
    ]
    for net, g, conn, kind in hw.keypad_nets(board):
        if kind == "row":
            uses.append(
                (
                    g,
                    "keypad %s (X2-%d)" % (net, conn),
                    "output",
                    "open-drain, pulled low one row at a time, %s series" % hw.ohms(parts["row_series_ohm"]),
                )
            )
        else:
            uses.append(
                (
                    g,
                    "keypad %s (X2-%d)" % (net, conn),
                    "input",
                    "%s pull-up at the connector (+ internal), %s series; reads low when a key joins it to the row"
                    % (hw.ohms(parts["column_pullup_ohm"]), hw.ohms(parts["input_series_ohm"])),
                )
            )
    for net, g, what in hw.switch_nets(board):
        uses.append(
            (
                g,
                "%s (%s)" % (what, net),
                "input",
                "active low, %s pull-up at the connector%s, %s + %d nF RC"
                % (
                    hw.ohms(parts["input_pullup_ohm"]),
                    "" if g in hw.INPUT_ONLY else " (+ internal)",
                    hw.ohms(parts["input_series_ohm"]),
                    parts["switch_filter_nf"],
                ),
            )
        )
    for net, g, ref, feed in hw.fault_nets(board):
        uses.append(
            (
                g,
                "lamp feed %s fault flag (%s, %s FAULT)" % (feed, net, ref),
                "input",
                "active low (open-drain, latched), %s pull-up to 3V3 on the carrier"
                % hw.ohms(parts["input_pullup_ohm"]),
            )
        )
    return uses


def connectors(board):
    """[(ref, what, [pin names])] for the carrier's latching, keyed connectors."""
    keypad = [net for net, _, _, _ in hw.keypad_nets(board)] + ["SCREEN"]
    switches = [net for net, _, _ in hw.switch_nets(board)] + ["GND", "SCREEN"]
    out = [
        ("X2", "keypad KP1", keypad),
        ("X3", "panel switches S1–S%d" % len(board["buttons"]), switches),
        ("X4", "LED data to pixel 0", list(DATA_PINS)),
    ]
    for i, (name, _, _) in enumerate(hw.feeds(board)):
        out.append(("X%d" % (5 + i), "power feed %s" % name, list(FEED_PINS)))
    return out


def connector_problems(board, conns=None):
    """Connectors of different functions must not share a pin count (no cross-mating)."""
    seen = {}
    out = []
    for ref, what, pins in connectors(board) if conns is None else conns:
        kind = "feed" if what.startswith("power feed") else what
        other = seen.setdefault(len(pins), kind)
        if other != kind:
            out.append(
                "%s (%s) has %d pins like a %s connector: plugs would cross-mate" % (ref, what, len(pins), other)
            )
    return out


def refs(board):
    """Reference designators shared by the wiring drawing and the BOM."""
    lines = offboard_lines(board)
    out = {"series": "R1", "pulldown": "R2", "bulk": "C1", "decoupling": "C2"}
    n = 3
    for prefix, kinds in (("series:", ("row",)), ("pullup:", ("col", "switch")), ("series:", ("col", "switch"))):
        for net, _, kind in lines:
            if kind in kinds:
                out[prefix + net] = "R%d" % n
                n += 1
    for net, _, _, _ in hw.fault_nets(board):  # on the carrier: a pull-up, no TVS
        out["pullup:" + net] = "R%d" % n
        n += 1
    c = 3
    for net, _, kind in lines:
        if kind == "switch":
            out["filter:" + net] = "C%d" % c
            c += 1
    for i, name in enumerate(k for k in board["buttons"] if k != "supervisor_key"):
        out["switch:" + name] = "S%d" % (i + 1)
    out["switch:supervisor_key"] = "S%d" % len(board["buttons"])
    for net, ref, ch in tvs_channels(board):
        out["tvs:" + net] = "%s/%d" % (ref, ch)
    return out


def tvs_channels(board):
    """[(net, TVS array ref, channel)]: every off-board line on a TVS channel, U3 onward."""
    per = pf.TVS["channels"]
    return [(net, "U%d" % (3 + i // per), i % per + 1) for i, (net, _, _) in enumerate(offboard_lines(board))]


def tvs_count(board):
    return int(math.ceil(len(offboard_lines(board)) / float(pf.TVS["channels"])))


def refs_of(board, prefix, kinds):
    r = refs(board)
    return [r[prefix + net] for net, _, kind in offboard_lines(board) if kind in kinds]


# --- keypad column timing -------------------------------------------------------


def column_pf(board):
    """Capacitance on one keypad column: cable at its longest, stray, TVS channel."""
    kp = board["keypad"]
    return kp["cable_max_m"] * kp["cable_pf_per_m"] + kp["stray_pf"] + pf.TVS["line_pf"]


def column_tau_us(board):
    """Time constant of a released column: it charges through the external pull-up
    and the series resistor (the internal pull-up, ignored, only makes it faster)."""
    parts = board["parts"]
    r = parts["column_pullup_ohm"] + parts["input_series_ohm"]
    return r * column_pf(board) * 1e-12 * 1e6


def settle_us(board):
    """Whole microseconds the firmware waits after driving a row: 5 τ (99.3 %)."""
    return int(math.ceil(5 * column_tau_us(board) - 1e-9))


def key_low_v(board):
    """Column voltage with a key pressed: the pull-ups (external ∥ internal) against
    the row's series resistor and the worst keypad contact."""
    parts = board["parts"]
    up = 1.0 / (1.0 / parts["column_pullup_ohm"] + 1.0 / pf.ESP32_INTERNAL_PULLUP_OHM)
    down = parts["row_series_ohm"] + pf.KEYPAD_CONTACT_OHM_MAX
    return pf.ESP32_VDD * down / (up + down)


def switch_tau_ms(board):
    """RC of a switch line on release: pull-up plus series resistor into the filter cap."""
    parts = board["parts"]
    return (parts["input_pullup_ohm"] + parts["input_series_ohm"]) * parts["switch_filter_nf"] * 1e-9 * 1e3


def input_problems(board):
    """Reasons the keypad or switch inputs would misread; empty when they are sound."""
    out = []
    kp = board["keypad"]
    want = settle_us(board)
    if kp.get("settle_us") != want:
        out.append("keypad.settle_us is %r but the column RC needs %d µs" % (kp.get("settle_us"), want))
    if len(kp["rows"]) * want * 1e-3 >= kp["scan_ms"] / 10.0:
        out.append(
            "settling every row takes %d µs: more than a tenth of the %d ms scan"
            % (len(kp["rows"]) * want, kp["scan_ms"])
        )
    low, vil = key_low_v(board), pf.ESP32_VIL_FRAC * pf.ESP32_VDD
    if low >= vil:
        out.append("a pressed key reads %.2f V, above the ESP32's %.2f V low threshold" % (low, vil))
    if 5 * switch_tau_ms(board) >= kp["debounce_ms"] / 3.0:
        out.append(
            "switch RC settles in %.1f ms: too slow for the %d ms debounce"
            % (5 * switch_tau_ms(board), kp["debounce_ms"])
        )
    return out
