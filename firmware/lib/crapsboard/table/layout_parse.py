# Checks and reads a layout.json or board.json into a crapsboard.table.layout.Layout.
#
# Layout(data) calls `fill`; the names it checks against are in layout_names.py.
import json

from crapsboard.table.layout_names import BUTTONS, LAMP_NAMES, ROLES, LayoutError


def _need(obj, key, where):
    if not isinstance(obj, dict) or key not in obj:
        raise LayoutError(where + ': missing "' + key + '"')
    return obj[key]


def _ints(values, where):
    if not isinstance(values, list) or not values:
        raise LayoutError(where + ": must be a list of pin numbers")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise LayoutError(where + ": " + json.dumps(v) + " is not a pin number")
    return tuple(values)


def fill(layout, data):
    """Check `data` (a parsed layout.json or board.json) and set the attributes of `layout`, a new Layout."""
    strip = _need(data, "strip", "board")
    layout.strip_pin = _ints([_need(strip, "pin", "strip")], "strip.pin")[0]
    layout.pixel_count = _need(strip, "count", "strip")
    layout.order = strip.get("order", "GRB")
    if len(layout.order) != 3 or sorted(layout.order) != ["B", "G", "R"]:
        raise LayoutError("strip.order: must be a permutation of RGB, got " + repr(layout.order))
    layout.max_brightness = strip.get("max_brightness", 255)
    if not isinstance(layout.max_brightness, int) or not 0 < layout.max_brightness <= 255:
        raise LayoutError("strip.max_brightness: must be 1-255")
    _feeds(layout, strip)
    _keypad(layout, _need(data, "keypad", "board"), _need(data, "keys", "board"))
    _buttons(layout, data.get("buttons", {}))
    if "pixels" in data:  # layout.json: the pixel of every lamp, in LAMP_NAMES order
        pixels = data["pixels"]
        if not isinstance(pixels, list) or len(pixels) != len(LAMP_NAMES):
            raise LayoutError("pixels: must list the pixels of all " + str(len(LAMP_NAMES)) + " lamps")
        _lamps(layout, [(LAMP_NAMES[i], pixels[i]) for i in range(len(pixels))])
    else:
        _lamps(layout, [(_need(lamp, "name", "lamps[]"), lamp) for lamp in _need(data, "lamps", "board")])


def _feeds(layout, strip):
    # The lamp chain's power feeds: each feed's first pixel, and the GPIO of
    # each feed's eFuse FAULT flag (active low; none on a board without them).
    first = strip.get("feed_first_pixels", [0])
    if not isinstance(first, list) or not first or first[0] != 0:
        raise LayoutError("strip.feed_first_pixels: a list starting at pixel 0")
    for i in range(len(first)):
        p = first[i]
        if not isinstance(p, int) or p >= layout.pixel_count or (i and p <= first[i - 1]):
            raise LayoutError("strip.feed_first_pixels: rising pixels below strip.count")
    layout.feed_first = tuple(first)
    flags = strip.get("feed_fault_pins")
    if flags is None:
        layout.feed_fault_pins = ()
        return
    layout.feed_fault_pins = _ints(flags, "strip.feed_fault_pins")
    if len(flags) != len(first):
        raise LayoutError("strip.feed_fault_pins: one pin per feed in strip.feed_first_pixels")


def _keypad(layout, keypad, keys):
    layout.rows = _ints(_need(keypad, "rows", "keypad"), "keypad.rows")
    layout.cols = _ints(_need(keypad, "cols", "keypad"), "keypad.cols")
    labels = _need(keypad, "labels", "keypad")
    if len(labels) != len(layout.rows) or len(layout.rows) * len(layout.cols) > 16:
        raise LayoutError("keypad.labels: one row of labels per row pin, 16 keys at most")
    layout.labels = []
    layout.roles = []
    for row in labels:
        if len(row) != len(layout.cols):
            raise LayoutError("keypad.labels: one label per column pin in every row")
        for label in row:
            role = keys.get(label)
            if role not in ROLES:
                raise LayoutError("keys." + str(label) + ": role must be one of " + ", ".join(ROLES))
            if role in ("die", "digit") and (len(label) != 1 or label not in "0123456789"):
                raise LayoutError("keys." + label + ": a die or digit key must be labelled 0-9")
            if role == "die" and label not in "123456":
                raise LayoutError("keys." + label + ": only 1-6 can be die keys")
            layout.labels.append(label)
            layout.roles.append(ROLES[ROLES.index(role)])  # the module's string, not json's copy
    layout.scan_ms = keypad.get("scan_ms", 10)
    layout.debounce_ms = keypad.get("debounce_ms", 30)
    # How long a column needs to settle after a row is driven (cable RC).
    layout.settle_us = keypad.get("settle_us", 0)


def _buttons(layout, buttons):
    for name in buttons:
        if name not in BUTTONS:
            raise LayoutError("buttons." + str(name) + ": unknown button (known: " + ", ".join(BUTTONS) + ")")
    layout.button_pins = []
    layout.button_active_low = []
    layout.button_pull = []
    for name in BUTTONS:
        spec = buttons.get(name)
        if spec is None:
            layout.button_pins.append(None)
            layout.button_active_low.append(True)
            layout.button_pull.append("none")
            continue
        where = "buttons." + name
        layout.button_pins.append(_ints([_need(spec, "pin", where)], where + ".pin")[0])
        active = spec.get("active", "low")
        pull = spec.get("pull", "up" if active == "low" else "none")
        if active not in ("low", "high") or pull not in ("up", "down", "none"):
            raise LayoutError(where + ": active must be low/high and pull up/down/none")
        layout.button_active_low.append(active == "low")
        layout.button_pull.append(pull)
    # A changeover keyswitch's normally-closed contact is one more input,
    # after the buttons (app.KEYSWITCH_NC_BIT); None for a single contact.
    key = buttons.get("supervisor_key") or {}
    nc_pin = key.get("nc_pin")
    if key.get("contact", "single") == "changeover":
        nc_pin = _ints([_need(key, "nc_pin", "buttons.supervisor_key")], "buttons.supervisor_key.nc_pin")[0]
    elif nc_pin is not None:
        raise LayoutError('buttons.supervisor_key: an nc_pin needs "contact": "changeover"')
    layout.button_pins.append(nc_pin)
    layout.button_active_low.append(layout.button_active_low[BUTTONS.index("supervisor_key")])
    # The NC contact may sit on an input-only pin (no internal pull: its
    # pull-up is on the carrier), so it has its own "nc_pull".
    nc_pull = key.get("nc_pull", layout.button_pull[BUTTONS.index("supervisor_key")])
    if nc_pull not in ("up", "down", "none"):
        raise LayoutError("buttons.supervisor_key.nc_pull: must be up/down/none")
    layout.button_pull.append(nc_pull)


def _lamps(layout, lamps):
    # (name, pixel) pairs, or (name, board.json lamp object) pairs.
    layout.pixels = {}
    used = bytearray(layout.pixel_count)
    for name, pixel in lamps:
        if isinstance(pixel, dict):
            pixel = _need(pixel, "pixel", "lamps." + name)
        if name in layout.pixels:
            raise LayoutError("lamps." + name + ": listed twice")
        if not isinstance(pixel, int) or not 0 <= pixel < layout.pixel_count or used[pixel]:
            raise LayoutError("lamps." + name + ": pixel " + json.dumps(pixel) + " is out of range or used twice")
        used[pixel] = 1
        layout.pixels[name] = pixel
