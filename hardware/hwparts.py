# ruff: noqa: E501  (one part or wire per line: the lists read as tables)
# The parts list (BOM.md "Parts") as data, and the checks that keep it whole:
# every line has an orderable manufacturer part number, and every reference
# designator a drawing or the README names is on a line. Quantities and values
# come from board.json; the part numbers are this revision's choices.
# The wires with their gauges and terminations are in hwwires.py.

import math
import re

import hwbuy
import hwlines as hl
import hwmodel as hw
import partfacts as pf
from hwsupply import D1_ROLE

# Words that mark a part number as not orderable: "any 10 kΩ resistor" is not
# something a buyer can put in a basket.
NOT_ORDERABLE = (
    "generic",
    "e.g.",
    "any ",
    "custom",
    "—",
    "similar",
    "or equivalent",
    "series",
    "tbd",
    "tba",
    "see ",
    "vendor",
    "placeholder",
    "?",
    "xxx",
    "to be ",
)

# Panasonic FR series, 16 V, by capacitance (µF): the electrolytics this board uses.
ELECTROLYTIC_MPN = {330: "Panasonic EEU-FR1C331", 1000: "Panasonic EEU-FR1C102"}

# The mains cord E5, one per build, chosen by the site's socket
# (board.json power.mains_cord): {site: (plug and cord, part number)}. Each is
# on the list of facts to confirm (partfacts.TO_CONFIRM).
MAINS_CORDS = {
    "north_america": ("IEC C13 to NEMA 5-15P, 1.8 m, moulded plugs", "Tripp Lite P006-006"),
    "europe_schuko": (
        "IEC C13 to CEE 7/7 (Schuko, also fits CEE 7/5 sockets), 1.8 m, moulded plugs",
        "Tripp Lite P054-006",
    ),
    "uk": ("IEC C13 to BS 1363 with its BS 1362 plug fuse, 1.8 m, moulded plugs", "Tripp Lite P044-006"),
}

# Littelfuse 0218 series (time-lag 5×20 mm) part numbers by IEC rating.
MAINS_FUSE_MPN = {1.0: "0218001.HXP", 1.25: "02181.25HXP", 1.6: "02181.60HXP", 2.0: "0218002.HXP"}

# A reference designator as the drawings and the README write them.
REF_RE = re.compile(r"\b(?:EF|FU|KP|PS|LED|TB|AD|SR|RL|XU|MH|PCB|LB|TM|CB|CT|HX|HS|ET|[RCUDSXEJWQ])\d+(?:\.\d+)?\b")


def _rilim_row(i, branch):
    """The current-limit resistor of eFuse i: the datasheet's 1 % value for its trip."""
    kohm = pf.EFUSE_RILIM[branch[3]][0]
    code = ("%g" % kohm).replace(".", "K") if kohm != int(kohm) else "%dK" % kohm
    return (
        "RL%d" % (i + 1),
        1,
        "1 %% current-limit resistor (RILIM) of %s: %g kΩ for its %g A trip (%s datasheet, Common RILIM Resistor Selections)"
        % (branch[0], kohm, branch[3], pf.EFUSE["part"]),
        "Yageo MFR-25FBF52-%s" % code,
    )


def _resistors(board, ref):
    parts = board["parts"]
    lines = hl.offboard_lines(board)
    by = lambda prefix, kinds: [ref[prefix + net] for net, _, kind in lines if kind in kinds]  # noqa: E731
    rows_r, pull_r = by("series:", ("row",)), by("pullup:", ("col", "switch"))
    ser_r = by("series:", ("col", "switch"))
    flt_r = [ref["pullup:" + net] for net, _, _, _ in hw.fault_nets(board)]
    mf = "Yageo MFR-25FBF52-%s"
    return [
        (ref["series"], 1, "%s ¼ W 1 %%, data series resistor at U1 output" % hw.ohms(parts["data_series_ohm"]), mf % "330R"),
        (ref["pulldown"], 1, "%s ¼ W 1 %%, data-line pull-down (strip dark during reset)" % hw.ohms(parts["data_pulldown_ohm"]), mf % "10K"),
        (hw.span(rows_r), len(rows_r), "%s ¼ W 1 %%, keypad row series resistors" % hw.ohms(parts["row_series_ohm"]), mf % "1K"),
        (hw.span(pull_r), len(pull_r), "%s ¼ W 1 %%, pull-ups to 3V3 at the connector: keypad columns, switch lines" % hw.ohms(parts["column_pullup_ohm"]), mf % "10K"),
        (hw.span(ser_r), len(ser_r), "%s ¼ W 1 %%, series resistors between connector and GPIO: columns, switch lines" % hw.ohms(parts["input_series_ohm"]), mf % "1K"),
        (hw.span(flt_r), len(flt_r), "%s ¼ W 1 %%, pull-ups to 3V3 of the eFuse FAULT flags (input-only GPIOs)" % hw.ohms(parts["input_pullup_ohm"]), mf % "10K"),
    ]  # fmt: skip


