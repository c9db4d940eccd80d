"""A configuration as the link shows it (docs/link.md `status` / `config_set`;
docs/engine.md's fields): crapsboard/link/link_config.as_json spells a Config
as config.json does, so parsing it gives the same configuration back; the
supervisor PIN as `{"pbkdf2_sha256": 64 hex, "salt": hex, "iterations": N}`
(CPython)."""

import json

from crapsboard.link import link_config
from crapsboard.link import link_json as lj
from crapsboard.rules import config as cfg

PIN = {"pbkdf2_sha256": "ab" * 32, "salt": "0123456789abcdef0123456789abcdef", "iterations": 1000}


def test_a_supervisor_pin_is_spelt_as_config_json_spells_it():
    config = cfg.parse({"supervisor_pin": PIN})
    shown = json.loads(lj.encode(link_config.as_json(config)))
    assert shown["supervisor_pin"] == PIN
    assert cfg.parse(shown).supervisor_pin == config.supervisor_pin


def test_no_pin_is_null_and_the_rest_round_trips():
    config = cfg.parse({"rebet_after_win": True})
    shown = json.loads(lj.encode(link_config.as_json(config)))
    assert shown["supervisor_pin"] is None
    again = cfg.parse(shown)
    assert link_config.as_json(again) == link_config.as_json(config)


def _board(folder):
    """A board's app (no journal) and its link handlers, its files in `folder`."""
    import os

    from conftest import ROOT

    from crapsboard.link.link_app import Handlers
    from crapsboard.table import layout as lay
    from crapsboard.table.app import KEYSWITCH_NC_BIT, App
    from sim.portable.simboard import SimBoard

    layout = lay.load(os.path.join(ROOT, "hardware", "board.json"))
    board = SimBoard(layout)
    board.down = KEYSWITCH_NC_BIT
    return Handlers(App(board, layout), {}, "b", lambda: None, folder)


def test_a_config_the_flash_cannot_take_is_one_line_and_changes_nothing(tmp_path):
    # docs/link.md, config_set: written beside config.json first; if that fails, nothing
    # changed; if putting it in place fails, the configuration applied is taken back.
    import os

    import pytest

    from crapsboard.link.link import LinkError

    handlers = _board(str(tmp_path))
    before = link_config.as_json(handlers.app.table.config)
    assert before["rebet_after_win"] is True  # the default: each refused change below is to False
    os.mkdir(tmp_path / "config.json.new")  # the file cannot be written there
    with pytest.raises(LinkError, match=r"^config.json not written \(OSError 21\): nothing changed$"):
        link_config.config_set(handlers, {"config": {"rebet_after_win": False}})
    assert link_config.as_json(handlers.app.table.config) == before
    os.rmdir(tmp_path / "config.json.new")
    os.makedirs(tmp_path / "config.json" / "in the way")  # written, but not put in place
    with pytest.raises(LinkError, match=r"^config.json not stored \(OSError \d+\): taken back$"):
        link_config.config_set(handlers, {"config": {"rebet_after_win": False}})
    assert link_config.as_json(handlers.app.table.config) == before
    assert not os.path.exists(tmp_path / "config.json.new")
    os.rmdir(tmp_path / "config.json" / "in the way")
    os.rmdir(tmp_path / "config.json")
    assert link_config.config_set(handlers, {"config": {"rebet_after_win": True}})["config"]["rebet_after_win"]
    assert json.loads((tmp_path / "config.json").read_text()) == {"rebet_after_win": True}


def test_a_config_json_new_cut_short_by_a_full_flash_is_removed(tmp_path):
    # docs/link.md, `config_set`: a config.json.new the flash had no room to finish is
    # removed, not left half-written beside config.json. /dev/full opens and then
    # refuses the write (ENOSPC), as a full littlefs does.
    import os

    import pytest

    from crapsboard.link.link import LinkError

    handlers = _board(str(tmp_path))
    os.symlink("/dev/full", tmp_path / "config.json.new")
    with pytest.raises(LinkError, match=r"^config.json not written \(OSError 28\): nothing changed$"):
        link_config.config_set(handlers, {"config": {"rebet_after_win": True}})
    assert not os.path.lexists(tmp_path / "config.json.new")
    assert not os.path.exists(tmp_path / "config.json")


def test_a_config_the_stopped_journal_cannot_record_leaves_no_file_behind(tmp_path):
    # docs/link.md, config_set: a configuration is journalled before it is applied; when
    # the journal has stopped (here it was full), nothing changes, config.json.new included.
    import os

    import pytest
    from test_journal_restore import started

    from crapsboard.journal import journal as jn
    from crapsboard.link.link import LinkError

    handlers = _board(str(tmp_path))
    journal = started(tmp_path)  # its files in tmp_path/journal
    handlers.app.journal = journal
    handlers.app.journal_error = jn.JournalError(jn.FULL, "no room for record 2")
    before = link_config.as_json(handlers.app.table.config)
    with pytest.raises(LinkError, match=r"^the journal could not record it: nothing changed$"):
        link_config.config_set(handlers, {"config": {"rebet_after_win": True}})
    assert link_config.as_json(handlers.app.table.config) == before
    assert journal.seq == 1 and sorted(os.listdir(tmp_path)) == ["journal"]


def test_a_configuration_set_over_the_link_is_journalled_as_a_config_record_with_arg_0(tmp_path):
    # docs/journal.md, Record: 16 configuration (arg 0), as at power-up; the record's
    # state carries the new rules (docs/link.md, config_set).
    from test_journal_restore import started
    from test_link_events_files import every_page

    handlers = _board(str(tmp_path))
    journal = started(tmp_path)
    handlers.app.journal = journal
    link_config.config_set(handlers, {"config": {"rebet_after_win": False}})
    last = every_page(journal, 8)[-1]
    assert (last["seq"], last["kind"], last["arg"]) == (2, "config", 0)


def test_a_configuration_set_over_the_link_is_in_force_on_the_table_and_the_pin(tmp_path):
    # docs/link.md, `config_set`: applied at once, the rules and the supervisor PIN alike.
    handlers = _board(str(tmp_path))
    assert handlers.app.table.config.rebet_after_win is True  # docs/engine.md's default
    link_config.config_set(handlers, {"config": {"rebet_after_win": False, "supervisor_pin": PIN}})
    assert handlers.app.table.config.rebet_after_win is False
    assert handlers.app.entry.pin_record == cfg.parse({"supervisor_pin": PIN}).supervisor_pin
