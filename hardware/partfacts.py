# Published figures about parts and materials (not about this product), each with
# the document it comes from, so BOM.md and the checks can cite them. Choices for
# this board (which fuse, which wire, which supply) live in board.json.

# Copper wire ampacity, amperes, by AWG: the "maximum amps for power transmission"
# column of the American Wire Gauge table in the Handbook of Electronic Tables and
# Formulas (700 circular mils per ampere). It is the most conservative published
# rating, chosen because the feeds run bundled in a closed table with no airflow;
# the same table's "chassis wiring" column (18 AWG 16 A, 20 AWG 11 A) is for
# single wires in free air.
AWG_AMPACITY_A = {16: 3.7, 18: 2.3, 20: 1.5, 22: 0.92, 24: 0.577}
AWG_CHASSIS_A = {16: 22, 18: 16, 20: 11, 22: 7, 24: 3.5}
AMPACITY_SOURCE = "Handbook of Electronic Tables and Formulas, AWG table, power-transmission column"

# Time-lag (T) 5×20 mm fuses, IEC 60127-2 standard sheet 3 (as in the Littelfuse
# 218 series datasheet): (multiple of rated current, longest time to open, s).
# A fault current below 2.1 × In may never open the fuse.
FUSE_T_OPEN_BY = ((2.1, 120.0), (2.75, 10.0), (4.0, 3.0), (10.0, 0.3))
FUSE_SOURCE = "IEC 60127-2 standard sheet 3 (time-lag), e.g. Littelfuse 218 series datasheet"
# IEC 60127 rated currents (the R10 series): a "T1.5A" is not one of them.
IEC_FUSE_STEPS = (1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0)
# Fuses run at no more than 75 % of their rating in continuous service
# (Littelfuse fuseology guide, derating at 25 °C).
FUSE_DERATE = 0.75

# Mean Well RS-25-5 datasheet: overload protection at 110-150 % of rated output
# power, hiccup mode; so the current limit lies between these two currents.
SUPPLY_LIMIT_FACTOR = (1.10, 1.50)
SUPPLY_SOURCE = "Mean Well RS-25 series datasheet (overload protection 110-150 %, hiccup mode)"

# WS2812B (Worldsemi datasheet): supply range and data-input threshold. A reversed
# supply (below -0.5 V on VDD) destroys the part, hence keyed feed connectors.
WS2812B = {"vdd_min": 3.5, "vdd_max": 5.3, "vih_frac": 0.7, "vdd_abs_min": -0.5}
# Per-lamp full-white current used in the budget: 3 channels × 20 mA (Adafruit
# NeoPixel Überguide's planning figure; the datasheet channel current is lower).
LAMP_SOURCE = "Worldsemi WS2812B datasheet; Adafruit NeoPixel Überguide (60 mA per pixel at full white)"

# ESP32 datasheet, DC characteristics (3.3 V, 25 °C): logic thresholds as a
# fraction of VDD, and the internal pull-up (about 45 kΩ, not a guaranteed value).
ESP32_VIH_FRAC = 0.75
ESP32_VIL_FRAC = 0.25
ESP32_VDD = 3.3
ESP32_INTERNAL_PULLUP_OHM = 45000

# TI TPD4E1U06 datasheet: 4-channel ESD array, 0.8 pF line capacitance (typ),
# 5.5 V working voltage, IEC 61000-4-2 ±15 kV contact.
TVS = {"part": "TPD4E1U06", "channels": 4, "line_pf": 0.8, "vrwm": 5.5, "iec_contact_kv": 15}

