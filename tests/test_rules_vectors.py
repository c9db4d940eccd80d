"""Hand-worked sequences for every cell of docs/rules.md's "which rolls end what",
run under CPython and the MicroPython unix port (128 KB heap), which must agree
byte for byte."""

import json
import os

import pytest
from conftest import ROOT
from vm import event_runner

from sim import runtime

with open(os.path.join(ROOT, "tests", "vectors", "sequences.json"), encoding="utf-8") as f:
    VECTORS = json.load(f)


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
    result = runtime.run("tests/vm/event_runner.py", input=script, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == run_cpython(script)