def parts_rows(board):
    """[(ref, qty, description, manufacturer part number)] in build order."""
    parts, pw, st = board["parts"], board["power"], board["strip"]
    b = hw.budget(board)
    iso = pf.USB_ISOLATOR
    hs = sum(n for n, _ in hwbuy.uses(board)["HS1"])
    ref = hl.refs(board)
    lines = hl.offboard_lines(board)
    buttons = [k for k in board["buttons"] if k != "supervisor_key"]
    caps = [ref["filter:" + net] for net, _, kind in lines if kind == "switch"]
    ntvs = hl.tvs_count(board)
    nfeed = len(b["feeds"])
    branches = b["branches"]
    rows = [
        ("U2", 1, "ESP32-DevKitC-VE: ESP32-WROVER-E module, 8 MB PSRAM, 4 MB flash (GPIO16/17 are the PSRAM's)", "Espressif ESP32-DEVKITC-VE"),
        ("J2, J3", 2, "19-way female header 2.54 mm, DevKitC socket", "Samtec SSW-119-01-T-S"),
        ("U1", 1, "%s quad buffer, 5 V supply, TTL-level inputs, DIP-14" % parts["level_shifter"], "TI SN74AHCT125N"),
        ("XU1", 1, "DIP-14 turned-pin socket for U1", "Mill-Max 110-43-314-41-001000"),
    ]  # fmt: skip
    rows += _resistors(board, ref)
    rows += [
        ("%s–%s" % (b["branches"][0][0], b["branches"][-1][0]), len(branches),
         "eFuse: latch-off current limiter with open-drain FAULT flag, one per branch (trip points in Power budget), SOT-23-6", pf.EFUSE["mpn"]),
    ]  # fmt: skip
    rows += [_rilim_row(i, br) for i, br in enumerate(branches)]
    rows += [
        ("U3–U%d" % (2 + ntvs), ntvs,
         "low-capacitance 4-channel TVS array (%g pF, %g V), one channel on every off-board line, at the connectors" % (pf.TVS["line_pf"], pf.TVS["vrwm"]),
         "TI %sDCKR" % pf.TVS["part"]),
        ("AD1–AD%d" % (ntvs + len(branches)), ntvs + len(branches), "SOT-23-6 / SC70-6 to 2.54 mm DIP adapter board for U3–U%d and the eFuses" % (2 + ntvs), "Chip Quik PA0006"),
        ("C1", 1, "%d µF electrolytic 16 V, low ESR, at the F1 string input (no larger: see Power budget, hot mate)" % parts["bulk_cap_uf"], ELECTROLYTIC_MPN.get(parts["bulk_cap_uf"], "")),
        ("C2", 1, "%d nF ceramic X7R 50 V, U1 decoupling" % parts["decoupling_nf"], "KEMET C320C104K5R5TA"),
        (hw.span(caps), len(caps), "%d nF ceramic X7R 50 V, switch-line RC filter at the GPIO" % parts["switch_filter_nf"], "KEMET C320C103K5R5TA"),
        ("C%d–C%d" % (3 + len(caps), 2 + len(caps) + nfeed - 1), nfeed - 1,
         "%d µF electrolytic 16 V, low ESR, at the F2… string inputs (each string's own bulk capacitor)" % parts["bulk_cap_uf"], ELECTROLYTIC_MPN.get(parts["bulk_cap_uf"], "")),
        ("C%d–C%d" % (2 + len(caps) + nfeed, 1 + len(caps) + nfeed + 2 * len(branches)), 2 * len(branches),
         "%g µF ceramic X7R 25 V, at the input and the output of each eFuse" % parts["efuse_cap_uf"], "KEMET C330C105K3R5TA"),
        (hw.span(reservoir_refs(board)), pw["reservoir_count"],
         "%d µF electrolytic 16 V, low ESR, rail reservoir across TB1/TB2 before the eFuses (Power budget, rail dip)" % parts["reservoir_cap_uf"],
         ELECTROLYTIC_MPN.get(parts["reservoir_cap_uf"], "")),
        ("D1", 1, "Schottky diode 1 A 40 V: " + D1_ROLE, "onsemi %s" % parts["supply_diode"]),
        ("U7", 1, "USB 2.0 isolator, 12 Mbit/s, %g kV: host side powered by %s, device side by %s (drives its device-side VBUS), %d mA from the rail" % (iso["isolation_kv"], iso["host_side"], iso["device_side"], iso["rail_ma"]), iso["mpn"]),
        ("X8", 1, "USB type B panel feed-through on the logic box wall (bulkhead)", "Neutrik NAUSB-W"),
        ("W5", 1, "USB 2.0 A-to-B cable 2 m, host PC to X8", "StarTech USB2HAB2M"),
        ("W6", 1, "USB 2.0 A-to-micro-B cable 0.3 m, U7 device side to the DevKitC, its **VBUS core cut** (README, wiring step 11)", "Adafruit 592"),
        ("W7", 1, "USB 2.0 B-to-A cable 0.3 m, X8 inside to U7 host side", "StarTech USB2HAB1"),
        ("SR1", 2, "cable clamp (P-clip) with M4 screw, strain relief of W5 outside and W7 inside the box", "Essentra CCPR-6"),
        ("KP1", 1, "4×4 membrane keypad, 8-way 2.54 mm tail, labels %s" % " ".join("".join(r) for r in board["keypad"]["labels"]), "Adafruit 3844"),
        (hw.span([ref["switch:" + k] for k in buttons]), len(buttons), "momentary push button, SPST-NO, 19 mm metal, IP65, panel mount (%s)" % ", ".join(buttons), "APEM AV0910"),
        (ref["switch:supervisor_key"], 1, "supervisor keyswitch, **changeover (SPDT)**: 22 mm metal key selector, 2 positions stay put, key removable in OFF (left) only, 1 NO, plus a 1 NC contact block on the same operator", "Schneider Electric XB4BG21 + ZBE102"),
        ("LED1–LED%d" % st["count"], st["count"], "%s lamp, 5 V, Ø%g mm bullet, in %d pre-wired strings (below)" % (st["type"], parts["lamp_diameter_mm"], len(b["strings"])), "Adafruit 1734 (WS2812B 12 mm pixel)"),
    ]  # fmt: skip
    for name, first, last, pitch in b["strings"]:
        rows.append(
            (
                "W%s" % name,
                1,
                "pixel string for %s: %d pixels (%d–%d) %d mm apart, %d AWG 3-core; data in and out on 3-way "
                "Micro-Fit **receptacles** HX1 (DATA, GND, empty), the +5 V core ends at the last pixel; power "
                "tails at the input on a 2-way receptacle HX2; built on the bench (README, step 1), nothing to order"
                % (name, last - first + 1, first, last, pitch, pw["link_awg"]),
                "built: LED1–LED%d, CB1–CB3, HX1, HX2, CT1, HS1" % st["count"],
            )
        )
    rows += [
        ("J%d–J%d" % (10, 9 + nfeed - 1), nfeed - 1,
         "section joiner: 3-way Micro-Fit **plug to plug**, DATA and GND only (two string receptacles cannot mate without it)",
         "Molex 43640-0300 ×2 + 43031-0001"),
        ("PS1", 1, "%g V %g A (%g W) enclosed switching supply, hiccup-mode overload" % (pw["supply_v"], pw["supply_a"], b["supply_w"]), "Mean Well RS-25-5"),
    ]  # fmt: skip
    for cref, what, pins in hl.connectors(board):
        rows.append(
            (
                cref,
                1,
                "%d-way Micro-Fit 3.0 single-row header + plug, %s (%s); labelled both ends"
                % (len(pins), what, ", ".join(pins)),
                "Molex 43650-%02d00 + 43645-%02d00" % (len(pins), len(pins)),
            )
        )
    rows += [
        ("TB1, TB2", 2, "+5 V and GND rail: 5-way lever terminal, 0.14–4 mm²", "WAGO 221-415"),
        ("PCB1", 1, "carrier: 160 × 100 mm stripboard (Eurocard) for the parts above", "Vero 01-0021"),
        ("MH1–MH4", 4, "M3 × 10 mm nylon standoff + screw, carrier mounting", "Essentra 05-01-1002"),
        ("E6", 1, "**logic box**: lockable steel enclosure with earth stud, 300 × 250 × 150 mm (carrier, U7, X8, cable glands)", "Rittal AX 1034.000"),
        ("E7", 1, "cam lock for E6, key-operated", "Rittal SZ 2467.000"),
        ("E8", 10, "numbered tamper-evident seal labels over the lid seam and the lock (void when lifted)", "Brady B-7598"),
        ("E9", 7, "cable gland M20 nylon, IP68: W1.1–W1.3, W2, W3, W4 and the panel bond W11.4 into E6", "Lapp SKINTOP ST-M 20x1.5"),
        ("E1", 1, "**earthed closed metal enclosure** for PS1 and X1 (mains parts), with earth stud, no opening larger than 4 mm", "Hammond 1590WV"),
        ("E2", 1, "terminal cover over PS1's mains screw terminals", "Mean Well RS-25 cover (TB-RS25)"),
        ("E3", 1, "earth stud kit M4: star washers, nuts, bonding of X1 earth, E1, E1 lid and PS1 FG", "Keystone 4704 + 1452-4"),
        ("E4", 2, "cable gland M16 nylon, IP68, DC trunk W0 (with the E1–E6 bond core) leaving E1 and entering E6", "Lapp SKINTOP ST-M 16x1.5"),
        mains_cord_row(board),
        ("X1", 1, "IEC C14 inlet with switch and 5×20 mm fuse holder, panel mount in E1", "Schurter DD11.0111.1111"),
        ("FU1", 1, "mains fuse, time-lag 5×20 mm, T%gA (IEC 60127-2 rating), in X1" % pw["mains_fuse_a"], "Littelfuse " + MAINS_FUSE_MPN.get(pw["mains_fuse_a"], "")),
        ("E10", 1, "insulating barrier sheet between PS1's mains terminals and the DC side, 0.5 mm polycarbonate", "Formex GK-5 (cut to fit)"),
        ("X9", 1, "8-way 2.54 mm male header, soldered to W2's cores, mates the keypad tail's socket", "Samtec TSW-108-07-G-S"),
        ("HS1", hs, "adhesive-lined heat-shrink 6 → 2 mm, 1.2 m sticks: every solder joint and W6's VBUS cut", "TE Raychem ATUM-6/2-0"),
        ("E12", 1, "panel earth stud M4 for the metal bezels and keyswitch body", "Keystone 4704"),
        ("LB1", 1, "heat-shrink lead labels (F1–F%d, DATA, KEYPAD, SWITCHES, USB and the X-numbers)" % nfeed, "Brady PermaSleeve 2HX-125"),
        ("TM1", 20, "adhesive cable-tie mounts and ties, strain relief along the panel", "HellermannTyton 151-28409 + T18R"),
    ]  # fmt: skip
    rows += buy_rows(board)
    return rows


