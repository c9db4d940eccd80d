"""tests/mutation/equivalent.txt names only mutants `make mutate` makes today.

An entry whose key no mutant has any more (the code moved, a module was
renamed) would hide nothing and explain nothing; this checks every entry
against the generator without running a mutant, so a stale list fails
`make test`, not only a full hour-long `make mutate`.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutation"))

import runner  # noqa: E402


def listed_modules():
    return sorted({key.split(" | ")[0] for key in runner.load_equivalent()})


def test_every_module_named_in_equivalent_txt_is_mapped_to_tests():
    modules = listed_modules()
    assert modules, "equivalent.txt lists nothing"
    assert [m for m in modules if m not in runner.MODULE_TESTS] == []


@pytest.mark.parametrize("module", listed_modules())
def test_every_entry_of_equivalent_txt_names_a_mutant_the_generator_makes(module):
    listed = runner.load_equivalent()
    mine = [k for k in listed if k.split(" | ")[0] == module]
    assert mine
    assert runner.stale_entries(listed, [module], runner.all_mutants([module])) == []


def test_a_key_for_an_edit_that_no_longer_exists_is_reported_stale():
    listed = runner.load_equivalent()
    real = next(k for k in listed if k.startswith("journal/journal_record.py | "))
    made_up = "journal/journal_record.py | x = 1 | 1 -> 2"
    stale = runner.stale_entries(
        {real: "r", made_up: "r"}, ["journal/journal_record.py"], runner.all_mutants(["journal/journal_record.py"])
    )
    assert stale == [made_up]


def test_every_mapped_test_file_exists():
    missing = []
    for module, (cp_tests, mp_tests) in runner.MODULE_TESTS.items():
        assert os.path.exists(os.path.join(runner.ROOT, runner.FIRMWARE, module)), module
        for test in cp_tests + mp_tests:
            if not os.path.exists(os.path.join(runner.ROOT, test.split("::")[0])):
                missing.append((module, test))
    assert missing == []
