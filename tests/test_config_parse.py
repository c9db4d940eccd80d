"""config_parse.py at its documented edges (the mutants of the
configuration checker): each limit of docs/engine.md and docs/rules.md is
accepted at its value and refused one step beyond, naming the key."""

import json

import pytest

from crapsboard.rules import config as cfg
from crapsboard.rules.config_type import ConfigError

GOOD_PIN = {"pbkdf2_sha256": "ab" * 32, "salt": "cd" * 16, "iterations": 700}


def refused_key(obj):
    with pytest.raises(ConfigError) as e:
        cfg.parse(obj)
    return e.value.key


def pin(**change):
    return {"supervisor_pin": dict(GOOD_PIN, **change)}


def test_a_salt_of_8_to_64_bytes_is_accepted_and_7_or_65_refused():
    # docs/engine.md: "salt": 16–128 hex
    assert cfg.parse(pin(salt="cd" * 8)).supervisor_pin[0] == b"\xcd" * 8
    assert cfg.parse(pin(salt="cd" * 64)).supervisor_pin[0] == b"\xcd" * 64
    assert refused_key(pin(salt="cd" * 7)) == "supervisor_pin.salt"
    assert refused_key(pin(salt="cd" * 65)) == "supervisor_pin.salt"


def test_iterations_from_1_to_1000000_are_accepted_and_0_or_1000001_refused():
    assert cfg.parse(pin(iterations=1)).supervisor_pin[1] == 1
    assert cfg.parse(pin(iterations=1000000)).supervisor_pin[1] == 1000000
    for bad in (0, 1000001, -1, 700.0, "700", True, None):
        assert refused_key(pin(iterations=bad)) == "supervisor_pin.iterations", bad


def test_the_digest_is_exactly_32_bytes_of_lowercase_hex():
    assert cfg.parse(pin()).supervisor_pin == (b"\xcd" * 16, 700, b"\xab" * 32)
    for bad in ("ab" * 31, "ab" * 33, "AB" * 32, "ab" * 31 + "a", "zz" * 32, 7, None):
        assert refused_key(pin(pbkdf2_sha256=bad)) == "supervisor_pin.pbkdf2_sha256", bad


def test_a_pin_entry_needs_exactly_its_three_fields():
    for bad in ({"pbkdf2_sha256": "ab" * 32, "salt": "cd" * 16}, dict(GOOD_PIN, extra=1), [], "x"):
        assert refused_key({"supervisor_pin": bad}) == "supervisor_pin"
    assert cfg.parse({"supervisor_pin": None}).supervisor_pin is None


def test_a_file_of_4096_bytes_is_read_and_4097_refused():
    # docs/rules.md: "A configuration file is at most 4096 bytes."
    text = '{"rebet_after_win": false}'
    assert cfg.loads(text + " " * (4096 - len(text))).rebet_after_win is False
    with pytest.raises(ConfigError, match="is 4097 bytes; at most 4096 are read"):
        cfg.loads(text + " " * (4097 - len(text)))


def test_nesting_of_8_levels_is_parsed_and_9_refused_before_parsing():
    eight = '{"offered": ' + "[" * 7 + "]" * 7 + "}"
    assert refused_key(json.loads(eight)) == "offered[0]"  # reached the checker: a list is no wager name
    with pytest.raises(ConfigError) as e:
        cfg.loads(eight)
    assert e.value.key == "offered[0]"
    nine = '{"offered": ' + "[" * 8 + "]" * 8 + "}"
    with pytest.raises(ConfigError, match="nested more than 8 levels deep"):
        cfg.loads(nine)


