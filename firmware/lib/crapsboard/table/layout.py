# The board's hardware description: pins, keypad labels and roles, buttons,
# lamps. Read once at power-up from /layout.json, the compact form a deploy
# writes (sim/devlayout.py: "pixels" in LAMP_NAMES order, no drawing data),
# or from a whole board.json (hardware/ in the repo; the simulator, old boards).
#
# Plain data, checked on load so a typo fails at power-up with the key named.
# Everything that needs a pin or a pixel gets it from here.
import json

from crapsboard.table import layout_parse
from crapsboard.table.layout_names import BUTTONS, LAMP_NAMES, ROLES, LayoutError  # noqa: F401 (re-exported: lay.BUTTONS, ...)


class Layout:
    """Pins, keypad and lamps of one board. Treat it as read-only.

    - `strip_pin`, `pixel_count`, `order` ("GRB"), `max_brightness` (0-255)
    - `rows`, `cols`: keypad pin numbers; `labels`, `roles`: per key, row-major
      (key index = row * len(cols) + col); `scan_ms`, `debounce_ms`, `settle_us`
    - `button_pins`, `button_active_low`, `button_pull` ("up"/"down"/"none"),
      indexed like BUTTONS and then one more: the normally-closed contact of a
      changeover keyswitch; a pin of None means the board has no such input
    - `feed_first`: the first pixel of each power feed (rising, from 0);
      `feed_fault_pins`: each feed's eFuse FAULT flag pin (active low,
      pulled up on the carrier), or () on a board without them
    - `pixels`: lamp name -> pixel index (positions and labels stay in
      board.json: only drawings need them, and the device has no RAM to spare)
    """

    # Set by layout_parse.fill; declared here for the type checker (no cost at run time).
    strip_pin: int
    pixel_count: int
    order: str
    max_brightness: int
    rows: tuple
    cols: tuple
    labels: list
    roles: list
    scan_ms: int
    debounce_ms: int
    settle_us: int
    button_pins: list
    button_active_low: list
    button_pull: list
    pixels: dict
    feed_first: tuple
    feed_fault_pins: tuple

    def __init__(self, data):
        layout_parse.fill(self, data)

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
