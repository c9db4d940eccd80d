"""The names `verified` takes (docs/link.md): `by`, who checked, 1-32 letters, digits,
`-` or `_`; `alert`, the floor's alert id, 1-48 of the same. The edges, under CPython."""

import pytest

from crapsboard.link import link_verified


@pytest.mark.parametrize(
    "text, most, ok",
    [
        ("a" * 32, 32, True),
        ("a" * 33, 32, False),
        ("x" * 48, 48, True),
        ("x" * 49, 48, False),
        ("", 32, False),
        ("ann-2_B", 32, True),
        ("ann b", 32, False),
        ("ann.b", 32, False),
        ("ann\u00e9", 32, False),  # a letter, but not ASCII: the floor's names are ASCII
    ],
)
def test_a_name_is_1_to_most_ascii_letters_digits_dash_or_underscore(text, most, ok):
    assert link_verified._name_ok(text, most) is ok


def test_the_bounds_are_the_documented_32_and_48():
    assert (link_verified.BY_MAX, link_verified.ALERT_MAX) == (32, 48)
