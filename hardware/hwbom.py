# The generated sections of BOM.md: the parts list, the inputs (protection on
# every off-board line and the keypad settle time) and the power budget with a
# fuse per branch. Every figure is computed from board.json and partfacts.py.

import hwlines as hl
import hwmodel as hw
import partfacts as pf
from hwdocs import STAMP, _a, _table


def bom_parts(board):
    parts, pw, st = board["parts"], board["power"], board["strip"]
    b = hw.budget(board)
    n = st["count"]
    nb = len(board["buttons"]) - 1
    ref = hl.refs(board)
    lines = hl.offboard_lines(board)
    buttons = [k for k in board["buttons"] if k != "supervisor_key"]
    by = lambda prefix, kinds: [ref[prefix + net] for net, _, kind in lines if kind in kinds]  # noqa: E731
    rows_r, pull_r = by("series:", ("row",)), by("pullup:", ("col", "switch"))
    ser_r, caps = by("series:", ("col", "switch")), by("filter:", ("switch",))
    sw_r = hw.span([ref["switch:" + k] for k in buttons])
    ntvs = hl.tvs_count(board)
    branches = b["branches"]
    nfeed = len(b["feeds"])
    conns = hl.connectors(board)
    ncol = len(board["keypad"]["cols"])
    nsw = len(lines) - 2 * ncol - 1
    rows = [
        ("U2", 1, "ESP32-DevKitC V4, ESP32-WROOM-32/32E, no PSRAM (not WROVER)", "Espressif ESP32-DevKitC-32E"),
        ("—", 2, "19-way female header 2.54 mm, DevKitC socket (J2, J3)", "Samtec SSW-119-01-T-S"),
        (
            "U1",
            1,
            "%s quad buffer, 5 V supply, TTL-level inputs, DIP-14 + socket" % parts["level_shifter"],
            "TI SN74AHCT125N",
        ),
        (
            ref["series"],
            1,
            "%s ¼ W, data series resistor at U1 output" % hw.ohms(parts["data_series_ohm"]),
            "metal film 1 %",
        ),
        (
            ref["pulldown"],
            1,
            "%s ¼ W, data-line pull-down (strip dark during reset)" % hw.ohms(parts["data_pulldown_ohm"]),
            "metal film 1 %",
        ),
        (
            hw.span(rows_r),
            len(rows_r),
            "%s ¼ W, keypad row series resistors" % hw.ohms(parts["row_series_ohm"]),
            "metal film 1 %",
        ),
        (
            hw.span(pull_r),
            len(pull_r),
            "%s ¼ W, pull-ups to 3V3 at the connector: keypad columns, switch lines"
            % hw.ohms(parts["column_pullup_ohm"]),
            "metal film 1 %",
        ),
        (
            hw.span(ser_r),
            len(ser_r),
            "%s ¼ W, series resistors between connector and GPIO: columns, switch lines"
            % hw.ohms(parts["input_series_ohm"]),
            "metal film 1 %",
        ),
        (
            "%s–U%d" % ("U3", 2 + ntvs),
            ntvs,
            "low-capacitance 4-channel TVS array (%g pF, %g V), one channel on every off-board line, "
            "at the connectors; on SC70-6 adapters" % (pf.TVS["line_pf"], pf.TVS["vrwm"]),
            "TI %s" % pf.TVS["part"],
        ),
        (
            "C1",
            1,
            "%d µF electrolytic, ≥ 10 V, low ESR, at the strip input (F1)" % parts["bulk_cap_uf"],
            "Panasonic EEU-FR1C102 (16 V)",
        ),
        ("C2", 1, "%d nF ceramic, U1 decoupling" % parts["decoupling_nf"], "X7R 50 V"),
        (
            hw.span(caps),
            len(caps),
            "%d nF ceramic, switch-line RC filter at the GPIO" % parts["switch_filter_nf"],
            "X7R 50 V",
        ),
        ("D1", 1, "Schottky diode, +5 V rail to DevKitC 5V pin", parts["supply_diode"]),
        (
            "KP1",
            1,
            "4×4 membrane keypad, 8-way 2.54 mm tail, labels %s"
            % " ".join("".join(r) for r in board["keypad"]["labels"]),
            "generic 4x4 matrix membrane keypad",
        ),
        (sw_r, nb, "momentary push button, SPST-NO, panel mount (%s)" % ", ".join(buttons), "16 mm or 19 mm, IP65"),
        (
            ref["switch:supervisor_key"],
            1,
            "supervisor keyswitch, **changeover (SPDT)** contact, key removable in OFF only",
            "19 mm cam lock switch, 1 NO + 1 NC",
        ),
        (
            "LED1–LED%d" % n,
            n,
            "%s lamp, 5 V, Ø%g mm, in %d pre-wired strings (below); no hand splices"
            % (st["type"], parts["lamp_diameter_mm"], len(b["strings"])),
            "WS2812B 12 mm diffused bullet pixel",
        ),
    ]
    for name, first, last, pitch in b["strings"]:
        rows.append(
            (
                "W%s" % name,
                1,
                "pre-wired pixel string for %s: %d pixels (%d–%d), %d mm between pixels, %d AWG 3-core, "
                "JST SM 3-way latching plug in / socket out, power tails at the input"
                % (name, last - first + 1, first, last, pitch, pw["link_awg"]),
                "custom-pitch 12 mm pixel string",
            )
        )
    rows += [
        (
            "—",
            nfeed - 1,
            "section joiner: JST SM 3-way plug-to-socket lead, DATA and GND only, +5 V pin left empty",
            "JST SM 3-way pigtail pair",
        ),
        (
            "PS1",
            1,
            "%g V %g A (%g W) enclosed switching supply" % (pw["supply_v"], pw["supply_a"], b["supply_w"]),
            "Mean Well RS-25-5",
        ),
    ]
    for fref, what, fuse, _, _, _ in branches:
        rows.append((fref, 1, "fuse T%gA 5×20 mm time-lag + holder, %s" % (fuse, what), "Littelfuse 0218 series"))
    for cref, what, pins in conns:
        rows.append(
            (
                cref,
                1,
                "%d-way keyed, polarised, latching header + plug with crimps, %s (%s); labelled both ends"
                % (len(pins), what, ", ".join(pins)),
                pf.CONNECTOR["family"],
            )
        )
    rows += [
        ("—", nfeed, "feed-end 2-way JST SM latching pair to the string's power tails (red +5V)", "JST SM 2-way"),
        (
            "W1",
            "%.1f m" % (2 * nfeed * pw["feed_m"]),
            "%d AWG stranded, red + black, %d feed pairs of %g m" % (pw["feed_awg"], nfeed, pw["feed_m"]),
            "UL1007/1015",
        ),
        (
            "W2",
            "%.1f m" % board["keypad"]["cable_max_m"],
            "keypad cable, 8 cores + overall screen, ≤ %g pF/m, screen to GND at X2 only"
            % board["keypad"]["cable_pf_per_m"],
            "8-core 0.14 mm² screened (e.g. LiYCY 8×0.14)",
        ),
        (
            "W3",
            "%.1f m" % board["keypad"]["cable_max_m"],
            "panel switch cable, %d cores (%d contacts + GND) + screen" % (nsw + 1, nsw),
            "LiYCY 7×0.14",
        ),
        ("W4", "1.0 m", "LED data lead, twisted pair (DATA + GND)", "0.25 mm² twisted pair"),
        ("—", 1, "perfboard / carrier for U1, U3–U%d, R, C, D; lever terminals for the rails" % (2 + ntvs), "WAGO 221"),
        ("—", 4, "M3 × 10 mm nylon standoffs and screws, carrier mounting", "M3 nylon"),
        ("—", 1, "carrier enclosure, ABS, cable glands for W1–W4", "IP54 ABS box 150×110×70"),
        ("—", 20, "adhesive cable-tie mounts and ties, strain relief along the panel", "—"),
        ("—", 1, "heat-shrink lead labels (F1–F%d, DATA, KEYPAD, SWITCHES, X-numbers)" % nfeed, "printed sleeve"),
        # Mains side: PS1 and X1 live in their own earthed, closed enclosure.
        ("X1", 1, "IEC C14 mains inlet with fuse (T1A) and switch, panel mount in the PSU enclosure", "Schurter DD11"),
        (
            "E1",
            1,
            "**earthed closed metal enclosure** for PS1 and X1 (mains parts), no openings larger than 4 mm",
            "Hammond 1590 series, with earth stud",
        ),
        ("E2", 1, "terminal cover over PS1's mains screw terminals", "clip-on terminal cover / Mean Well RS cover"),
        (
            "E3",
            1,
            "earth bonding: M4 earth stud, star washer, green/yellow 1.0 mm² from X1 earth to stud and PS1 FG",
            "ring tongues M4",
        ),
        ("E4", 2, "cable gland (strain relief) for the DC leads leaving E1", "M16 nylon gland, IP68"),
        ("E5", 1, "mains cord, IEC C13, 2 m, with strain-relieved moulded plug", "3 × 0.75 mm² H05VV-F"),
    ]
    return _table(["ref", "qty", "description", "example part (generic)"], rows)


