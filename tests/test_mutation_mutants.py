"""The mutant generator of `make mutate` (tests/mutation/mutants.py): each mutant is
one span of source text changed, still compiles, and has a stable unique key."""

import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "mutation"))

import mutants  # noqa: E402

SOURCE = '''"""Docstring."""
from micropython import const

MASK = const(0x0F)


def f(x, y):
    """Not mutated."""
    if x < 3 and not y:
        x += 1
    return x & MASK
'''


def edits(found):
    return {(m.kind, m.old, m.new) for m in found}


def test_each_kind_of_mutant_is_found():
    found = mutants.generate("m.py", SOURCE)
    got = edits(found)
    for expected in [
        ("comparison", "<", "<="),
        ("comparison", "<", ">="),
        ("boolean", "and", "or"),
        ("unary", "not ", ""),
        ("operator", "+=", "-="),
        ("operator", "&", "|"),
        ("operator", "&", "^"),
        ("constant", "3", "4"),
        ("constant", "3", "2"),
        ("constant", "0x0F", "0x10"),
        ("mask", "0x0F", "0x7"),
        ("mask", "0x0F", "0x1F"),
        ("return", "x & MASK", "None"),
        ("delete", "x += 1", "pass"),
    ]:
        assert expected in got, expected
    assert not any("Docstring" in m.old or "Not mutated" in m.old for m in found)


def test_a_mutant_changes_one_span_and_the_rest_is_untouched():
    for m in mutants.generate("m.py", SOURCE):
        text = m.apply(SOURCE)
        assert text[: m.start] == SOURCE[: m.start]
        assert text[m.start + len(m.new) :] == SOURCE[m.end :]
        compile(text, "m.py", "exec")


def test_keys_are_unique_and_do_not_name_line_numbers():
    found = mutants.generate("m.py", SOURCE)
    assert len({m.key for m in found}) == len(found)
    shifted = mutants.generate("m.py", SOURCE.replace("\n\n\ndef f", "\n\n\n\n\ndef f"))
    assert [m.key for m in shifted] == [m.key for m in found]