# The counted parts (hwbuy.py): crimps, housings, cable by the metre.
COUNTED = (
    ("CT1", "Micro-Fit 3.0 female crimp terminal 18 AWG", "Molex 43030-0038"),
    ("CT2", "Micro-Fit 3.0 male crimp terminal 18 AWG", "Molex 43031-0038"),
    ("CT3", "Micro-Fit 3.0 female crimp terminal 20–24 AWG", "Molex 43030-0001"),
    ("CT4", "Micro-Fit 3.0 male crimp terminal 20–24 AWG", "Molex 43031-0001"),
    ("CT5", "M4 ring tongue, red 22–16 AWG (bonds, earth studs)", "TE 320551"),
    ("CT6", "M3.5 ring tongue, blue 16–14 AWG (PS1 terminals)", "TE 2-31890-1"),
    ("CT7", "6.3 mm insulated receptacle, blue 16–14 AWG (X1 tabs)", "TE 2-520184-2"),
    ("HX1", "Micro-Fit 3.0 3-way receptacle housing: string data ends", "Molex 43645-0300"),
    ("HX2", "Micro-Fit 3.0 2-way receptacle housing: string power tails, trip-test lead", "Molex 43645-0200"),
    ("HX3", "Micro-Fit 3.0 2-way plug housing: W1.n at the string", "Molex 43640-0200"),
    ("HX4", "Micro-Fit 3.0 3-way plug housing: W4 at string F1", "Molex 43640-0300"),
    (
        "ET1",
        "earth tag, tin-plated brass, under the mounting nut of S1–S3 (Ø19 mm bush), W11 soldered to it",
        "Keystone 7327",
    ),
    (
        "ET2",
        "earth tag, tin-plated brass, under the mounting nut of S4 (Ø22 mm bush), W11 soldered to it",
        "Keystone 7328",
    ),
)


