"""The built paytables and configuration copies: each table is one object
however often asked for, and a copied configuration is a copy."""

import pytest

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import Table


def configured(**changes):
    config = cfg.parse({"paytables": changes}) if changes else cfg.Config()
    return config


def test_a_table_is_built_once_and_found_as_the_same_object():
    board = configured(fire="2", all_small="PT2")
    fire2, small2 = board.paytables[0], board.paytables[1]
    assert pt.find(0, "2") is fire2 and pt.find(1, "PT2") is small2  # the engine compares by identity
    assert pt.find(0, "no such table") is None


def test_a_table_configured_again_is_still_the_one_the_engine_compares():
    board = configured(fire="4")
    table = Table(board)
    again = cfg.parse({"paytables": {"fire": "4"}})
    table.roll(2, 2)  # a point: the Fire Bet's cycle is in progress
    table.configure(again)  # the same table: not a change, so not refused
    assert table.config.paytables[0] is board.paytables[0]


def test_a_copied_configuration_has_every_value_and_its_own_paytable_list():
    base = cfg.parse(
        {
            "offered": ["fire", "fired_up"],
            "paytables": {"fire": "5"},
            "rebet_after_win": False,
            "fire_window": "first_roll",
            "bonus_window": "idle",
        }
    )
    base.supervisor_pin = (b"salt-salt", 700, b"d" * 32)
    copy = cfg.Config(base)
    assert copy is not base
    for key in cfg.KEYS:
        assert getattr(copy, key) == getattr(base, key), key
    assert copy.paytables[0].ident == "5" and copy.offered == 0b100001
    copy.paytables[0] = pt.find(0, "1")
    assert base.paytables[0].ident == "5"  # the copy's list is its own


def test_the_defaults_are_the_documented_ones():
    # docs/engine.md, Configuration: every wager offered, Fire "1", Bonus Craps
    # "PT1", "PT-BJS-MEA-01", "PT-BJS-FUP-01", rebet on, the first windows, no PIN.
    config = cfg.Config()
    assert config.offered == 0b111111
    assert [p.ident for p in config.paytables] == ["1", "PT1", "PT1", "PT1", "PT-BJS-MEA-01", "PT-BJS-FUP-01"]
    assert config.rebet_after_win is True
    assert (config.fire_window, config.bonus_window) == (cfg.FIRE_UNTIL_POINT, cfg.BONUS_AFTER_SEVEN)
    assert config.supervisor_pin is None


def test_a_paytable_whose_envy_and_pays_differ_in_length_is_refused():
    from crapsboard.rules import paytable as ptab

    pays = (0, 0, 0, 4, 9, 99)
    table = ptab.Paytable("X", ptab.TO_1, pays)  # no envy: none at any level
    assert table.envy == (None,) * 6
    for envy in ((None,) * 5, (None,) * 7):
        with pytest.raises(ValueError, match="paytable X: envy and pays differ in length"):
            ptab.Paytable("X", ptab.TO_1, pays, envy)
