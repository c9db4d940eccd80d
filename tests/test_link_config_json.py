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
