"""The compact layout.json a deploy puts on the board (sim/devlayout.py): it
holds only what the firmware reads, gives the same Layout as the whole
board.json, and a board the firmware would refuse is refused at the desk."""

import ast
import json
import os
import subprocess
import sys

import pytest

from crapsboard.table import layout as lay
from sim import devlayout
from sim.paths import BOARD_JSON, FIRMWARE_LIB, ROOT


def board():
    with open(BOARD_JSON, encoding="utf-8") as f:
        return json.load(f)


def same(a, b):
    return vars(a) == vars(b)


def test_the_compact_layout_gives_the_same_layout(tmp_path):
    full = lay.load(BOARD_JSON)
    path = tmp_path / "layout.json"
    path.write_text(devlayout.compact_text(open(BOARD_JSON, encoding="utf-8").read()))
    compact = lay.load(str(path))
    assert same(full, compact)
    assert compact.pixels["status"] == 0 and len(compact.pixels) == 47


def test_it_keeps_only_what_the_firmware_reads():
    text = devlayout.compact_text(open(BOARD_JSON, encoding="utf-8").read())
    data = json.loads(text)
    assert sorted(data) == ["buttons", "keypad", "keys", "pixels", "strip"]
    for drawing_only in ("power", "parts", "about", "lamps", "panel_mm", "cable_max_m", '"x"', '"label"', "WS2812B"):
        assert drawing_only not in text
    assert len(text.encode()) * 4 < len(open(BOARD_JSON, "rb").read())  # ~0.9 KB of 7.8 KB
    assert "\n" not in text.rstrip("\n") and ", " not in text  # one line, no padding


def test_every_lamp_keeps_its_pixel():
    data = json.loads(devlayout.compact_text(json.dumps(board())))
    by_name = {lamp["name"]: lamp["pixel"] for lamp in board()["lamps"]}
    assert data["pixels"] == [by_name[name] for name in lay.LAMP_NAMES]
    assert len(data["pixels"]) == 47 and sorted(data["pixels"]) == list(range(47))


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda b: b["lamps"][5].update(name="fire.eleven"), "fire.eleven"),
        (lambda b: b["lamps"][5].update(pixel=4), "pixel 4"),
        (lambda b: b["strip"].update(order="GBX"), "strip.order"),
        (lambda b: b.pop("lamps"), '"lamps"'),
    ],
    ids=["unknown-lamp", "pixel-used-twice", "bad-order", "no-lamps"],
)
def test_a_board_the_firmware_would_refuse_is_refused(change, words):
    data = board()
    change(data)
    with pytest.raises(ValueError, match=words):
        devlayout.compact_text(json.dumps(data))


def test_a_compact_layout_is_checked_like_the_whole_board(tmp_path):
    data = json.loads(devlayout.compact_text(json.dumps(board())))
    data["pixels"][lay.LAMP_NAMES.index("point.4")] = 99
    with pytest.raises(lay.LayoutError, match="point.4: pixel 99"):
        lay.Layout(data)
    data["pixels"] = data["pixels"][:-1]  # one lamp short
    with pytest.raises(lay.LayoutError, match="pixels of all 47 lamps"):
        lay.Layout(data)
    data["pixels"] = {"status": 0}
    with pytest.raises(lay.LayoutError, match="pixels of all 47 lamps"):
        lay.Layout(data)


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "sim", "device-layout", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_the_command_writes_the_file(tmp_path):
    out = tmp_path / "layout.json"
    done = run_cli("-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text() == devlayout.compact_text(open(BOARD_JSON, encoding="utf-8").read())
    assert run_cli().stdout == out.read_text()


def test_the_command_refuses_a_bad_board_in_one_line(tmp_path):
    bad = tmp_path / "board.json"
    bad.write_text("{not json")
    done = run_cli("--board", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("sim device-layout: ") and "not valid JSON" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_firmware_has_no_assert_the_deploy_would_strip():
    # The deploy compiles with -O3 (no line-number tables, for the heap),
    # which also drops every assert: a check written as one would vanish on the board.
    package = os.path.join(FIRMWARE_LIB, "crapsboard")
    sources = [os.path.join(d, n) for d, _, names in os.walk(package) for n in names if n.endswith(".py")]
    sources.append(os.path.join(ROOT, "firmware", "main.py"))
    found = []
    for path in sources:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        found += [(os.path.basename(path), node.lineno) for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    assert len(sources) > 20 and found == []