# TI TPS255x / TPS255x-1 datasheet, SLVS841. Its description (revision G,
# October 2026, the current one on TI's document viewer, and every earlier
# one): up to 1.5 A continuous; current limit programmable 75 mA to 1.7 A
# (typical) with one resistor (RILIM), ±6 % at the higher settings; the "-1"
# parts latch the switch off on an overcurrent *or* a reverse voltage (OUT
# driven above IN) until EN or the supply is cycled, and FAULT asserts low in
# both. The figures below are those of revision F (November 2008, revised
# August 2016), section 7.5 Electrical Characteristics, p. 7, for the SOT-23
# (DBV) package this board buys, and sections 9.3.1-9.3.3, pp. 13-14; product
# folder http://www.ti.com/product/tps2552. Source in hand: a text copy of
# that PDF held in a public repository; the mirror
# http://hkdtupc.cn/tps2552drvr-1_datasheet_11663022_4.html (an earlier
# revision) gives the same 7.5 ms and 4 ms typical deglitches. Revision G
# renumbers the table 6.5 and adds a Quick Output Discharge section.
#   overcurrent: limits within 2 µs, FAULT deglitch 5 / 7.5 / 10 ms
#     (min / typ / max), then the -1 part latches off;
#   reverse voltage: comparator trip (VOUT - VIN) 95 / 135 / 190 mV; the
#     switch turns off 3 / 5 / 7 ms after the condition starts (VIN = 5 V),
#     FAULT after its own 2 / 4 / 6 ms deglitch, and a reverse current of
#     (VOUT - VIN) / rDS(on) flows meanwhile: the switch conducts both ways;
#   rDS(on): 85 mΩ typ, 95 mΩ max at TJ = 25 °C, 135 mΩ max over -40-125 °C;
#   continuous current: 1.5 A up to TJ = 105 °C, 1.2 A up to 125 °C.
# The checks budget ±8 % on a trip point without a Table 2 row (the ±6 % plus
# the 1 % RILIM's share). The latch check counts a reverse voltage past the
# comparator's minimum as a latch however briefly it lasts: the 3 ms it must
# last first is the part's, and a rail dip that long is a brown-out anyway.
EFUSE = {
    "part": "TPS2552-1",
    "mpn": "TPS2552DBVR-1",
    "trip_range_a": (0.075, 1.7),
    "continuous_a": 1.5,
    "trip_tolerance": 0.08,
    "vin_max": 5.5,
    "behaviour": "latch-off",
    "deglitch_ms": (5.0, 7.5, 10.0),
    "reverse_trip_v": (0.095, 0.135, 0.190),
    "reverse_off_ms": (3.0, 5.0, 7.0),
    "reverse_fault_ms": (2.0, 4.0, 6.0),
    "rds_on_max_ohm": 0.135,
}
EFUSE_FIGURES = "TI SLVS841F, 7.5 Electrical Characteristics (DBV package)"
# The same datasheet's auto-retry parts (no "-1"): they restart after every
# deglitch, so a short keeps cycling and FAULT only pulses. Listed so the
# checks can show they refuse one.
EFUSE_AUTO_RETRY = dict(EFUSE, part="TPS2552", mpn="TPS2552DBVR", behaviour="auto-retry")

# Aluminium electrolytics (Panasonic FR series datasheet): capacitance
# tolerance ±20 % at 120 Hz.
ELECTROLYTIC_TOL = 0.20
EFUSE_SOURCE = (
    "TI TPS255x/TPS255x-1 datasheet (SLVS841F, Electrical Characteristics; SLVS841G): "
    "latch-off current limit 75 mA-1.7 A, FAULT open-drain"
)
# The same datasheet, "Common RILIM Resistor Selections" (Table 1 in SLVS841E,
# Table 2 in SLVS841F, the same rows):
# for a desired trip point, the closest 1 % RILIM and the current-limit
# threshold it gives at its worst, the resistor's 1 % tolerance included:
# trip A -> (RILIM kΩ, IOS min A, IOS max A). A branch's trip point must be a
# row here: the checks use these limits, not the ±8 % budget.
EFUSE_RILIM = {
    0.3: (88.7, 0.2621, 0.3423),
    0.9: (28.7, 0.8247, 0.9887),
    1.2: (21.5, 1.1060, 1.2971),
}

# Molex Micro-Fit 3.0 product specification (PS-43045 / PS-43650): keyed,
# polarised housings with a positive latch, crimped 18 to 30 AWG with the
# terminal made for each range; 5 A per circuit (IEC rating).
CONNECTOR = {"family": "Molex Micro-Fit 3.0", "rating_a": 5.0, "keyed": True, "latching": True}

