# The generated sections of BOM.md: the parts list (hwparts.py), the wires
# (hwwires.py), the inputs (protection on every off-board line and the keypad
# settle time) and the power budget with an eFuse per branch. Every figure is
# computed from board.json and partfacts.py.

import hwbonds
import hwlatch
import hwlines as hl
import hwmodel as hw
import hwparts as hp
import hwprotect
import hwwires as hw_wires
import partfacts as pf
from hwdocs import STAMP, _a, _table


def bom_parts(board):
    rows = hp.parts_rows(board)
    problems = hp.bom_line_problems(rows) + hp.cord_problems(board, rows) + hwbonds.bond_problems(hp._covered(rows))
    problems += hp.confirm_problems(rows)
    unsure = {m for part, _, _ in pf.TO_CONFIRM for m in hp.REF_RE.findall(part)}
    note = " (to confirm before ordering: below)"
    shown = [
        (ref, qty, what + (note if hp._covered([(ref, 0, "", "")]) & unsure else ""), mpn)
        for ref, qty, what, mpn in rows
    ]
    table = _table(["ref", "qty", "description", "manufacturer part number"], shown)
    site = board["power"].get("mains_cord")
    cords = [
        (name, what, mpn, "**this build**" if name == site else "")
        for name, (what, mpn) in sorted(hp.MAINS_CORDS.items())
    ]
    return "\n\n".join(
        [table + ("\n\n**" + "; ".join(problems) + "**" if problems else ""),
         "**Mains cord by site.** The build buys exactly one E5, the cord for the site's socket: set "
         "`power.mains_cord` in `board.json` and regenerate (the checks refuse none, two, or one that is "
         "not the site's).",
         _table(["power.mains_cord", "cord", "manufacturer part number", ""], cords),
         "**To confirm before ordering.** The checks take these facts as true, but no published source "
         "in hand confirms them; check each against the document named, and correct `partfacts.py` "
         "(the checks follow) where it differs:",
         _table(["part", "taken as true", "confirm against"], list(pf.TO_CONFIRM))]
    )  # fmt: skip


def bom_wires(board):
    rows = [
        (ref, what, "%d AWG" % awg, "%.1f m" % length, colours, a, b)
        for ref, what, awg, length, colours, a, b in hw_wires.wires(board)
    ]
    problems = hw_wires.wire_problems(board)
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            _table(["wire", "what", "gauge", "length", "colours", "end A", "end B"], rows),
            "Terminal gauge ranges: %s. Check: %s"
            % (
                pf.TERMINAL_SOURCE,
                "every wire fits the terminals on it." if not problems else "**" + "; ".join(problems) + "**",
            ),
        ]
    )


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
    others = sum(br[5] for br in b["branches"]) / 1000.0
    prot = []
    for ref, what, kind, rating, worst, normal, wires in b["branches"]:
        cuts_from, runs_up_to = hwprotect.protector(kind, rating)
        prot.append(
            (
                ref,
                what,
                _a(worst),
                _a(normal),
                ("eFuse %g A" % rating) if kind == "efuse" else "T%gA" % rating,
                "%.2f–%.2f A" % (cuts_from, runs_up_to),
                ", ".join("%s %d AWG (%g A)" % (w, awg, pf.AWG_AMPACITY_A[awg]) for w, awg in wires),
                "%.2f A" % (runs_up_to + others - normal / 1000.0),
                "%.1f W" % ((runs_up_to - worst / 1000.0) * b["supply_v"]),
            )
        )
    strings = [
        (name, "%d–%d" % (a, z), z - a + 1, "%d mm" % pitch, _a((z - a + 1) * b["lamp_full_ma"]))
        for name, a, z, pitch in b["strings"]
    ]
    problems = hwprotect.budget_problems(b)
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            _table(["item", "how", "value"], rows),
            "Every branch from the rail has its own **eFuse** (%s): it limits the current at its trip "
            "point and **latches off**, pulling its FAULT flag low to a GPIO, until the board is "
            "switched off and on. A fuse could not do this job: the supply (%s) answers an overload "
            "by hiccuping, which resets the ESP32 with the fuse intact, and a T-fuse lets up to "
            "2.1 × its rating run for minutes (%s). The table checks, for every branch: the trip "
            "point (at its datasheet worst case for its RILIM; ±%d %% budgeted where none is listed) "
            "sits above the worst-case load and below the thinnest "
            "wire's ampacity (%s), the current at which it acts plus the other branches' normal "
            "load stays below the supply's lowest limit (%.1f A) so the supply never hiccups first, "
            "and a fault just below the trip adds at most %g W."
            % (
                pf.EFUSE_SOURCE,
                pf.SUPPLY_SOURCE,
                pf.FUSE_SOURCE,
                round(pf.EFUSE["trip_tolerance"] * 100),
                pf.AMPACITY_SOURCE,
                lo,
                b["fault_w"],
            ),
            _table(
                [
                    "eFuse",
                    "branch",
                    "worst case",
                    "at the cap",
                    "trip",
                    "trips between",
                    "wires (ampacity)",
                    "supply must give",
                    "fault below trip adds",
                ],
                prot,
            ),
            "DC trunk W0 from PS1 to the rails: %d AWG pair of %g m carrying the worst case %s "
            "(ampacity %g A); its drop is part of the voltage-drop figure below."
            % (b["trunk_awg"], b["trunk_m"], _a(b["trunk_ma"]), pf.AWG_AMPACITY_A[b["trunk_awg"]]),
            "Power is injected at %d points (feeds), each its own %d AWG red/black pair of about %g m "
            "from the supply to a pre-wired pixel string; **+5 V is not linked between strings** (the "
            "section joiners carry DATA and GND only), so each eFuse alone feeds its section:"
            % (len(strings), b["feed_awg"], b["feed_m"]),
            _table(["feed", "pixels", "lamps", "string pitch", "worst case"], strings),
            "Voltage drop, supply to the farthest lamp of a feed (trunk, feed pair, and %d AWG string links at "
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
        + bom_latch(board)
    )


