"""The replay contract: `python -m sim replay`, both runtimes, byte-identical."""

import json
import random
import subprocess
import sys

import pytest
from conftest import ROOT

RUNTIMES = ["cpython", "micropython"]


def replay(stdin, *args):
    return subprocess.run(
        [sys.executable, "-m", "sim", "replay", *args],
        input=stdin.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=300,
    )


def random_stream(seed, count):
    rng = random.Random(seed)
    return "".join("%d %d\n" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(count))


def write_config(tmp_path, obj):
    path = tmp_path / "config.json"
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_each_roll_prints_one_json_record(runtime):
    out = replay("3 4\n2,2\n\n# a comment\n 5, 6 \n", "--runtime", runtime)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [r["n"] for r in records] == [1, 2, 3]
    assert [r["dice"] for r in records] == [[3, 4], [2, 2], [5, 6]]
    assert [r["total"] for r in records] == [7, 4, 11]
    assert [r["point"] for r in records] == [None, 4, 4]
    assert records[1]["shooter"] == 1
    assert set(records[0]["open"]) == {"fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up"}
    assert records[2]["marks"]["make_em_all"] == [4, 11]
    first = records[0]["resolved"][0]
    assert first == {
        "wager": "all_small",
        "paytable": "PT1",
        "level": 0,
        "outcome": "loss",
        "returns": 0,
        "pays": 0,
        "unit": "to 1",
        "envy": None,
    }


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize(
    "bad, line, words",
    [
        ("3 7", 2, "die face '7' is not 1-6"),
        ("0 1", 2, "die face '0' is not 1-6"),
        ("3", 2, "a missing die"),
        ("3 4 5", 2, "more than two dice"),
        ("three four", 2, "is not 1-6"),
        ("3,,4", 2, "expected two die faces"),
    ],
)
def test_a_bad_line_stops_with_its_line_number(runtime, bad, line, words):
    out = replay("1 1\n" + bad + "\n3 4\n", "--runtime", runtime)
    assert out.returncode == 2
    err = out.stderr.decode()
    assert "line %d" % line in err and words in err, err
    assert len(out.stdout.decode().splitlines()) == line - 1  # what came before was printed


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize(
    "config, key",
    [
        ({"offered": ["fire", "craps"]}, "offered[1]"),
        ({"paytables": {"fire": "7"}}, "paytables.fire"),
        ({"paytables": {"make_em_all": "PT-BJS-MEA-01"}}, "paytables.make_em_all"),
        ({"paytables": {"roulette": "1"}}, "paytables.roulette"),
        ({"rebet_after_win": "yes"}, "rebet_after_win"),
        ({"rebet": True}, "rebet"),
        ("[1, 2]", "config"),
        ("{not json", "config"),
    ],
)
def test_a_bad_config_is_refused_naming_the_key(runtime, config, key, tmp_path):
    out = replay("3 4\n", "--runtime", runtime, "--config", write_config(tmp_path, config))
    assert out.returncode == 2
    assert out.stdout == b""
    path = str(tmp_path / "config.json")
    assert out.stderr.decode().startswith("sim replay: config %s: %s:" % (path, key)), out.stderr
    assert out.stderr.decode().count("\n") == 1


def test_a_missing_config_file_is_refused(tmp_path):
    out = replay("3 4\n", "--config", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr.decode()


def test_pays_units_and_envy_follow_the_configured_paytables(tmp_path):
    config = write_config(
        tmp_path,
        {"paytables": {"make_em_all": "PT-FLT-BC-03", "mea_progressive": "PT-BJS-MEA-02", "fire": 3}},
    )
    rolls = "1 1\n1 2\n1 3\n1 4\n1 5\n2 6\n3 6\n4 6\n5 6\n6 6\n"
    records = [json.loads(x) for x in replay(rolls, "--config", config).stdout.decode().splitlines()]
    last = {r["wager"]: r for r in records[-1]["resolved"]}
    assert last["make_em_all"] == {
        "wager": "make_em_all",
        "paytable": "PT-FLT-BC-03",
        "level": 10,
        "outcome": "win",
        "returns": 151,  # 150 to 1: the pay and the stake
        "pays": 150,
        "unit": "to 1",
        "envy": {"amount": 5, "unit": "times each winning wager", "per": "wager"},
    }
    assert last["mea_progressive"]["pays"] == last["mea_progressive"]["returns"] == "meter"
    assert last["mea_progressive"]["envy"] == {"amount": 1000, "unit": "units for a 1-unit base bet", "per": "event"}


def test_nine_numbers_on_mea_02_pay_300_with_per_player_envy(tmp_path):
    config = write_config(tmp_path, {"paytables": {"mea_progressive": "PT-BJS-MEA-02"}})
    rolls = "1 1\n1 2\n1 3\n1 4\n1 5\n2 6\n3 6\n4 6\n5 6\n5 6\n"  # nine numbers, then 11 again
    records = [json.loads(x) for x in replay(rolls, "--config", config).stdout.decode().splitlines()]
    mea = [r for r in records[-1]["resolved"] if r["wager"] == "mea_progressive"]
    assert mea == [
        {
            "wager": "mea_progressive",
            "paytable": "PT-BJS-MEA-02",
            "level": 9,
            "outcome": "win",
            "returns": 300,  # 300 for 1: the stake included
            "pays": 300,
            "unit": "for 1",
            "envy": {"amount": 50, "unit": "units for a 1-unit base bet", "per": "player"},
        }
    ]


@pytest.mark.parametrize(
    "config",
    [
        None,
        {"rebet_after_win": False, "paytables": {"fired_up": "PT-BJS-FUP-03", "fire": "4"}},
        {"offered": ["fired_up", "all_tall"], "paytables": {"fired_up": "PT-BJS-FUP-05", "all_tall": "PT2"}},
    ],
)
def test_both_runtimes_print_the_same_bytes(config, tmp_path):
    stream = random_stream(11, 3000)
    args = ["--config", write_config(tmp_path, config)] if config else []
    cpython = replay(stream, *args)
    micropython = replay(stream, "--runtime", "micropython", *args)
    assert cpython.returncode == micropython.returncode == 0, micropython.stderr
    assert len(cpython.stdout.splitlines()) == 3000
    assert cpython.stdout == micropython.stdout
    summary = [replay(stream, "--summary", "--runtime", r, *args).stdout for r in RUNTIMES]
    assert summary[0] == summary[1]


def test_summary_counts_every_resolution():
    stream = random_stream(5, 5000)
    records = [json.loads(x) for x in replay(stream).stdout.decode().splitlines()]
    summary = json.loads(replay(stream, "--summary").stdout)
    assert summary["rolls"] == 5000
    for wager, levels in summary["resolved"].items():
        expected = {}
        for record in records:
            for r in record["resolved"]:
                if r["wager"] == wager:
                    expected[str(r["level"])] = expected.get(str(r["level"]), 0) + 1
        assert {k: v for k, v in levels.items() if v} == expected
    assert list(summary["resolved"]["fire"]) == [str(n) for n in range(7)]
    assert list(summary["resolved"]["make_em_all"]) == [str(n) for n in range(11)]