def bom_inputs(board):
    """The inputs section: protection on every off-board line and the keypad timing."""
    ref = hl.refs(board)
    parts, kp = board["parts"], board["keypad"]
    gpio = {net: g for net, g, _ in hl.offboard_lines(board)}
    conn = {net: (cref, i + 1) for cref, _, pins in hl.connectors(board) for i, net in enumerate(pins)}
    rows = []
    for net, _, kind in hl.offboard_lines(board):
        pull = ref.get("pullup:" + net, "—")
        series = ref["series"] if kind == "data" else ref["series:" + net]
        rows.append(
            (
                net,
                "GPIO%d" % gpio[net],
                "%s-%d" % conn[net],
                kind,
                series,
                pull,
                ref.get("filter:" + net, "—"),
                ref["tvs:" + net],
            )
        )
    tau = hl.column_tau_us(board)
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            _table(["net", "GPIO", "connector", "kind", "series R", "pull-up", "RC cap", "TVS"], rows),
            "Keypad cable at most **%g m** (%g pF/m budget) plus %g pF stray (tail, carrier, GPIO) and "
            "%g pF per TVS channel (%s datasheet) = **%.1f pF** per column. A released column "
            "charges through %s + %s: τ = %.2f µs, and reaches 99 %% (5 τ) in %.2f µs. The firmware "
            "must wait **`keypad.settle_us` = %d µs** after driving each row before reading the columns "
            "(%d rows: %d µs per %d ms scan). A longer cable needs a longer wait: change "
            "`keypad.cable_max_m`, then set `keypad.settle_us` to the value `drawings.py` reports (it "
            "refuses a `settle_us` that does not match the RC, and so does `tests/test_hardware.py`)."
            % (
                kp["cable_max_m"],
                kp["cable_pf_per_m"],
                kp["stray_pf"],
                pf.TVS["line_pf"],
                pf.TVS["part"],
                hl.column_pf(board),
                hw.ohms(parts["column_pullup_ohm"]),
                hw.ohms(parts["input_series_ohm"]),
                tau,
                5 * tau,
                kp["settle_us"],
                len(kp["rows"]),
                len(kp["rows"]) * kp["settle_us"],
                kp["scan_ms"],
            ),
            "A pressed key pulls its column to **%.2f V** (pull-ups %s ∥ internal ~%s against the %s row "
            "resistor and a worn %d Ω contact), below the ESP32's low threshold of %.2f V "
            "(ESP32 datasheet, DC characteristics: V_IL ≤ 0.25 × VDD)."
            % (
                hl.key_low_v(board),
                hw.ohms(parts["column_pullup_ohm"]),
                hw.ohms(pf.ESP32_INTERNAL_PULLUP_OHM),
                hw.ohms(parts["row_series_ohm"]),
                pf.KEYPAD_CONTACT_OHM_MAX,
                pf.ESP32_VIL_FRAC * pf.ESP32_VDD,
            ),
            "Switch lines: %s pull-up and %s series into %d nF, τ = %.2f ms on release; far inside the "
            "%d ms debounce, and it strips ESD and mains-hum spikes the TVS lets through."
            % (
                hw.ohms(parts["input_pullup_ohm"]),
                hw.ohms(parts["input_series_ohm"]),
                parts["switch_filter_nf"],
                hl.switch_tau_ms(board),
                kp["debounce_ms"],
            ),
            "Check: "
            + (
                "inputs, connectors and timing fit."
                if not (hl.input_problems(board) + hl.connector_problems(board))
                else "**" + "; ".join(hl.input_problems(board) + hl.connector_problems(board)) + "**"
            ),
        ]
    )


