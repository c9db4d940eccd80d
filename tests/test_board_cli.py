"""`python -m sim run`: key script in, one JSON line out; --svg draws the board."""

import json
import re
import subprocess
import sys

from conftest import ROOT

from crapsboard import entry as en

KEYS = "2 2 1 4 1 4 2 2 2 2 3 4"  # point 4, made; point 4 again, seven-out


def sim_run(*args):
    return subprocess.run(
        [sys.executable, "-m", "sim", "run", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_run_prints_lamps_and_events():
    out = sim_run("--keys", KEYS)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert len(state["lamps"]) == 47
    assert state["lamps"]["fire.4"] == {"on": False, "color": "#000000", "blink": False}  # seven-out
    assert state["lamps"]["fire.open"] == {"on": True, "color": "#00ff00", "blink": False}
    assert [e["event"] for e in state["events"]] == ["roll"] * 6
    assert state["hand"]["shooter"] == 2
    assert out.stdout.count("\n") == 1


def test_both_runtimes_print_the_same_bytes():
    cp = sim_run("--keys", KEYS + " 9 key:on undo")
    mp = sim_run("--keys", KEYS + " 9 key:on undo", "--runtime", "micropython")
    assert cp.returncode == mp.returncode == 0, mp.stderr
    assert cp.stdout == mp.stdout and '"undo"' in cp.stdout


def test_config_file_sets_the_pin(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"supervisor_pin_sha256": "%s"}' % en.pin_sha256("9876"))
    out = sim_run("--keys", "3 3 pin 9 8 7 6 enter undo", "--config", str(config))
    assert out.returncode == 0, out.stderr
    assert [e["event"] for e in json.loads(out.stdout)["events"]] == ["roll", "supervisor_on", "undo"]


def test_svg_draws_every_lamp_in_its_state(tmp_path):
    svg = tmp_path / "board.svg"
    out = sim_run("--keys", "2 2", "--svg", str(svg))
    assert out.returncode == 0, out.stderr
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    assert len(re.findall(r'<circle [^>]*r="8" ', text)) == 47
    assert text.count('fill="#ffffff" stroke') == 1  # the puck on 4
    assert ">ON 4</text>" in text and ">MAKE 'EM ALL</text>" in text


def test_a_bad_token_is_one_line_on_stderr_and_exit_2():
    out = sim_run("--keys", "3 4 banana")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("sim run: token 'banana': unknown key") and out.stderr.count("\n") == 1


def test_a_bad_config_is_refused(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"supervisor_pin_sha256": "1234"}')
    out = sim_run("--keys", "3 4", "--config", str(config))
    assert out.returncode == 2 and "supervisor_pin_sha256" in out.stderr
