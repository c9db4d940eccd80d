"""diag.json's `error` (docs/board.md, "diag.json keeps ..."): the last
start-up failure as one short line, the exception's type and message, cut to
72 characters (crapsboard/boot/startup.py under CPython)."""

from crapsboard.boot import startup


def test_an_error_is_its_type_and_message():
    assert startup.describe(ValueError("config.json: fire_window: unknown")) == (
        "ValueError: config.json: fire_window: unknown"
    )
    assert startup.describe(MemoryError()) == "MemoryError"


def test_a_long_error_is_cut_to_72_characters():
    line = startup.describe(OSError("x" * 200))
    assert line == ("OSError: " + "x" * 200)[:72]
    assert len(line) == 72
    assert startup.describe(OSError("y" * 63)) == "OSError: " + "y" * 63  # 72 exactly: whole
