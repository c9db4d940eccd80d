"""The MicroPython path takes real inputs: a full operator configuration and a
key script of any length reach the VM by file and stream, never on its command
line (the `micropython` binary dies on an argument of ~300 bytes)."""

import json
import os
import random
import subprocess
import sys

import pytest
from conftest import ROOT

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from sim.session import Session


def full_config():
    """Every configuration key, set away from its default, pretty-printed."""
    config = {
        "offered": list(reversed(pt.WAGER_NAMES)),
        "paytables": {
            "fire": "4",
            "all_small": "PT2",
            "all_tall": "PT2",
            "make_em_all": "PT-FLT-BC-03",
            "mea_progressive": "PT-BJS-MEA-06",
            "fired_up": "PT-BJS-FUP-06",
        },
        "rebet_after_win": False,
        "fire_window": "first_roll",
        "bonus_window": "idle",
        "supervisor_pin": {"pbkdf2_sha256": "ab" * 32, "salt": "cd" * 16, "iterations": 700},
    }
    assert sorted(config) == sorted(cfg.KEYS), "a new configuration key belongs in this test"
    text = json.dumps(config, indent=2)
    assert len(text) > 500  # well past what the VM's argv survives
    return text


def sim(*args, stdin=b""):
    return subprocess.run([sys.executable, "-m", "sim", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=600)


def test_replay_takes_a_full_config_on_both_runtimes(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(full_config())
    rolls = "".join("%d %d\n" % (a, b) for a in range(1, 7) for b in range(1, 7)).encode()
    outs = [sim("replay", "--runtime", r, "--config", str(path), stdin=rolls) for r in ("cpython", "micropython")]
    for out in outs:
        assert out.returncode == 0, out.stderr
    assert outs[0].stdout == outs[1].stdout
    first = json.loads(outs[0].stdout.splitlines()[0])  # 1-1: a come-out 2
    assert set(first["open"]) == set(pt.WAGER_NAMES)  # every wager offered
    fired_up = [r for r in first["resolved"] if r["wager"] == "fired_up"]
    assert fired_up and fired_up[0]["unit"] == "for 1"  # FUP-06 has no 2-first sequence


def test_run_and_the_board_take_a_full_config_on_the_vm(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(full_config())
    outs = [sim("run", "--keys", "3 4 2 2", "--runtime", r, "--config", str(path)) for r in ("cpython", "micropython")]
    for out in outs:
        assert out.returncode == 0, out.stderr
    assert outs[0].stdout == outs[1].stdout
    with Session("micropython", full_config()) as session:  # what `python -m sim --runtime micropython` starts
        state = session.send("5 6")
    assert state["hand"]["rolls"] == 1 and state["events"][0]["dice"] == [5, 6]
    assert state["events"][0]["event"] == "roll"


def test_a_300_kb_config_is_refused_in_one_line(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"offered": ["fire"]' + " " * 300_000 + "}")
    out = sim("replay", "--runtime", "micropython", "--config", str(path), stdin=b"3 4\n")
    assert out.returncode == 2 and out.stdout == b""
    assert out.stderr.decode().count("\n") == 1 and "at most 4096" in out.stderr.decode()


KEY_SCRIPT_ROLLS = int(os.environ.get("KEY_SCRIPT_ROLLS", "2000"))  # `make proof-keys`: 20,000


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_a_long_key_script_runs_whole(runtime, tmp_path):
    rolls = KEY_SCRIPT_ROLLS
    rng = random.Random(20_000)
    script = " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rolls))
    path = tmp_path / "keys.txt"
    path.write_text(script)
    out = sim("run", "--keys-file", str(path), "--runtime", runtime)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["hand"]["rolls"] == rolls
    assert len([e for e in state["events"] if e["event"] == "roll"]) == rolls
    # The last roll is the script's last pair, so nothing was dropped on the way.
    assert state["events"][-1]["dice"] == [int(x) for x in script.split()[-2:]]
