# Shared geometry and colours of wiring.svg (and the lamp group colours that
# layout.svg reuses), so the wiring modules agree on where every header pin is.

import hwmodel as hw

W, H = 1720, 2520
YPARTS = 1660  # the mains circuit, bonds and the part and wire index (draw_parts.py)
YTABLES = 1400  # the connector, eFuse and USB band (draw_tables.py)
YCHAIN = 1010
BX0, BX1 = 600, 860  # DevKitC outline, left and right header columns
PY0, PITCH = 170, 30  # first header pin y, pin pitch
RED, BLK, ORG, GRN, BLU, PUR = "#c62828", "#222222", "#e07b00", "#2e7d32", "#1565c0", "#6a1b9a"
GROUP_FILL = {
    "status": "#eeeeee",
    "alert": "#ffe0b2",
    "point": "#fff9c4",
    "fire": "#ffcdd2",
    "bonus": "#c8e6c9",
    "small": "#c8e6c9",
    "tall": "#c8e6c9",
    "all": "#c8e6c9",
    "mea": "#bbdefb",
    "fired": "#e1bee7",
}
BUTTON_KEY = {"undo": "A", "end_hand": "B", "lamp_test": "C"}


def pin_y(header, gpio_or_name):
    pins = hw.J2 if header == "J2" else hw.J3
    name = gpio_or_name if isinstance(gpio_or_name, str) else "IO%d" % gpio_or_name
    return PY0 + PITCH * pins.index(name)


def gpio_y(gpio):
    hdr = hw.header_pin(gpio).split("-")[0]
    return pin_y(hdr, gpio)