def bom_latch(board):
    """Can a healthy feed latch itself off? (hwlatch.py): the table and its check."""
    e, pw, parts = pf.EFUSE, board["power"], board["parts"]
    rows = [
        (ref, "%.1f µF" % uf, "—" if ms is None else "%.2f ms" % ms, "%.0f mV" % (rev * 1e3))
        for ref, uf, ms, rev in hwlatch.latch_rows(board)
    ]
    problems = hwlatch.latch_problems(board)
    return [
        "**No feed latches on its own load.** The %s limits current within microseconds but latches only "
        "after its fault deglitch (%g / %g / %g ms min / typ / max), and also latches when OUT stays %g / %g / "
        "%g mV above IN for %g / %g / %g ms (its switch conducts both ways until then, up to %g Ω). Hot mate: a "
        "string plugged onto a live feed (or a feed switching on at power-up) charges its output capacitance "
        "(the %g µF string capacitor +%d %%, the %g µF output ceramic, %g nF per pixel) at the smallest current "
        "limit, its lamps lit at the cap meanwhile, from a rail trimmed as high as %g V: it must finish before "
        "%g ms. Rail dip: PS1 delivers nothing while every other branch draws the most its eFuse lets run; the "
        "rail reservoir (%d × %g µF −%d %% at TB1/TB2) carries them, and a string capacitor's share of that "
        "current, flowing back through its switch, must stay under %g mV however briefly (the check does not "
        "count on the %g ms the reverse voltage must last). Figures from %s. Strings **may be mated live**."
        % (
            e["part"],
            *e["deglitch_ms"],
            *[v * 1e3 for v in e["reverse_trip_v"]],
            *e["reverse_off_ms"],
            e["rds_on_max_ohm"],
            parts["bulk_cap_uf"],
            round(pf.ELECTROLYTIC_TOL * 100),
            parts["efuse_cap_uf"],
            parts["pixel_cap_nf"],
            pw["rail_max_v"],
            e["deglitch_ms"][0],
            pw["reservoir_count"],
            parts["reservoir_cap_uf"],
            round(pf.ELECTROLYTIC_TOL * 100),
            e["reverse_trip_v"][0] * 1e3,
            e["reverse_off_ms"][0],
            pf.EFUSE_FIGURES,
        ),  # fmt: skip
        _table(["eFuse", "output capacitance (max)", "hot mate at the limit", "reverse voltage in a dip"], rows),
        "Check: " + ("no feed latches on its own load." if not problems else "**" + "; ".join(problems) + "**"),
    ]