def bom_power(board):
    b = hw.budget(board)
    pw = board["power"]
    n = b["count"]
    rows = [
        ("Lamps, all full white (worst case)", "%d × %d mA" % (n, b["lamp_full_ma"]), _a(b["lamps_full_ma"])),
        ("Firmware brightness cap", "%d / 255" % b["cap"], "%.1f %%" % b["cap_pct"]),
        (
            "Lamps, all white at the cap",
            "%d × %d mA × %d/255 = %d × %.1f mA" % (n, b["lamp_full_ma"], b["cap"], n, b["lamp_capped_ma"]),
            _a(b["lamps_capped_ma"]),
        ),
        ("Lamps dark (idle current)", "%d × %g mA" % (n, pw["lamp_idle_ma"]), _a(b["idle_ma"])),
        ("ESP32-DevKitC (incl. radio peaks)", "budgeted", _a(b["controller_ma"])),
        ("Level shifter U1", "budgeted", _a(b["shifter_ma"])),
        (
            "**Worst case total** (cap bypassed, all white)",
            "lamps + controller + U1",
            "**%s = %.1f W**" % (_a(b["worst_ma"]), b["worst_w"]),
        ),
        (
            "**Normal maximum** (at the cap, all white)",
            "",
            "**%s = %.1f W**" % (_a(b["capped_total_ma"]), b["capped_w"]),
        ),
        ("Supply needed", "worst case × %g margin" % b["margin"], _a(b["required_ma"])),
        (
            "**Supply chosen**",
            "%g V × %g A" % (b["supply_v"], b["supply_ma"] / 1000),
            "**%g W: %.2f × worst case; %.0f %% load at the cap**"
            % (b["supply_w"], b["headroom"], b["capped_load_pct"]),
        ),
        (
            "Supply current limit",
            "overload protection %d–%d %% (hiccup)" % tuple(100 * f for f in pf.SUPPLY_LIMIT_FACTOR),
            "%.1f–%.1f A" % b["supply_limit_a"],
        ),
    ]
    lo = b["supply_limit_a"][0]
    others = sum(br[4] for br in b["branches"]) / 1000.0
    fuses = []
    for ref, what, fuse, worst, normal, wires in b["branches"]:
        smallest = min(pf.AWG_AMPACITY_A[awg] for _, awg in wires)
        t = hw.fuse_opens_within_s(fuse, lo - others + normal / 1000.0)
        fuses.append(
            (
                ref,
                what,
                _a(worst),
                _a(normal),
                "T%gA" % fuse,
                ", ".join("%s %d AWG (%g A)" % (w, awg, pf.AWG_AMPACITY_A[awg]) for w, awg in wires),
                "%.0f %%" % (100.0 * fuse / smallest),
                "%.2f A" % (pf.FUSE_T_OPEN_BY[0][0] * fuse),
                "≤ %g s" % t if t else "**never**",
            )
        )
    strings = [
        (name, "%d–%d" % (a, z), z - a + 1, "%d mm" % pitch, _a((z - a + 1) * b["lamp_full_ma"]))
        for name, a, z, pitch in b["strings"]
    ]
    problems = hw.budget_problems(b)
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            _table(["item", "how", "value"], rows),
            "Every branch from the rail has its own time-lag fuse, sized for the **thinnest wire it "
            "protects**, not for the supply. Ampacity: %s. Fuse opening times: %s. The last column is "
            "the longest time to open on a short, when the supply delivers at least its lowest "
            "current limit (%.1f A, %s) and the other branches draw their normal load."
            % (pf.AMPACITY_SOURCE, pf.FUSE_SOURCE, lo, pf.SUPPLY_SOURCE),
            _table(
                [
                    "fuse",
                    "branch",
                    "worst case",
                    "at the cap",
                    "fuse",
                    "wires (ampacity)",
                    "fuse / thinnest wire",
                    "opens within 2 min above",
                    "short opens it",
                ],
                fuses,
            ),
            "Each fuse carries its worst case at no more than %d %% of its rating (fuse derating), and "
            "opens within 2 minutes at 2.1 × its rating, which the supply can deliver with the other "
            "branches running. A single fuse for all lamps could not: a T4A needs 8.4 A to open within "
            "2 minutes, above the supply's limit, so a failed pixel drawing 1–5 A would flow unchecked. "
            "A fault between a branch's worst case and 2.1 × its fuse may run for minutes; it stays far "
            "below the same table's chassis-wiring rating (18 AWG %g A, 22 AWG %g A), so no wire overheats."
            % (pf.FUSE_DERATE * 100, pf.AWG_CHASSIS_A[18], pf.AWG_CHASSIS_A[22]),
            "Power is injected at %d points (feeds), each its own %d AWG red/black pair of about %g m "
            "from the supply to a pre-wired pixel string; **+5 V is not linked between strings** (the "
            "section joiners carry DATA and GND only), so each fuse alone feeds its section:"
            % (len(strings), b["feed_awg"], b["feed_m"]),
            _table(["feed", "pixels", "lamps", "string pitch", "worst case"], strings),
            "Voltage drop, supply to the farthest lamp of a feed (feed pair plus %d AWG string links at "
            "the string's pitch, %.1f m of string in all): **%.2f V** at full white (pixel %d), "
            "**%.2f V** at the cap; limit %.2f V (WS2812B datasheet: VDD %.1f–%.1f V)."
            % (
                b["link_awg"],
                b["chain_m"],
                b["drop_full_v"],
                b["drop_full_at"],
                b["drop_cap_v"],
                b["max_drop_v"],
                pf.WS2812B["vdd_min"],
                pf.WS2812B["vdd_max"],
            ),
            "Check: " + ("supply, fuses and wiring fit." if not problems else "**" + "; ".join(problems) + "**"),
        ]
    )
