"""One source for each vocabulary: where a word list or a number must appear
in two places, one is derived from the other or a test here ties them."""

import importlib
import json
import os
import sys

from conftest import ROOT

from crapsboard import app, entry, keypad, lamps
from crapsboard import layout as lay
from sim.portable import keyscript
from sim.tui import bindings, text

BOARD = json.load(open(os.path.join(ROOT, "hardware", "board.json"), encoding="utf-8"))


def hardware_module(name):
    sys.path.insert(0, os.path.join(ROOT, "hardware"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def test_the_keyswitch_bit_is_the_supervisor_keys_place_in_the_input_bitmap():
    assert app.KEYSWITCH_BIT == 1 << (keypad.BUTTON_SHIFT + lay.BUTTONS.index("supervisor_key"))


def test_the_blink_periods_are_the_documented_512_and_128_ms():
    assert (lamps.SLOW_BLINK_MS, lamps.FAST_BLINK_MS) == (512, 128)
    frame_at = {}
    layout = lay.load(os.path.join(ROOT, "hardware", "board.json"))
    board_lamps = lamps.Lamps(layout)
    board_lamps.blink[0] = lamps.BLINK_SLOW
    board_lamps.color[0] = lamps.C_GREEN
    for t in (0, 511, 512, 1023, 1024):
        board_lamps._write_frame(t)
        frame_at[t] = bytes(board_lamps.frame[3 * board_lamps.pixel[0] : 3 * board_lamps.pixel[0] + 3])
    assert frame_at[0] == frame_at[511] == frame_at[1024] != frame_at[512] == frame_at[1023]


def test_every_entry_error_has_words_in_the_terminal_board():
    assert set(text.ERRORS) == set(entry.ERROR_NAMES)


def test_key_roles_have_words_on_the_card_and_in_the_simulator():
    cards = hardware_module("draw_cards")
    assert set(bindings.ROLE_WORDS) == set(lay.ROLES) == set(cards.ROLE_WORDS)
    assert set(bindings.BUTTON_WORDS) | {"supervisor_key"} == set(lay.BUTTONS) == set(cards.BUTTON_WORDS)


def test_the_simulators_buttons_and_aliases_name_real_buttons_and_roles():
    for _, token, name in bindings.BUTTON_KEYS:
        assert name in lay.BUTTONS
        assert keyscript.ALIASES.get(token[4:], token[4:]) == name
    assert set(keyscript.ALIASES.values()) <= set(lay.ROLES) | set(lay.BUTTONS)


def test_the_footer_is_made_from_the_board_and_the_key_table():
    assert (
        bindings.footer(BOARD)
        == " 1-6 dice  * clear  a undo  b end  c test  d PIN  k key  r roll  s svg  ? help  q quit"
    )
    swapped = json.loads(json.dumps(BOARD))
    swapped["keys"]["A"], swapped["keys"]["B"] = "end_hand", "undo"
    assert " b undo " in bindings.footer(swapped) and " a end " in bindings.footer(swapped)


def test_every_computer_key_reaches_a_keypad_label_or_a_button():
    labels = {label for row in BOARD["keypad"]["labels"] for label in row}
    for key, token in bindings.key_tokens().items():
        assert token in labels or token.startswith("btn:"), key
    assert labels <= set(bindings.key_tokens().values())
