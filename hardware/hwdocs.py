# Writes the Markdown the technician reads that must never drift from board.json:
# pinout.md (whole file), the table helpers, and the splicing of BOM.md's
# generated sections (their text is in hwbom.py).

import hwlines as hl
import hwmodel as hw
from hwsupply import D1_ROLE

STAMP = "Generated from `hardware/board.json` by `hardware/drawings.py`; edit the data, then re-run."


def _table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _a(ma):
    return "%.2f A" % (ma / 1000.0) if ma >= 100 else "%.0f mA" % ma


def pinout_md(board):
    uses = sorted(hl.gpio_uses(board), key=lambda u: (hw.header_pin(u[0])[:2], int(hw.header_pin(u[0])[3:])))
    rows = [(fn, "GPIO%d" % g, hw.header_pin(g), d, el, hw.NOTES.get(g, "")) for g, fn, d, el in uses]
    gnd = ", ".join(
        "%s-%d" % (h, i + 1) for h, pins in (("J2", hw.J2), ("J3", hw.J3)) for i, n in enumerate(pins) if n == "GND"
    )
    power = [
        (
            "5V",
            "J2-%d" % (hw.J2.index("5V") + 1),
            "in: the DevKitC's only supply, +5 V from EF4 through D1 %s. %s"
            % (board["parts"]["supply_diode"], D1_ROLE),
        ),
        (
            "3V3",
            "J2-%d" % (hw.J2.index("3V3") + 1),
            "out: feeds the %s pull-ups of the keypad columns and switch lines only"
            % hw.ohms(board["parts"]["input_pullup_ohm"]),
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
        ("PSRAM", sorted(hw.PSRAM), "the WROVER-E's PSRAM clock and chip select"),
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
        krows.append(["ROW%d GPIO%d" % (r + 1, kp["rows"][r])] + cells)
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
                "Header pins count from the antenna end: J2 is the row starting 3V3, EN; J3 the row "
                "starting GND, GPIO23, as in the DevKitC V4 schematic and the header table of "
                "Espressif's ESP32-DevKitC V4 user guide (older ESP-IDF pages numbered the left header differently).",
                "## Power pins",
                _table(["pin", "header", "use"], power),
                "## Pins kept free, and why",
                _table(["class", "pins", "why avoided", "this board"], avoid),
                "GPIO16 and GPIO17 drive the ESP32-WROVER-E's PSRAM (its clock and chip select): nothing "
                "on this board may touch them (`tests/test_hardware.py` refuses a `board.json` that does). "
                "GPIO34–39 are input-only and have no internal pull-ups: the lines on them (the eFuse "
                "FAULT flags, KEY_OFF) have their pull-up on the carrier and ask none of the chip "
                "(`nc_pull` `none`).",
                "## Keypad matrix (key label and role)",
                "Scan every %d ms, debounce %d ms. Rows are outputs, columns inputs with pull-ups. "
                "After driving a row the firmware must wait `keypad.settle_us` = %d µs before reading "
                "the columns (see BOM.md, Inputs)." % (kp["scan_ms"], kp["debounce_ms"], kp["settle_us"]),
                _table(["row \\ column"] + ["COL%d GPIO%d" % (i + 1, g) for i, g in enumerate(kp["cols"])], krows),
                "## Supervisor keyswitch (changeover contact)",
                keyswitch_md(board),
                "## LED chain",
                "%d × %s, colour order %s, data on GPIO%d, firmware brightness cap %d/255."
                % (st["count"], st["type"], st["order"], st["pin"], st["max_brightness"]),
                _table(["pixel", "name", "label", "x mm", "y mm", "feed"], lamps),
            ]
        )
        + "\n"
    )


def keyswitch_md(board):
    key = board["buttons"]["supervisor_key"]
    return _table(
        ["KEY_ON GPIO%d" % key["pin"], "KEY_OFF GPIO%d" % key["nc_pin"], "meaning"],
        [
            ("low", "high", "supervisor **on** (NO contact closed)"),
            ("high", "low", "supervisor off (NC contact closed)"),
            ("low", "low", "**fault**: shorted lead or contact; never supervisor mode (shown on the board, journaled)"),
            ("high", "high", "**fault**: open lead, unplugged X3, or the key between positions"),
        ],
    ) + (
        "\n\nboard.json: `buttons.supervisor_key.pin` is the NO contact (unchanged, so older firmware "
        "still reads it), `contact` is `changeover` and `nc_pin` the NC contact."
    )


def splice(text, name, body):
    """Replace the text between the BEGIN/END markers called `name` in a Markdown file."""
    begin = "<!-- BEGIN GENERATED %s -->" % name
    end = "<!-- END GENERATED %s -->" % name
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError("markers for %r not found" % name)
    return text[: i + len(begin)] + "\n" + body.strip("\n") + "\n" + text[j:]
