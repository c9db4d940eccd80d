"""Run an event script (tests/event_runner.py's lines) through the engine under
CPython and the MicroPython unix port; both must print the same bytes."""

import json
import os

import event_runner
import mp


def run_both(lines, config=None):
    """The records of `lines` (with a leading `config` line when `config` is
    given), after checking both runtimes agree byte for byte."""
    if config is not None:
        lines = ["config " + json.dumps(config)] + list(lines)
    script = "\n".join(lines) + "\n"
    out = []
    event_runner.run(script.split("\n"), out.append)
    cpython = "".join(out)
    result = mp.run_script(os.path.join(mp.TESTS, "event_runner.py"), script)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == cpython
    records = [json.loads(line) for line in cpython.splitlines()]
    if config is not None:
        assert records[0]["ok"], records[0]
        records = records[1:]
    return records


def resolved(record, key="resolved"):
    """{wager: resolution} of one record."""
    source = record["state"]["resolved"] if key == "resolved" else record[key]
    return {r["wager"]: r for r in source}
