"""`python -m sim run`: key script in, one JSON line out; --svg draws the board."""

import json
import subprocess
import sys

import svgread
from conftest import ROOT

from sim.paths import BOARD_JSON
from sim.pin_hash import config_entry

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
    config.write_text(json.dumps({"supervisor_pin": config_entry("9876")}))
    out = sim_run("--keys", "3 3 pin 9 8 7 6 enter undo", "--config", str(config))
    assert out.returncode == 0, out.stderr
    assert [e["event"] for e in json.loads(out.stdout)["events"]] == ["roll", "supervisor_on", "undo"]


def draw(tmp_path, keys):
    """Run `keys` with --svg: (the run JSON, the SVG's root element)."""
    svg = tmp_path / "board.svg"
    out = sim_run("--keys", keys, "--svg", str(svg))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), svgread.root(svg)


def test_svg_draws_every_lamp_in_its_state(tmp_path):
    state, root = draw(tmp_path, "2 2")
    assert root.tag == svgread.NS + "svg"
    # 1.5 px per mm: the 640 x 330 mm panel and a 34 mm caption strip.
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("960", "546", "0 0 640 364")
    drawn = svgread.lamps(root)
    with open(BOARD_JSON, encoding="utf-8") as f:
        board = json.load(f)
    assert list(drawn) == [lamp["name"] for lamp in board["lamps"]] and len(drawn) == 47
    for lamp in board["lamps"]:
        name = lamp["name"]
        assert drawn[name]["label"] == lamp.get("label", name)
        expected = svgread.expected_lamp(state["lamps"][name])
        assert {k: drawn[name][k] for k in expected} == expected, name
    # A 4 on the come-out: the puck moves from OFF to ON 4 (white), nothing blinks.
    assert drawn["point.4"] == {"colors": ["#ffffff"], "glow": "#ffffff", "blink": False, "label": "ON 4"}
    assert drawn["point.off"]["colors"] == [svgread.DARK]
    assert drawn["all.open"]["label"] == "MAKE 'EM ALL"
    assert not any(d["blink"] for d in drawn.values())
    caption = "status ready  |  shooter 1  |  point 4  |  Fire Bet points none  |  t = %d ms" % state["t"]
    assert svgread.caption(root) == caption
    assert any(t.startswith("dashed ring: blinking") for t in svgread.texts(root))


def test_svg_shows_a_win_as_two_colour_flashing_lamps(tmp_path):
    # 2, 3, 4 (point 4), 5, 5, 6, 8: All Small is made at the 6. Its lamps flash white
    # in turn with their own state: small.open dark (its window reopened after the 6
    # and closed at the 8: bonus_window "after_seven"), bonus.2-6 violet (Make 'Em
    # All still has them, the new All Small cycle has not), each with the blink ring.
    state, root = draw(tmp_path, "1 1 1 2 2 2 1 4 2 3 3 3 4 4")
    drawn = svgread.lamps(root)
    for name in drawn:
        expected = svgread.expected_lamp(state["lamps"][name])
        assert {k: drawn[name][k] for k in expected} == expected, name
    assert drawn["small.open"] == {
        "colors": ["#ffffff"],
        "glow": "#ffffff",
        "blink": True,
        "label": "ALL SMALL",
    }
    for n in (2, 3, 4, 5, 6):
        assert drawn["bonus.%d" % n]["colors"] == ["#ffffff", "#a000ff"] and drawn["bonus.%d" % n]["blink"]
    assert drawn["bonus.8"] == {"colors": ["#ffc000"], "glow": "#ffc000", "blink": False, "label": "8"}
    assert [n for n, d in drawn.items() if d["blink"]] == ["small.open"] + ["bonus.%d" % n for n in (2, 3, 4, 5, 6)]
    assert "point 4" in svgread.caption(root)


def test_a_bad_token_is_one_line_on_stderr_and_exit_2():
    out = sim_run("--keys", "3 4 banana")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("sim run: token 'banana': unknown key") and out.stderr.count("\n") == 1


def test_a_bad_config_is_refused(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"supervisor_pin": "1234"}')
    out = sim_run("--keys", "3 4", "--config", str(config))
    assert out.returncode == 2 and "supervisor_pin" in out.stderr
