"""The journal survives a power cut before or inside any flash write (MicroPython VM, real littlefs).

A sample of cut points runs here; `make proof` (JOURNAL_PROOF=all) runs every one.
"""

import ast
import os

from sim import runtime


def run_proof(words):
    # A big heap: the VM holds the 2 MiB flash image and its cut copies.
    result = runtime.run(
        "tests/vm/journal_proof.py", heapsize="24M", input=words.encode(), capture_output=True, timeout=1800
    )
    assert result.returncode == 0, result.stderr.decode()
    line = [x for x in result.stdout.decode().splitlines() if x.startswith("RESULT ")][-1]
    return ast.literal_eval(line[len("RESULT ") :])


def test_every_acknowledged_event_survives_a_cut_at_sampled_writes():
    words = "all" if os.environ.get("JOURNAL_PROOF") == "all" else "sample 50"
    result = run_proof(words)
    assert result["failures"] == 0, result["first_failures"]
    assert result["events"] >= 300
    for kind in ("roll", "undo", "end_hand", "config"):
        assert result["kinds"][kind] >= 1
    assert result["segments"][0][0] > 1  # segments were rotated and the oldest dropped
    if words == "all":
        assert result["cut_points"] == 2 * result["writes"]  # before and inside every program and erase
    else:
        assert result["cut_points"] == 100
    print(result)


def test_acknowledging_before_the_write_is_caught():
    result = run_proof("sample 10 ack-early")  # the proof must fail: a few cut points show it
    assert result["failures"] > 0
    assert any("acknowledged record" in f and "lost" in f for f in result["first_failures"])