def buy_rows(board):
    """The counted lines, each bought to cover its uses (+10 %, whole units or metres)."""
    need = {ref: sum(n for n, _ in what) for ref, what in hwbuy.uses(board).items()}
    rows = [(ref, int(math.ceil(need[ref] * 1.1)), what, mpn) for ref, what, mpn in COUNTED]
    for ref, c in sorted(pf.CABLES.items()):
        rows.append(
            (
                ref,
                "%d m" % math.ceil(need.get(ref, 0) * 1.1),
                "cable by the metre: %d AWG (%g mm²), %s%s"
                % (
                    c["awg"],
                    c["mm2"],
                    " + ".join(c["colours"]),
                    ", %d pF/m core to core" % c["pf_per_m"] if "pf_per_m" in c else "",
                ),
                c["mpn"],
            )
        )
    return rows


def confirm_problems(rows, entries=None):
    """Facts to confirm (partfacts.TO_CONFIRM) whose part the BOM does not buy:
    each entry names, in parentheses, the references it is about."""
    entries = pf.TO_CONFIRM if entries is None else entries
    covered = _covered(rows)
    out = []
    for part, _, _ in entries:
        refs = set(REF_RE.findall(part))
        if not refs or not refs <= covered:
            out.append("to-confirm entry %r names no part the BOM buys" % part)
    return out


