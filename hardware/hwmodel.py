# Reads hardware/board.json and derives what the drawings and docs need:
# the GPIO map, ESP32-DevKitC header facts, the lamp chain and the power budget.
# Facts about the ESP32 chip and the DevKitC board live in devkitc.py; facts about
# this product (pins, lamps, supply) live only in board.json.

import json
import os

from devkitc import FLASH, INPUT_ONLY, J1, J3, NOTES, SILK, STRAPPING, UART0, header_pin  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD_JSON = os.path.join(HERE, "board.json")

# Copper resistance, ohm per metre, by AWG.
AWG_OHM_PER_M = {16: 0.01317, 18: 0.02095, 20: 0.03331, 22: 0.05296, 24: 0.08422}


def load(path=BOARD_JSON):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def keypad_nets(board):
    """[(net, gpio, keypad connector pin, direction)] rows then columns."""
    kp = board["keypad"]
    out = []
    for i, g in enumerate(kp["rows"]):
        out.append(("R%d" % (i + 1), g, i + 1, "row"))
    for i, g in enumerate(kp["cols"]):
        out.append(("C%d" % (i + 1), g, len(kp["rows"]) + i + 1, "col"))
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
            "push-pull, %s pull-down at the shifter input" % ohms(parts["data_pulldown_ohm"]),
        )
    ]
    for net, g, conn, kind in keypad_nets(board):
        if kind == "row":
            uses.append(
                (
                    g,
                    "keypad row %s (connector pin %d)" % (net, conn),
                    "output",
                    "open-drain, pulled low one row at a time, %s series" % ohms(parts["row_series_ohm"]),
                )
            )
        else:
            uses.append(
                (
                    g,
                    "keypad column %s (connector pin %d)" % (net, conn),
                    "input",
                    "internal pull-up, reads low when a key joins it to the row",
                )
            )
    for name, b in board["buttons"].items():
        uses.append(
            (
                b["pin"],
                "button: %s" % name,
                "input",
                "active %s, pull-%s (internal + %s)" % (b["active"], b["pull"], ohms(parts["input_pullup_ohm"])),
            )
        )
    return uses


def refs(board):
    """Reference designators shared by the wiring drawing and the BOM."""
    out = {"series": "R1", "pulldown": "R2"}
    n = 3
    for i in range(len(board["keypad"]["rows"])):
        out["row%d" % (i + 1)] = "R%d" % n
        n += 1
    for name in board["buttons"]:
        out["pullup:" + name] = "R%d" % n
        n += 1
    for i, name in enumerate(board["buttons"]):
        out["switch:" + name] = "S%d" % (i + 1)
    return out


def span(names):
    """['R3', 'R4', 'R5'] -> 'R3–R5'."""
    return names[0] if len(names) == 1 else "%s–%s" % (names[0], names[-1])


def lamps_by_pixel(board):
    return sorted(board["lamps"], key=lambda lamp: lamp["pixel"])


def feeds(board):
    """[(feed name, first pixel, last pixel)] for each power injection point."""
    inj = sorted(board["power"]["inject_at"])
    ends = inj[1:] + [board["strip"]["count"]]
    return [("F%d" % (i + 1), a, b - 1) for i, (a, b) in enumerate(zip(inj, ends))]


def link_mm(a, b, slack):
    """Wire between two lamps: routed along the panel (Manhattan) plus slack."""
    return abs(a["x"] - b["x"]) + abs(a["y"] - b["y"]) + slack


def chain_drop_v(board, lamp_ma):
    """Worst supply drop (V) at any lamp, every lamp drawing lamp_ma.

    Each feed is a separate +5 V/GND pair of feed_m metres from the supply to
    its first pixel; current then flows down the pixel links. Both conductors count.
    """
    pw = board["power"]
    lamps = lamps_by_pixel(board)
    r_feed = AWG_OHM_PER_M[pw["feed_awg"]] * pw["feed_m"] * 2
    r_link = AWG_OHM_PER_M[pw["link_awg"]] * 2 / 1000.0
    worst = (0.0, 0)
    for _, first, last in feeds(board):
        n = last - first + 1
        v = n * lamp_ma / 1000.0 * r_feed
        worst = max(worst, (v, first))
        for k in range(first, last):
            downstream = last - k
            mm = link_mm(lamps[k], lamps[k + 1], pw["link_slack_mm"])
            v += downstream * lamp_ma / 1000.0 * r_link * mm
            worst = max(worst, (v, k + 1))
    return worst


