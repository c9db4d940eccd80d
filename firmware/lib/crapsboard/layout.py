# The board's hardware description: pins, keypad labels and roles, buttons,
# lamps. Read once at power-up from /layout.json, the compact form a deploy
# writes (sim/devlayout.py: "pixels" in LAMP_NAMES order, no drawing data),
# or from a whole board.json (hardware/ in the repo; the simulator, old boards).
#
# Plain data, checked on load so a typo fails at power-up with the key named.
# Everything that needs a pin or a pixel gets it from here.
import json

# Keypad key roles (board.json "keys"). Tuples of names are built from lists:
# see LAMP_NAMES.
ROLES = tuple(["die", "digit", "clear", "enter", "undo", "end_hand", "lamp_test", "supervisor_pin"])
# Buttons (board.json "buttons"), in input-bitmap order after the 16 keypad keys.
BUTTONS = tuple(["undo", "end_hand", "lamp_test", "supervisor_key"])
# The logical lamps a layout maps to pixels, in crapsboard/lamps.py's order
# (its L_* indexes). layout.json lists the pixels in this order, so the
# device holds each name once, not once more for every name json reads.
# Built from a list, not written as a tuple: a constant tuple's strings load
# from the .mpy as 47 heap strings (64 bytes each on the unix port), a
# list's as interned names (~20 bytes each).
LAMP_NAMES = tuple(
    [
        "status",
        "alert.floor",
        "alert.manager",
        "point.off",
        "point.4",
        "point.5",
        "point.6",
        "point.8",
        "point.9",
        "point.10",
        "fire.open",
        "fire.4",
        "fire.5",
        "fire.6",
        "fire.8",
        "fire.9",
        "fire.10",
        "small.open",
        "tall.open",
        "all.open",
        "bonus.2",
        "bonus.3",
        "bonus.4",
        "bonus.5",
        "bonus.6",
        "bonus.8",
        "bonus.9",
        "bonus.10",
        "bonus.11",
        "bonus.12",
        "mea.open",
        "mea.2",
        "mea.3",
        "mea.4",
        "mea.5",
        "mea.6",
        "mea.8",
        "mea.9",
        "mea.10",
        "mea.11",
        "mea.12",
        "fired.open",
        "fired.1",
        "fired.2",
        "fired.3",
        "fired.4",
        "fired.5",
    ]
)


class LayoutError(ValueError):
    pass


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
        from crapsboard import layout_parse

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


def release_parser():
    """Let the GC take the parsing code (crapsboard/layout_parse.py) once the
    board's Layout is built; a later Layout(data) loads it again."""
    import sys

    import crapsboard

    sys.modules.pop("crapsboard.layout_parse", None)
    if "layout_parse" in dir(crapsboard):
        delattr(crapsboard, "layout_parse")