# Membrane keypad contact resistance, worst case budgeted for a worn generic 4×4
# keypad (vendors state 100-500 Ω); the low level a pressed key must reach.
KEYPAD_CONTACT_OHM_MAX = 500
# JST SM series datasheet: keyed, latching wire-to-wire housing, 3 A per circuit,
# SYM-001T-P0.6 contacts for 22-28 AWG only: the usual plug of pre-wired pixel
# strings, and the reason an 18 or 20 AWG string cannot carry one.
JST_SM_A = 3.0

# Wire-gauge range (AWG, thickest first) each termination accepts, from its
# maker's specification: a wire outside its terminal's range cannot be crimped
# or clamped reliably (tests/test_hardware.py fails on one).
TERMINAL_AWG = {
    "Micro-Fit 3.0 crimp 20-24 AWG (Molex 43030-0001 / 43031-0001)": (20, 24),
    "Micro-Fit 3.0 crimp 18 AWG (Molex 43030-0038 / 43031-0038)": (18, 18),
    "Micro-Fit 3.0 crimp 26-30 AWG (Molex 43030-0007 / 43031-0007)": (26, 30),
    "JST SM crimp SYM-001T-P0.6 / SYF-001T-P0.6": (22, 28),
    "WAGO 221 lever terminal (0.14-4 mm²)": (12, 26),
    "M4 ring tongue, red 22-16 AWG (TE 320551)": (16, 22),
    "M3.5 ring tongue, blue 16-14 AWG (TE 2-31890-1)": (14, 16),
    "M3.5 fork tongue, red 22-16 AWG (TE 325163)": (16, 22),
    "solder to the DevKitC socket / carrier pad": (16, 30),
    "6.3 mm insulated receptacle 22-18 AWG (TE 2-520183-2)": (18, 22),
    "6.3 mm insulated receptacle 16-14 AWG (TE 2-520184-2)": (14, 16),
}
TERMINAL_SOURCE = "Molex PS-43045/PS-43650 (Micro-Fit 3.0), JST SM catalogue, WAGO 221 datasheet, TE PIDG ring tongues"

# USB isolator U7 (to confirm, see TO_CONFIRM): Adafruit USB Isolator (product 2107): an ADuM4160 (USB
# 2.0 low/full speed isolator) whose device side is powered by an ADuM5000
# isoPower converter fed from the PC's VBUS; the converter also drives VBUS on
# its device-side USB-A port (up to 100 mA). So its host side takes the PC's
# power, its device side takes none from the board (rail_ma 0), and its
# device-side VBUS is a second 5 V source for whatever is plugged into it.
# Isolation: ADuM4160 5 kV rms, ADuM5000 2.5 kV rms (the pair: 2.5 kV).
USB_ISOLATOR = {
    "part": "Adafruit USB Isolator (ADuM4160 + ADuM5000)",
    "mpn": "Adafruit 2107",
    "host_side": "the PC's VBUS",
    "device_side": "its ADuM5000 isolated converter, fed from the PC's VBUS",
    "drives_device_vbus": True,
    "device_vbus_ma": 100,
    "rail_ma": 0,
    "isolation_kv": 2.5,
}
ISOLATOR_SOURCE = "Analog Devices ADuM4160 and ADuM5000 datasheets; Adafruit USB Isolator (2107) product page"

