"""Run an event script (tests/vm/event_runner.py's lines) through the engine under
CPython and the MicroPython unix port; both must print the same bytes."""

import json

from vm import event_runner

from sim import runtime


def run_both(lines, config=None):
    """The records of `lines` (with a leading `config` line when `config` is
    given), after checking both runtimes agree byte for byte."""
    if config is not None:
        lines = ["config " + json.dumps(config)] + list(lines)
    script = "\n".join(lines) + "\n"
    out = []
    event_runner.run(script.split("\n"), out.append)
    cpython = "".join(out)
    result = runtime.run("tests/vm/event_runner.py", input=script, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == cpython
    records = [json.loads(line) for line in cpython.splitlines()]
    if config is not None:
        assert records[0]["ok"], records[0]
        records = records[1:]
    return records


def resolved(record, key="resolved"):
    """{wager: resolution} of one record."""
    source = record["state"]["resolved"] if key == "resolved" else record[key]
    return {r["wager"]: r for r in source}
