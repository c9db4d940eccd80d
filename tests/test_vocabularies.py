"""Names that travel in records must follow the codes they name: an event
kind or error reason added, removed or reordered in entry.py without its name
would print the wrong word in every record after it."""

from crapsboard import entry as en
from crapsboard import events
from sim.tui import text as tui_text

# The two kinds whose record names are not their constant's name.
KIND_ALIASES = {"ACT_AUTH_ON": "supervisor_on", "ACT_AUTH_OFF": "supervisor_off"}


def constants(prefix):
    return {name: getattr(en, name) for name in dir(en) if name.startswith(prefix)}


def test_event_kind_names_follow_the_act_codes():
    acts = constants("ACT_")
    assert sorted(acts.values()) == list(range(len(events.KIND_NAMES)))
    for name, code in acts.items():
        assert events.KIND_NAMES[code] == KIND_ALIASES.get(name, name[4:].lower()), name


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
