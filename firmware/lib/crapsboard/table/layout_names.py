# The names a layout speaks of: keypad roles, buttons, the logical lamps in
# lamps.py's order, and LayoutError.
#
# Below both layout.py (the Layout the firmware reads) and layout_parse.py
# (its checker), so neither half imports the other.
# Keypad key roles (board.json "keys"). Tuples of names are built from lists:
# see LAMP_NAMES.
ROLES = tuple(["die", "digit", "clear", "enter", "undo", "end_hand", "lamp_test", "supervisor_pin"])
# Buttons (board.json "buttons"), in input-bitmap order after the 16 keypad keys.
BUTTONS = tuple(["undo", "end_hand", "lamp_test", "supervisor_key"])
# The logical lamps a layout maps to pixels, in crapsboard/table/lamps.py's order
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
