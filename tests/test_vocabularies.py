"""One source for each vocabulary. Names that travel in records must follow
the codes they name (an event kind or error reason added, removed or
reordered in entry.py without its name would print the wrong word in every
record after it); where a word list or a number must appear in two places,
one is derived from the other or a test here ties them."""

import json
import os

from conftest import ROOT

from crapsboard.journal import journal_read as jread
from crapsboard.table import app, entry, events, keypad, lamps
from crapsboard.table import entry as en
from crapsboard.table import layout as lay
from sim.portable import keyscript
from sim.tui import bindings
from sim.tui import text as tui_text

# The two kinds whose record names are not their constant's name.
KIND_ALIASES = {"ACT_AUTH_ON": "supervisor_on", "ACT_AUTH_OFF": "supervisor_off"}


def constants(prefix):
    return {name: getattr(en, name) for name in dir(en) if name.startswith(prefix)}


def test_event_kind_names_follow_the_act_codes():
    acts = constants("ACT_")
    prog = {name: code for name, code in acts.items() if name.startswith("ACT_PROG_")}
    assert sorted(code for name, code in acts.items() if name not in prog) == list(range(len(events.KIND_NAMES)))
    for name, code in acts.items():
        names = events.KIND_NAMES if name not in prog else (None,) * 23 + events.PROG_KIND_NAMES
        assert names[code] == KIND_ALIASES.get(name, name[4:].lower()), name
    # The progressive's events are the journal's kinds 23 and 24, by the same names.
    assert {jread.KIND_NAMES[code] for code in prog.values()} == set(events.PROG_KIND_NAMES)


def test_error_names_follow_the_err_codes():
    errors = constants("ERR_")
    assert sorted(errors.values()) == list(range(len(en.ERROR_NAMES)))
    for name, code in errors.items():
        assert en.ERROR_NAMES[code] == name[4:].lower(), name


def test_the_terminal_board_has_words_for_every_error():
    assert set(tui_text.ERRORS) == set(en.ERROR_NAMES)


def test_via_and_status_names_follow_their_codes():
    for name, code in constants("VIA_").items():
        if name != "VIA_NAMES":
            assert en.VIA_NAMES[code] == name[4:].lower()
    for name, code in constants("ST_").items():
        assert en.STATUS_NAMES[code] == name[3:].lower()


BOARD = json.load(open(os.path.join(ROOT, "hardware", "board.json"), encoding="utf-8"))


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


def test_key_roles_have_words_on_the_card_and_in_the_simulator():
    import draw_cards as cards

    assert set(bindings.ROLE_WORDS) == set(lay.ROLES) == set(cards.ROLE_WORDS)
    assert set(bindings.BUTTON_WORDS) | {"supervisor_key"} == set(lay.BUTTONS) == set(cards.BUTTON_WORDS)


def test_role_key_codes_are_the_k_constants():
    codes = {role: entry.key_code(role, "X") for role in lay.ROLES if role not in ("die", "digit")}
    assert codes == {
        "clear": entry.K_CLEAR,
        "enter": entry.K_ENTER,
        "undo": entry.K_UNDO,
        "end_hand": entry.K_END_HAND,
        "lamp_test": entry.K_LAMP_TEST,
        "supervisor_pin": entry.K_PIN,
    }
    assert len(set(codes.values())) == len(codes) and min(codes.values()) > 9  # never a digit


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


def test_the_key_card_has_words_for_every_status_the_lamp_can_show():
    import draw_cards

    assert len(draw_cards.STATUS_MEANINGS) == len(lamps.STATUS_COLOR) == len(en.STATUS_NAMES)
    assert len(draw_cards.status_legend()) == len(en.STATUS_NAMES)
