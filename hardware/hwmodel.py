# Reads hardware/board.json and derives what the drawings and docs need:
# the GPIO map, ESP32-DevKitC header facts, the lamp chain and the power budget.
# Facts about the ESP32 chip and the DevKitC board live in devkitc.py; facts about
# this product (pins, lamps, supply) live only in board.json.

import json
import math
import os

import partfacts as pf
from devkitc import FLASH, INPUT_ONLY, J2, J3, NOTES, PSRAM, SILK, STRAPPING, UART0, header_pin  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD_JSON = os.path.join(HERE, "board.json")

# Copper resistance, ohm per metre, by AWG.
AWG_OHM_PER_M = {16: 0.01317, 18: 0.02095, 20: 0.03331, 22: 0.05296, 24: 0.08422}


def load(path=BOARD_JSON):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def keypad_nets(board):
    """[(net, gpio, keypad connector pin, direction)] rows then columns.

    Nets are ROW1-4 / COL1-4: R1 and C1 are part designators in the BOM.
    """
    kp = board["keypad"]
    out = []
    for i, g in enumerate(kp["rows"]):
        out.append(("ROW%d" % (i + 1), g, i + 1, "row"))
    for i, g in enumerate(kp["cols"]):
        out.append(("COL%d" % (i + 1), g, len(kp["rows"]) + i + 1, "col"))
    return out


def switch_nets(board):
    """[(net, gpio, what)] for every panel switch contact, buttons then keyswitch."""
    out = []
    for name, b in board["buttons"].items():
        if name == "supervisor_key":
            continue
        out.append(("SW_" + name.upper(), b["pin"], "button: %s" % name))
    key = board["buttons"]["supervisor_key"]
    out.append(("KEY_ON", key["pin"], "keyswitch NO contact (closed = supervisor on)"))
    if key.get("contact") == "changeover":
        out.append(("KEY_OFF", key["nc_pin"], "keyswitch NC contact (closed = supervisor off)"))
    return out


def fault_nets(board):
    """[(net, gpio, eFuse ref, feed)]: each lamp feed's eFuse FAULT flag."""
    pins = board["strip"]["feed_fault_pins"]
    return [("FLT%d" % (i + 1), g, "EF%d" % (i + 1), "F%d" % (i + 1)) for i, g in enumerate(pins)]


def span(names):
    """['R3', 'R4', 'R5'] -> 'R3–R5'."""
    return names[0] if len(names) == 1 else "%s–%s" % (names[0], names[-1])


def lamps_by_pixel(board):
    return sorted(board["lamps"], key=lambda lamp: lamp["pixel"])


def feeds(board):
    """[(feed name, first pixel, last pixel)] for each power injection point."""
    inj = sorted(board["strip"]["feed_first_pixels"])
    ends = inj[1:] + [board["strip"]["count"]]
    return [("F%d" % (i + 1), a, b - 1) for i, (a, b) in enumerate(zip(inj, ends))]


def link_mm(a, b, slack):
    """Wire between two lamps: routed along the panel (Manhattan) plus slack."""
    return abs(a["x"] - b["x"]) + abs(a["y"] - b["y"]) + slack


def strings(board):
    """[(feed, first pixel, last pixel, pitch mm)]: one pre-wired pixel string per feed.

    A string has one wire length between all its pixels, so its pitch is the
    longest link of its section rounded up to the vendor's step; shorter links
    leave the spare wire coiled behind the panel.
    """
    pw = board["power"]
    lamps = lamps_by_pixel(board)
    step = pw["pixel_pitch_step_mm"]
    out = []
    for name, first, last in feeds(board):
        longest = max([link_mm(lamps[k], lamps[k + 1], pw["link_slack_mm"]) for k in range(first, last)] or [0])
        out.append((name, first, last, int(math.ceil(longest / float(step))) * step))
    return out


