# Writes the Markdown the technician reads that must never drift from board.json:
# pinout.md (whole file) and the generated sections of BOM.md (parts list, power budget).

import hwmodel as hw

STAMP = "Generated from `hardware/board.json` by `hardware/drawings.py`; edit the data, then re-run."


def _table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _a(ma):
    return "%.2f A" % (ma / 1000.0) if ma >= 100 else "%.0f mA" % ma


def pinout_md(board):
    uses = sorted(hw.gpio_uses(board), key=lambda u: (hw.header_pin(u[0])[:2], int(hw.header_pin(u[0])[3:])))
    rows = [(fn, "GPIO%d" % g, hw.header_pin(g), d, el, hw.NOTES.get(g, "")) for g, fn, d, el in uses]
    gnd = ", ".join(
        "%s-%d" % (h, i + 1) for h, pins in (("J1", hw.J1), ("J3", hw.J3)) for i, n in enumerate(pins) if n == "GND"
    )
    power = [
        (
            "5V",
            "J1-%d" % (hw.J1.index("5V") + 1),
            "in: +5 V rail through D1 %s (blocks back-feed "
            "into the supply when USB is plugged in)" % board["parts"]["supply_diode"],
        ),
        (
            "3V3",
            "J1-%d" % (hw.J1.index("3V3") + 1),
            "out: feeds the %s button pull-ups only" % hw.ohms(board["parts"]["input_pullup_ohm"]),
        ),
        ("GND", gnd, "common ground with the supply −V, U1 and the LED chain"),
    ]
    used = {u[0] for u in uses}
    avoid = []
    for label, pins, why in (
        ("flash", sorted(hw.FLASH), "wired to the module's SPI flash: using them crashes the board"),
        (
            "strapping",
            sorted(hw.STRAPPING),
            "read at reset to pick boot mode / flash voltage; "
            "an external pull or a pressed key there stops the board booting",
        ),
        ("UART0", sorted(hw.UART0), "the USB serial port (REPL, mpremote, esptool)"),
        ("input-only", sorted(hw.INPUT_ONLY), "no output driver and no internal pull-ups"),
    ):
        clash = sorted(set(pins) & used)
        avoid.append(
            (label, ", ".join("GPIO%d" % p for p in pins), why, "**USED: %s**" % clash if clash else "none used")
        )
    kp = board["keypad"]
    krows = []
    for r, row in enumerate(kp["labels"]):
        cells = ["`%s` %s" % (lab, board["keys"][lab]) for lab in row]
        krows.append(["R%d GPIO%d" % (r + 1, kp["rows"][r])] + cells)
    lamps = [
        (lp["pixel"], "`%s`" % lp["name"], lp["label"], lp["x"], lp["y"], hw.lamp_feed(board, lp["pixel"]))
        for lp in hw.lamps_by_pixel(board)
    ]
    st = board["strip"]
    return (
        "\n\n".join(
            [
                "# Pinout — %s" % board["board"],
                STAMP + " Wiring: [wiring.svg](wiring.svg). Build steps: [README.md](README.md).",
                "## GPIO map",
                _table(["function", "GPIO", "header pin", "direction", "electrical", "why this pin"], rows),
                "Header pins count from the antenna end: J1 is the row starting 3V3, EN; J3 the row "
                "starting GND, GPIO23 (Espressif's DevKitC V4 numbering).",
                "## Power pins",
                _table(["pin", "header", "use"], power),
                "## Pins kept free, and why",
                _table(["class", "pins", "why avoided", "this board"], avoid),
                "GPIO16 and GPIO17 are free only on WROOM modules: on a WROVER (PSRAM) DevKitC they are "
                "taken, so do not substitute a WROVER board.",
                "## Keypad matrix (key label and role)",
                "Scan every %d ms, debounce %d ms. Rows are outputs, columns inputs with pull-ups."
                % (kp["scan_ms"], kp["debounce_ms"]),
                _table(["row \\ column"] + ["C%d GPIO%d" % (i + 1, g) for i, g in enumerate(kp["cols"])], krows),
                "## LED chain",
                "%d × %s, colour order %s, data on GPIO%d, firmware brightness cap %d/255."
                % (st["count"], st["type"], st["order"], st["pin"], st["max_brightness"]),
                _table(["pixel", "name", "label", "x mm", "y mm", "feed"], lamps),
            ]
        )
        + "\n"
    )


