"""config.json at power-up (crapsboard/boot/power_up.py `load_config`) under CPython:
the board plays the configuration the file holds, the defaults without one, and a file
it refuses is the start-up fault (docs/board.md, start-up failed)."""

import pytest

from crapsboard.boot import power_up
from crapsboard.rules import config as cfg


def test_config_json_is_the_configuration_the_board_plays(tmp_path):
    path = tmp_path / "config.json"
    assert power_up.load_config(str(path)) is None  # no file: the defaults
    path.write_text('{"rebet_after_win": false, "offered": ["fire"]}')
    config = power_up.load_config(str(path))
    assert config.rebet_after_win is False
    assert config.rebet_after_win != cfg.parse({}).rebet_after_win  # not the default


def test_a_config_json_the_board_refuses_is_a_fault(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("{not json")
    with pytest.raises(cfg.ConfigError):
        power_up.load_config(str(path))