def chain_drop_v(board, lamp_ma):
    """Worst supply drop (V) at any lamp, every lamp drawing lamp_ma.

    The DC trunk (trunk_m of trunk_awg pair, PS1 to the carrier's rails) carries
    every lamp and the controller. Each feed is a separate +5 V/GND pair of feed_m metres from the supply to
    its first pixel; current then flows down the string's links (every link the
    string's pitch long). Both conductors count. +5 V is not linked across feed
    boundaries, so each section draws only on its own feed.
    """
    pw = board["power"]
    r_trunk = AWG_OHM_PER_M[pw["trunk_awg"]] * pw["trunk_m"] * 2
    r_feed = AWG_OHM_PER_M[pw["feed_awg"]] * pw["feed_m"] * 2
    r_link = AWG_OHM_PER_M[pw["link_awg"]] * 2 / 1000.0
    trunk_a = (board["strip"]["count"] * lamp_ma + pw["controller_ma"] + pw["shifter_ma"]) / 1000.0
    v_trunk = trunk_a * r_trunk
    worst = (0.0, 0)
    for _, first, last, pitch in strings(board):
        n = last - first + 1
        v = v_trunk + n * lamp_ma / 1000.0 * r_feed
        worst = max(worst, (v, first))
        for k in range(first, last):
            downstream = last - k
            v += downstream * lamp_ma / 1000.0 * r_link * pitch
            worst = max(worst, (v, k + 1))
    return worst


def chain_length_m(board):
    """Pixel-string wire in all (three-core), from each string's pitch."""
    return sum((last - first) * pitch for _, first, last, pitch in strings(board)) / 1000.0


def supply_limit_a(board):
    """(lowest, highest) current at which the supply's overload protection acts."""
    a = board["power"]["supply_a"]
    return (a * pf.SUPPLY_LIMIT_FACTOR[0], a * pf.SUPPLY_LIMIT_FACTOR[1])


def budget(board, iso=None):
    """The power budget as a dict of plain numbers (mA, V, W); iso: the USB
    isolator's facts (partfacts.USB_ISOLATOR unless given)."""
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
        "supply_limit_a": supply_limit_a(board),
        "headroom": supply_ma / worst,
        "capped_load_pct": 100.0 * (lamps_capped + other) / supply_ma,
        "worst_w": worst * pw["supply_v"] / 1000.0,
        "capped_w": (lamps_capped + other) * pw["supply_v"] / 1000.0,
        "branches": protected_branches(board, iso),
        "trunk_awg": pw["trunk_awg"],
        "trunk_m": pw["trunk_m"],
        "trunk_ma": worst,
        "fault_w": pw["max_unchecked_fault_w"],
        "feed_awg": pw["feed_awg"],
        "link_awg": pw["link_awg"],
        "feed_m": pw["feed_m"],
        "chain_m": chain_length_m(board),
        "strings": strings(board),
        "drop_full_v": drop_full,
        "drop_full_at": at_full,
        "drop_cap_v": drop_cap,
        "drop_cap_at": at_cap,
        "max_drop_v": pw["max_drop_v"],
        "feeds": feeds(board),
    }


def protected_branches(board, iso=None):
    """[(ref, what, kind, rating A, worst-case load mA, normal load mA, [(wire, AWG)])].

    Every branch from the rail has its own protector (board.json power.protector:
    "efuse", the latch-off current limiter, or "fuse"), sized for its load and
    the thinnest wire it protects. EF1..EFn feed the lamp sections (feed pair,
    then the string's links); the last branch feeds the controller carrier.
    """
    pw = board["power"]
    kind = pw.get("protector", "efuse")
    prefix = "EF" if kind == "efuse" else "FU"
    cap = board["strip"]["max_brightness"] / 255.0
    full = pw["lamp_full_white_ma"]
    out = []
    for i, (name, first, last) in enumerate(feeds(board)):
        n = last - first + 1
        out.append(
            (
                "%s%d" % (prefix, i + 1),
                "feed %s (pixels %d–%d)" % (name, first, last),
                kind,
                pw["feed_trip_a"][i],
                n * full,
                n * full * cap,
                [("feed pair", pw["feed_awg"]), ("string links", pw["link_awg"])],
            )
        )
    ctrl = pw["controller_ma"] + pw["shifter_ma"] + (pf.USB_ISOLATOR["rail_ma"] if iso is None else iso["rail_ma"])
    out.append(
        (
            "%s%d" % (prefix, len(out) + 1),
            "controller carrier (D1, DevKitC, U1, U7's rail share)",
            kind,
            pw["controller_trip_a"],
            ctrl,
            ctrl,
            [("carrier wiring", pw["controller_awg"])],
        )
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
