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


def test_the_layout_is_layout_json_or_board_json_on_a_deploy_older_than_it(tmp_path, monkeypatch):
    # docs/board.md: a deploy writes layout.json; a board deployed before it has only
    # board.json, and plays on from that; with both, layout.json is the one read.
    import json

    from sim import devlayout
    from sim.paths import BOARD_JSON

    monkeypatch.chdir(tmp_path)
    with open(BOARD_JSON) as f:
        board_json = f.read()
    (tmp_path / "board.json").write_text(board_json)
    from_board_json = power_up.load_layout()
    lamps = json.loads(board_json)["lamps"]
    assert from_board_json.pixels["status"] == next(lamp["pixel"] for lamp in lamps if lamp["name"] == "status")
    compact = json.loads(devlayout.compact_text(board_json))
    compact["strip"]["max_brightness"] = from_board_json.max_brightness - 1
    (tmp_path / "layout.json").write_text(json.dumps(compact))
    assert power_up.load_layout().max_brightness == from_board_json.max_brightness - 1
