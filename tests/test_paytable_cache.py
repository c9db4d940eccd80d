"""The built paytables and the configuration copies the board keeps after power-up
(docs/board.md, Memory): what is kept stays one object per table, what is
dropped is built afresh, and a copied configuration is a copy."""

import pytest

from crapsboard import config as cfg
from crapsboard import paytables as pt
from crapsboard.engine import Table


@pytest.fixture(autouse=True)
def own_cache(monkeypatch):
    # keep_only empties the process's cache: other tests hold tables from it.
    monkeypatch.setattr(pt, "_built", dict(pt._built))


def configured(**changes):
    config = cfg.parse({"paytables": changes}) if changes else cfg.Config()
    return config


def test_keep_only_drops_the_tables_no_configuration_uses_and_keeps_the_others_the_same_objects():
    board = configured(fire="2", all_small="PT2")
    defaults = cfg.Config()  # fire "1" and all_small "PT1" are built too
    fire2, small2 = board.paytables[0], board.paytables[1]
    assert pt.find(0, "1") is defaults.paytables[0]
    pt.keep_only(board)
    assert sorted(pt._built) == sorted((w, board.paytables[w].ident) for w in range(pt.WAGER_COUNT))
    assert pt.find(0, "2") is fire2 and pt.find(1, "PT2") is small2  # the engine compares by identity
    rebuilt = pt.find(0, "1")  # dropped: asked for again, built afresh with the same contents
    assert rebuilt is not defaults.paytables[0]
    assert (rebuilt.ident, rebuilt.pays, rebuilt.unit) == ("1", defaults.paytables[0].pays, defaults.paytables[0].unit)


def test_keep_only_keeps_what_any_of_its_configurations_uses_and_skips_none():
    board = configured(fire="3")
    journal = cfg.Config()
    pt.keep_only(None, board, journal)
    assert pt.find(0, "3") is board.paytables[0] and pt.find(0, "1") is journal.paytables[0]
    assert len(pt._built) == pt.WAGER_COUNT + 1


def test_a_table_once_built_is_found_without_the_specs(monkeypatch):
    table = pt.find(3, "PT2")

    def specs_dropped(wager):  # as on the board after power-up: reading them would load them again
        raise AssertionError("the specs were read")

    monkeypatch.setattr(pt, "_specs", specs_dropped)
    assert pt.find(3, "PT2") is table
    with pytest.raises(AssertionError, match="specs were read"):
        pt.find(3, "no such table")  # an id not built still needs them


def test_a_table_built_after_the_cut_is_still_the_one_the_engine_compares():
    board = configured(fire="4")
    pt.keep_only(board)
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