def bom_parts(board):
    parts, pw, st = board["parts"], board["power"], board["strip"]
    b = hw.budget(board)
    n, nb = st["count"], len(board["buttons"]) - 1
    nrow = len(board["keypad"]["rows"])
    nf = len(b["feeds"])
    ref = hw.refs(board)
    buttons = [k for k in board["buttons"] if k != "supervisor_key"]
    rows_r = hw.span([ref["row%d" % (i + 1)] for i in range(nrow)])
    pull_r = hw.span([ref["pullup:" + k] for k in board["buttons"]])
    sw_r = hw.span([ref["switch:" + k] for k in buttons])
    rows = [
        ("U2", 1, "ESP32-DevKitC V4, ESP32-WROOM-32/32E, no PSRAM (not WROVER)", "Espressif ESP32-DevKitC-32E"),
        (
            "LED1–LED%d" % n,
            n,
            "%s addressable RGB lamp, 5 V, Ø%g mm, pre-wired pixel" % (st["type"], parts["lamp_diameter_mm"]),
            "WS2812B 12 mm diffused bullet pixel",
        ),
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
        (rows_r, nrow, "%s ¼ W, keypad row series resistors" % hw.ohms(parts["row_series_ohm"]), "metal film 1 %"),
        (
            pull_r,
            nb + 1,
            "%s ¼ W, button and keyswitch pull-ups to 3V3" % hw.ohms(parts["input_pullup_ohm"]),
            "metal film 1 %",
        ),
        (
            "C1",
            1,
            "%d µF electrolytic, ≥ 10 V, low ESR, at the strip input (F1)" % parts["bulk_cap_uf"],
            "Panasonic EEU-FR1C102 (16 V)",
        ),
        ("C2", 1, "%d nF ceramic, U1 decoupling" % parts["decoupling_nf"], "X7R 50 V"),
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
            "supervisor keyswitch, SPST-NO, key removable in OFF only",
            "19 mm cam lock switch",
        ),
        (
            "PS1",
            1,
            "%g V %g A (%g W) enclosed switching supply" % (pw["supply_v"], pw["supply_a"], b["supply_w"]),
            "Mean Well RS-25-5",
        ),
        ("FU1", 1, "fuse T%gA 5×20 mm + holder, +5 V output" % pw["fuse_a"], "slow-blow glass"),
        ("X1", 1, "IEC C14 mains inlet with fuse (T1A) and switch", "generic fused IEC inlet"),
        (
            "W1",
            "%.1f m" % (2 * nf * pw["feed_m"]),
            "%d AWG stranded, red + black, %d feed pairs of %g m" % (pw["feed_awg"], nf, pw["feed_m"]),
            "UL1007/1015",
        ),
        (
            "W2",
            "%.1f m" % (b["chain_m"] * 1.1),
            "%d AWG 3-core (+5V, GND, DATA) lamp links, incl. 10 %% spare" % pw["link_awg"],
            "LED pixel cable",
        ),
        ("—", 1, "perfboard / carrier for U1, R, C, D; lever or screw terminals for the rails", "WAGO 221"),
    ]
    return _table(["ref", "qty", "description", "example part (generic)"], rows)


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
        ("Fuse on +5 V", "above worst case, below supply rating", "T%gA" % b["fuse_a"]),
    ]
    feeds = [
        (name, "%d–%d" % (a, z), z - a + 1, _a((z - a + 1) * b["lamp_full_ma"]), _a((z - a + 1) * b["lamp_capped_ma"]))
        for name, a, z in b["feeds"]
    ]
    problems = hw.budget_problems(b)
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            _table(["item", "how", "value"], rows),
            "Power is injected at %d points (feeds), each its own %d AWG red/black pair of about %g m "
            "from the supply:" % (len(feeds), b["feed_awg"], b["feed_m"]),
            _table(["feed", "pixels", "lamps", "worst case", "at the cap"], feeds),
            "Voltage drop, supply to the farthest lamp of a feed (feed pair plus %d AWG pixel links, "
            "routed along the panel, %.1f m of link in all): **%.2f V** at full white (pixel %d), "
            "**%.2f V** at the cap; limit %.2f V."
            % (b["link_awg"], b["chain_m"], b["drop_full_v"], b["drop_full_at"], b["drop_cap_v"], b["max_drop_v"]),
            "Check: " + ("supply, fuse and wiring fit." if not problems else "**" + "; ".join(problems) + "**"),
        ]
    )


def splice(text, name, body):
    """Replace the text between the BEGIN/END markers called `name` in a Markdown file."""
    begin = "<!-- BEGIN GENERATED %s -->" % name
    end = "<!-- END GENERATED %s -->" % name
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError("markers for %r not found" % name)
    return text[: i + len(begin)] + "\n" + body.strip("\n") + "\n" + text[j:]