# Cable stock, each bought by the metre (BOM lines CB…): what the checks use of
# it. awg: the conductor (mm²: its cross-section); colours: its cores or the
# colours bought; pf_per_m: core-to-core capacitance, where a check needs it.
# Alpha Wire 3051/3055 hook-up wire (UL1007, 300 V), Belden 9539 (9 × 24 AWG,
# foil screen and drain, 30 pF/ft core to core), Lapp ÖLFLEX CLASSIC 110 3G1.5
# (300/500 V, cores brown, blue, green/yellow; IEC 60228 class 5, 13.3 Ω/km).
# The Belden and Lapp figures are not confirmed from a source in hand
# (TO_CONFIRM): the checks use them as written until a buyer checks them.
CABLES = {
    "CB1": {"mpn": "Alpha Wire 3055 RD005", "awg": 18, "mm2": 0.82, "colours": ("red",), "cores": 1},
    "CB2": {"mpn": "Alpha Wire 3055 BK005", "awg": 18, "mm2": 0.82, "colours": ("black",), "cores": 1},
    "CB3": {"mpn": "Alpha Wire 3055 WH005", "awg": 18, "mm2": 0.82, "colours": ("white",), "cores": 1},
    "CB4": {"mpn": "Alpha Wire 3051 WH005", "awg": 22, "mm2": 0.33, "colours": ("white",), "cores": 1},
    "CB5": {"mpn": "Alpha Wire 3051 BK005", "awg": 22, "mm2": 0.33, "colours": ("black",), "cores": 1},
    "CB6": {"mpn": "Alpha Wire 3051 RD005", "awg": 22, "mm2": 0.33, "colours": ("red",), "cores": 1},
    "CB7": {
        "mpn": "Belden 9539",
        "awg": 24,
        "mm2": 0.22,
        "colours": ("9 colour-coded", "drain"),
        "cores": 9,
        "pf_per_m": 98,
    },
    "CB8": {
        "mpn": "Lapp ÖLFLEX CLASSIC 110 3G1.5 (1119303)",
        "awg": 16,
        "mm2": 1.5,
        "colours": ("brown", "blue", "green/yellow"),
        "cores": 3,
    },
}
CABLE_SOURCE = "Alpha Wire 3051/3055, Belden 9539 and Lapp ÖLFLEX CLASSIC 110 datasheets"

# Facts the checks use that no published source in hand confirms, so a figure
# is not passed off as the maker's: (part, what the checks take as true, the
# document to confirm it against before ordering). BOM.md lists them under
# the parts, and the README sends the buyer there.
TO_CONFIRM = (
    (
        "Adafruit 2107 (U7)",
        "an ADuM4160 with an ADuM5000 converter fed from the PC's VBUS, driving VBUS on the device-side port "
        "(up to 100 mA), 2.5 kV rms, nothing drawn from the board's rail. Users' write-ups of this board name "
        "an ADuM3160 instead: which isolator, and what powers and drives the device side, is what to check",
        "Adafruit's product page and schematic for product 2107, and the ADuM4160 and ADuM5000 datasheets",
    ),
    (
        "Belden 9539 (CB7)",
        "98 pF/m (30 pF/ft) core to core. A keypad column loads its core against every other core and the "
        "screen, which screened multi-core cables state as a separate, higher figure: if that one is above "
        "keypad.cable_pf_per_m, set it there and regenerate (drawings.py then asks for the new settle_us)",
        "Belden's 9539 product data sheet, electrical characteristics",
    ),
    (
        "Lapp 1119303 (CB8)",
        "ÖLFLEX CLASSIC 110 3G1.5: 1.5 mm² class 5 cores, brown, blue and green/yellow, 300/500 V, that article number",
        "Lapp's ÖLFLEX CLASSIC 110 data sheet (article table)",
    ),
    (
        "E5 mains cords (each site's)",
        "the part number, plug (NEMA 5-15P, CEE 7/7, BS 1363 with its BS 1362 fuse), IEC C13 end, 1.8 m and "
        "a rating of at least 10 A 250 V (North America: 10 A 125 V)",
        "the cord maker's data sheet for the part number on the site's BOM line",
    ),
    (
        "Earth tags ET1, ET2",
        "the part numbers, and that each tag fits the bush under its part's mounting nut (S1–S3: the APEM "
        "AV's Ø19 mm bush; S4: the Harmony XB4's Ø22 mm) and touches the metal bezel or body it bonds",
        "the tag maker's catalogue page, the APEM AV series datasheet and the Schneider XB4 product data sheet",
    ),
)
