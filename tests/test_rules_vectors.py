"""Hand-worked sequences for every cell of RULES.md's "which rolls end what",
run under CPython and the MicroPython unix port (128 KB heap), which must agree
byte for byte."""

import json
import os

import event_runner
import mp
import pytest

VECTORS = json.load(open(os.path.join(mp.TESTS, "vectors", "sequences.json")))


def script_of(vector):
    events = list(vector["events"])
    if vector["config"] is not None:
        events.insert(0, "config " + json.dumps(vector["config"]))
    return "\n".join(events) + "\n"


def run_cpython(script):
    out = []
    event_runner.run(script.split("\n"), out.append)
    return "".join(out)


def check(expect, record):
    state = record["state"]
    for key, want in expect.items():
        if key in ("ok", "error"):
            assert record[key] == want, key
        elif key == "resolved":
            got = sorted((r["wager"], r["level"]) for r in state["resolved"])
            assert got == sorted(tuple(r) for r in want), "resolved"
        elif key in ("open", "marks"):
            for wager, value in want.items():
                assert state[key][wager] == value, key + "." + wager
        else:
            assert state[key] == want, key


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"][:60] for v in VECTORS])
def test_vector_cpython(vector):
    records = [json.loads(line) for line in run_cpython(script_of(vector)).splitlines()]
    offset = 1 if vector["config"] is not None else 0
    if offset:
        assert records[0]["ok"], records[0]
    for index, expect in vector["expect"].items():
        check(expect, records[int(index) - 1 + offset])


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"][:60] for v in VECTORS])
def test_vector_micropython_identical(vector):
    script = script_of(vector)
    result = mp.run_script(os.path.join(mp.TESTS, "event_runner.py"), script)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == run_cpython(script)