def test_brackets_and_escaped_quotes_inside_strings_do_not_count_as_nesting():
    name = "[" * 9 + '\\"' + "{" * 9
    with pytest.raises(ConfigError) as e:
        cfg.loads('{"offered": ["' + name + '"]}')
    assert e.value.key == "offered[0]" and "unknown wager" in str(e.value)
    # closing brackets bring the depth back down: eight levels twice in a row
    twice = '{"offered": [' + "[" * 6 + "]" * 6 + "," + "[" * 6 + "]" * 6 + "]}"
    with pytest.raises(ConfigError) as e:
        cfg.loads(twice)
    assert e.value.key == "offered[0]"
    # a string with an escape in it ends at its closing quote: nesting after it counts
    nine_after = '{"note": "a\\"b", "offered": ' + "[" * 8 + "]" * 8 + "}"
    with pytest.raises(ConfigError, match="nested more than 8 levels deep"):
        cfg.loads(nine_after)
    # each closing bracket takes back one level: nine deep after a closed pair is refused
    nine_after_a_pair = '{"note": [[]], "offered": ' + "[" * 8 + "]" * 8 + "}"
    with pytest.raises(ConfigError, match="nested more than 8 levels deep"):
        cfg.loads(nine_after_a_pair)


def test_malformed_json_is_a_config_error():
    with pytest.raises(ConfigError, match="not valid JSON"):
        cfg.loads('{"offered": ')


def test_the_offered_list_and_paytables_are_checked_by_name():
    assert cfg.parse({"offered": []}).offered == 0
    assert cfg.parse({"offered": ["fired_up", "fire"]}).offered == 0b100001
    assert refused_key({"offered": ["fire", "fire"]}) == "offered[1]"
    assert refused_key({"offered": "fire"}) == "offered"
    assert cfg.parse({"paytables": {"fire": 3}}).paytables[0].ident == "3"
    assert refused_key({"paytables": {"all_small": 3}}) == "paytables.all_small"
    assert refused_key({"paytables": {"fire": True}}) == "paytables.fire"
    assert refused_key({"paytables": []}) == "paytables"
    assert refused_key({"paytables": {"nope": "1"}}) == "paytables.nope"


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"offered": ["fired_up", "all_small", "all_small"]}, 'offered[2]: "all_small" is listed twice'),
        ({"paytables": {"all_small": 3}}, "paytables.all_small: 3 is not an all_small paytable (one of"),
        ({"paytables": {"fire": True}}, "paytables.fire: true is not a fire paytable (one of"),
        ({"paytables": {"fire": None}}, "paytables.fire: null is not a fire paytable (one of"),
    ],
)
def test_a_refusal_names_the_value_as_the_file_spells_it(obj, message):
    # Any wager listed twice is refused, not the Fire Bet alone; only the Fire Bet's
    # tables are numbered, so 3 elsewhere, true or null stay as JSON spells them.
    with pytest.raises(ConfigError) as e:
        cfg.parse(obj)
    assert str(e.value).startswith(message)


def test_windows_and_rebet_take_only_their_documented_values():
    c = cfg.parse({"fire_window": "first_roll", "bonus_window": "idle", "rebet_after_win": False})
    assert (c.fire_window, c.bonus_window, c.rebet_after_win) == (1, 1, False)
    c = cfg.parse({"fire_window": "until_point", "bonus_window": "after_seven", "rebet_after_win": True})
    assert (c.fire_window, c.bonus_window, c.rebet_after_win) == (0, 0, True)
    assert refused_key({"fire_window": "idle"}) == "fire_window"
    assert refused_key({"bonus_window": "first_roll"}) == "bonus_window"
    assert refused_key({"rebet_after_win": 1}) == "rebet_after_win"
    assert refused_key({"colour": 1}) == "colour"
    assert refused_key([]) == "config"


def test_a_value_json_cannot_spell_is_named_as_python_writes_it():
    # parse() takes objects from callers other than json.loads (the simulator's
    # settings); a value without a JSON spelling still gets its one-line refusal
    from crapsboard.rules import config_parse

    with pytest.raises(ConfigError) as refused:
        config_parse.parse({"offered": [b"fire"]})
    assert str(refused.value) == (
        "offered[0]: unknown wager b'fire' (one of fire, all_small, all_tall, make_em_all, mea_progressive, fired_up)"
    )
