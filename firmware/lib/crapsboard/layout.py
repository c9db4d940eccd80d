# The board's hardware description: pins, keypad labels and roles, buttons,
# lamps. Read once at power-up from /layout.json, the compact form a deploy
# writes (sim/devlayout.py: lamps as "pixels": {name: pixel}, no drawing data),
# or from a whole board.json (hardware/ in the repo; the simulator, old boards).
#
# Plain data, checked on load so a typo fails at power-up with the key named.
# Everything that needs a pin or a pixel gets it from here.
import json

# Keypad key roles (board.json "keys").
ROLES = ("die", "digit", "clear", "enter", "undo", "end_hand", "lamp_test", "supervisor_pin")
# Buttons (board.json "buttons"), in input-bitmap order after the 16 keypad keys.
BUTTONS = ("undo", "end_hand", "lamp_test", "supervisor_key")


class LayoutError(ValueError):
    pass


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


class Layout:
    """Pins, keypad and lamps of one board. Treat it as read-only.

    - `strip_pin`, `pixel_count`, `order` ("GRB"), `max_brightness` (0-255)
    - `rows`, `cols`: keypad pin numbers; `labels`, `roles`: per key, row-major
      (key index = row * len(cols) + col); `scan_ms`, `debounce_ms`
    - `button_pins`, `button_active_low`, `button_pull` ("up"/"down"/"none"),
      indexed like BUTTONS; a pin of None means the board has no such button
    - `pixels`: lamp name -> pixel index (positions and labels stay in
      board.json: only drawings need them, and the device has no RAM to spare)
    """

    def __init__(self, data):
        strip = _need(data, "strip", "board")
        self.strip_pin = _ints([_need(strip, "pin", "strip")], "strip.pin")[0]
        self.pixel_count = _need(strip, "count", "strip")
        self.order = strip.get("order", "GRB")
        if len(self.order) != 3 or sorted(self.order) != ["B", "G", "R"]:
            raise LayoutError("strip.order: must be a permutation of RGB, got " + repr(self.order))
        self.max_brightness = strip.get("max_brightness", 255)
        if not isinstance(self.max_brightness, int) or not 0 < self.max_brightness <= 255:
            raise LayoutError("strip.max_brightness: must be 1-255")
        self._keypad(_need(data, "keypad", "board"), _need(data, "keys", "board"))
        self._buttons(data.get("buttons", {}))
        if "pixels" in data:  # layout.json
            pixels = data["pixels"]
            if not isinstance(pixels, dict):
                raise LayoutError("pixels: must map lamp names to pixels")
            self._lamps([(name, pixels[name]) for name in pixels])
        else:
            self._lamps([(_need(lamp, "name", "lamps[]"), lamp) for lamp in _need(data, "lamps", "board")])

    def _keypad(self, keypad, keys):
        self.rows = _ints(_need(keypad, "rows", "keypad"), "keypad.rows")
        self.cols = _ints(_need(keypad, "cols", "keypad"), "keypad.cols")
        labels = _need(keypad, "labels", "keypad")
        if len(labels) != len(self.rows) or len(self.rows) * len(self.cols) > 16:
            raise LayoutError("keypad.labels: one row of labels per row pin, 16 keys at most")
        self.labels = []
        self.roles = []
        for row in labels:
            if len(row) != len(self.cols):
                raise LayoutError("keypad.labels: one label per column pin in every row")
            for label in row:
                role = keys.get(label)
                if role not in ROLES:
                    raise LayoutError("keys." + str(label) + ": role must be one of " + ", ".join(ROLES))
                if role in ("die", "digit") and (len(label) != 1 or label not in "0123456789"):
                    raise LayoutError("keys." + label + ": a die or digit key must be labelled 0-9")
                if role == "die" and label not in "123456":
                    raise LayoutError("keys." + label + ": only 1-6 can be die keys")
                self.labels.append(label)
                self.roles.append(role)
        self.scan_ms = keypad.get("scan_ms", 10)
        self.debounce_ms = keypad.get("debounce_ms", 30)

    def _buttons(self, buttons):
        for name in buttons:
            if name not in BUTTONS:
                raise LayoutError("buttons." + str(name) + ": unknown button (known: " + ", ".join(BUTTONS) + ")")
        self.button_pins = []
        self.button_active_low = []
        self.button_pull = []
        for name in BUTTONS:
            spec = buttons.get(name)
            if spec is None:
                self.button_pins.append(None)
                self.button_active_low.append(True)
                self.button_pull.append("none")
                continue
            where = "buttons." + name
            self.button_pins.append(_ints([_need(spec, "pin", where)], where + ".pin")[0])
            active = spec.get("active", "low")
            pull = spec.get("pull", "up" if active == "low" else "none")
            if active not in ("low", "high") or pull not in ("up", "down", "none"):
                raise LayoutError(where + ": active must be low/high and pull up/down/none")
            self.button_active_low.append(active == "low")
            self.button_pull.append(pull)

    def _lamps(self, lamps):
        # (name, pixel) pairs, or (name, board.json lamp object) pairs.
        self.pixels = {}
        used = bytearray(self.pixel_count)
        for name, pixel in lamps:
            if isinstance(pixel, dict):
                pixel = _need(pixel, "pixel", "lamps." + name)
            if name in self.pixels:
                raise LayoutError("lamps." + name + ": listed twice")
            if not isinstance(pixel, int) or not 0 <= pixel < self.pixel_count or used[pixel]:
                raise LayoutError("lamps." + name + ": pixel " + json.dumps(pixel) + " is out of range or used twice")
            used[pixel] = 1
            self.pixels[name] = pixel

    def key_index(self, label):
        """Keypad key index of `label`, or -1."""
        for i in range(len(self.labels)):
            if self.labels[i] == label:
                return i
        return -1

    def role_index(self, role):
        """Keypad key index of the first key with `role`, or -1."""
        for i in range(len(self.roles)):
            if self.roles[i] == role:
                return i
        return -1


def load(path):
    """The Layout of the layout.json or board.json at `path`; LayoutError names a bad key."""
    with open(path) as f:
        try:
            data = json.load(f)
        except ValueError as e:
            raise LayoutError(path + ": not valid JSON (" + str(e) + ")")
    return Layout(data)