def chain_length_m(board):
    lamps = lamps_by_pixel(board)
    slack = board["power"]["link_slack_mm"]
    return sum(link_mm(a, b, slack) for a, b in zip(lamps, lamps[1:])) / 1000.0


def budget(board):
    """The power budget as a dict of plain numbers (mA, V, W)."""
    pw = board["power"]
    n = board["strip"]["count"]
    cap = board["strip"]["max_brightness"]
    full = pw["lamp_full_white_ma"]
    capped_lamp = full * cap / 255.0
    lamps_full = n * full
    lamps_capped = n * capped_lamp
    idle = n * pw["lamp_idle_ma"]
    other = pw["controller_ma"] + pw["shifter_ma"]
    worst = lamps_full + other
    required = worst * pw["margin"]
    supply_ma = pw["supply_a"] * 1000.0
    drop_full, at_full = chain_drop_v(board, full)
    drop_cap, at_cap = chain_drop_v(board, capped_lamp)
    return {
        "count": n,
        "cap": cap,
        "cap_pct": 100.0 * cap / 255.0,
        "lamp_full_ma": full,
        "lamp_capped_ma": capped_lamp,
        "lamps_full_ma": lamps_full,
        "lamps_capped_ma": lamps_capped,
        "idle_ma": idle,
        "controller_ma": pw["controller_ma"],
        "shifter_ma": pw["shifter_ma"],
        "worst_ma": worst,
        "capped_total_ma": lamps_capped + other,
        "dark_total_ma": idle + other,
        "margin": pw["margin"],
        "required_ma": required,
        "supply_v": pw["supply_v"],
        "supply_ma": supply_ma,
        "supply_w": pw["supply_v"] * pw["supply_a"],
        "headroom": supply_ma / worst,
        "capped_load_pct": 100.0 * (lamps_capped + other) / supply_ma,
        "worst_w": worst * pw["supply_v"] / 1000.0,
        "capped_w": (lamps_capped + other) * pw["supply_v"] / 1000.0,
        "fuse_a": pw["fuse_a"],
        "feed_awg": pw["feed_awg"],
        "link_awg": pw["link_awg"],
        "feed_m": pw["feed_m"],
        "chain_m": chain_length_m(board),
        "drop_full_v": drop_full,
        "drop_full_at": at_full,
        "drop_cap_v": drop_cap,
        "drop_cap_at": at_cap,
        "max_drop_v": pw["max_drop_v"],
        "feeds": feeds(board),
    }


def budget_problems(b):
    """Reasons the chosen supply, fuse or wiring do not fit; empty when they do."""
    out = []
    if b["supply_ma"] < b["required_ma"]:
        out.append(
            "supply %.1f A is below the %.2f A needed (worst case x margin)"
            % (b["supply_ma"] / 1000, b["required_ma"] / 1000)
        )
    if not b["worst_ma"] < b["fuse_a"] * 1000 <= b["supply_ma"]:
        out.append(
            "fuse %g A must lie between the worst case %.2f A and the supply rating"
            % (b["fuse_a"], b["worst_ma"] / 1000)
        )
    if b["drop_full_v"] > b["max_drop_v"]:
        out.append(
            "worst voltage drop %.2f V exceeds %.2f V: inject power more often" % (b["drop_full_v"], b["max_drop_v"])
        )
    return out


def lamp_feed(board, pixel):
    for name, first, last in feeds(board):
        if first <= pixel <= last:
            return name
    raise ValueError(pixel)


def ohms(v):
    """330 -> '330 Ω', 1000 -> '1 kΩ', 10000 -> '10 kΩ'."""
    if v >= 1000:
        return "%g kΩ" % (v / 1000.0)
    return "%g Ω" % v


def text_width(s, size):
    """Rough rendered width of s at font size (sans-serif average)."""
    return len(s) * size * 0.6
