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

# Molex Micro-Fit 3.0 (43025 plug / 43045 header) product specification: keyed,
# polarised housing with a positive latch, up to 5 A per circuit on 18 AWG.
CONNECTOR = {"family": "Molex Micro-Fit 3.0", "rating_a": 5.0, "keyed": True, "latching": True}

# Membrane keypad contact resistance, worst case budgeted for a worn generic 4×4
# keypad (vendors state 100-500 Ω); the low level a pressed key must reach.
KEYPAD_CONTACT_OHM_MAX = 500
# JST SM series datasheet: keyed, latching wire-to-wire housing, 3 A per circuit;
# the usual connector on the ends of pre-wired pixel strings.
JST_SM_A = 3.0