def mains_cord_row(board):
    """The one E5 line: the cord for the site's socket (power.mains_cord)."""
    site = board["power"].get("mains_cord")
    what, mpn = MAINS_CORDS.get(site, ("mains cord for %r: no such site" % site, ""))
    return ("E5", 1, "mains cord for the site (power.mains_cord = %s): %s" % (site, what), mpn)


def cord_problems(board, rows):
    """Exactly one mains cord per build, one of the site cords, the site's."""
    site = board["power"].get("mains_cord")
    if site not in MAINS_CORDS:
        return ["power.mains_cord is %r; it must be one of %s" % (site, ", ".join(sorted(MAINS_CORDS)))]
    cords = [r for r in rows if r[0] == "E5"]
    if len(cords) != 1:
        return ["%d mains cord lines (E5) in one build: exactly one, the site's" % len(cords)]
    if cords[0][3] != MAINS_CORDS[site][1]:
        return ["E5 is %s, not the %s cord %s" % (cords[0][3], site, MAINS_CORDS[site][1])]
    return []


def reservoir_refs(board):
    """The rail reservoir capacitors: the C numbers after the eFuse capacitors."""
    nsw = len([1 for _, _, k in hl.offboard_lines(board) if k == "switch"])
    first = 2 + nsw + len(hw.feeds(board)) + 2 * (len(hw.feeds(board)) + 1)
    return ["C%d" % (first + k) for k in range(board["power"]["reservoir_count"])]


def bom_line_problems(rows):
    """Lines a buyer could not order: no part number, or a generic one."""
    out = []
    for ref, _qty, what, mpn in rows:
        text = str(mpn).strip()
        low = text.lower()
        if not text or any(word in low for word in NOT_ORDERABLE):
            out.append("BOM line %s (%s) has no orderable part number: %r" % (ref, what[:40], text))
    return out


def _covered(rows):
    """Every single reference designator the BOM's ref column covers (ranges expanded)."""
    out = set()
    for ref, _, _, _ in rows:
        for piece in str(ref).split(","):
            piece = piece.strip()
            m = re.match(r"^([A-Z]+)(\d+)–([A-Z]+)(\d+)$", piece)
            if m and m.group(1) == m.group(3):
                out.update("%s%d" % (m.group(1), k) for k in range(int(m.group(2)), int(m.group(4)) + 1))
            elif piece:
                out.add(piece)
    return out


# Header silk names such as "D2 (GPIO9)" are pins of the DevKitC, not parts.
_SILK_RE = re.compile(r"\b[A-Z]+\d* \(GPIO\d+\)")


def missing_refs(text, rows, wire_refs=()):
    """Reference designators named in `text` (a drawing's or README's text) that
    no BOM line (nor a wire of the Wires table, `wire_refs`) covers, sorted."""
    covered = _covered(rows) | set(wire_refs)
    covered |= {r.split(".")[0] for r in covered}  # "W1" names the feed pairs W1.1…

    def bought(m):
        return m in covered or m.split(".")[0] in covered  # W11.3 is one of the leads W11

    return sorted({m for m in REF_RE.findall(_SILK_RE.sub("", text)) if not bought(m)})
