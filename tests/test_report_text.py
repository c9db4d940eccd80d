"""rules/report.py's `printable`: a one-line message (a refused key script's
error, docs/replay.md's one line on stderr) keeps printable text as it is and
writes each control character as a visible \\xNN, the same on both runtimes
(their json modules escape \\b and \\f differently)."""

import pytest

from crapsboard.rules.report import printable


@pytest.mark.parametrize(
    "text, shown",
    [
        ("die face '9' is not 1-6", "die face '9' is not 1-6"),
        ("", ""),
        (" ~", " ~"),  # 32 and 126: printable
        ("a\bc", "a\\x08c"),
        ("tab\there", "tab\\x09here"),
        ("\x00", "\\x00"),
        ("end\n", "end\\x0a"),
        ("\x1f\x0c", "\\x1f\\x0c"),
        ("\x1f", "\\x1f"),  # 31, the last control character, alone
        ("a b!\x01", "a b!\\x01"),  # space and "!" kept beside a control character
        ("caf\xe9", "caf\xe9"),  # above 127 is not a control character
    ],
)
def test_control_characters_are_written_as_hex_and_the_rest_kept(text, shown):
    assert printable(text) == shown


def test_a_fire_bet_returned_at_an_end_hand_in_its_window_hands_back_its_stake():
    # docs/rules.md: a shooter who leaves before a point is made has the Fire Bet returned,
    # never lost; the resolution hands back the 1 unit staked and pays nothing.
    from crapsboard.rules import report
    from crapsboard.rules.engine import Table

    table = Table()
    table.end_hand()
    (fire,) = report.resolutions(table)
    assert (fire["wager"], fire["outcome"], fire["returns"], fire["pays"], fire["envy"]) == (
        "fire",
        "returned",
        1,
        None,
        None,
    )


def test_non_ascii_text_is_written_as_utf8_alike_on_both_runtimes(tmp_path):
    # rules/report.py: one escaping rule on both runtimes; the VM's json module never
    # escapes above 127, so CPython must be told not to, or a record differs by runtime.
    from crapsboard.rules.report import dumps
    from sim import runtime

    value = ["caf\xe9", "\u20ac 5", "\U0001f3b2"]
    script = tmp_path / "dump.py"
    script.write_text(
        "import sys\nfrom crapsboard.rules.report import dumps\nsys.stdout.write(dumps(%r))\n" % (value,),
        encoding="utf-8",
    )
    done = runtime.run(str(script), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    expected = '["caf\xe9", "\u20ac 5", "\U0001f3b2"]'
    assert dumps(value) == expected
    assert done.stdout.decode("utf-8") == expected
