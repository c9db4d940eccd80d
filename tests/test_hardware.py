# Hardware data and generated drawings: board.json holds the lamp contract and a
# safe ESP32 pin map; every file hardware/drawings.py writes is up to date and valid.
# The checks live in board_problems() so the tests can also prove they catch
# broken boards (see test_checks_catch_*).

import copy
import itertools
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")
sys.path.insert(0, HW)

import drawings  # noqa: E402
import hwmodel  # noqa: E402


def _names(prefix, items):
    return ["%s.%s" % (prefix, i) for i in items]


# The logical lamp names are a contract with the firmware (issue text, verbatim).
CONTRACT = (
    ["point.off"]
    + _names("point", (4, 5, 6, 8, 9, 10))
    + _names("fire", (4, 5, 6, 8, 9, 10, "open"))
    + _names("bonus", (2, 3, 4, 5, 6, 8, 9, 10, 11, 12))
    + ["small.open", "tall.open", "all.open"]
    + _names("mea", (2, 3, 4, 5, 6, 8, 9, 10, 11, 12, "open"))
    + _names("fired", (1, 2, 3, 4, 5, "open"))
    + ["alert.floor", "alert.manager", "status"]
)
EXTRA_OK = set()  # lamps beyond the contract, each with a reason; none today
ROLES = {"die", "digit", "clear", "enter", "undo", "end_hand", "lamp_test", "supervisor_pin"}
BUTTONS = {"undo", "end_hand", "lamp_test", "supervisor_key"}
FLASH = set(range(6, 12))
STRAPPING = {0, 2, 5, 12, 15}
INPUT_ONLY = set(range(34, 40))
UART0 = {1, 3}
ESP32_GPIOS = set(range(0, 20)) | {21, 22, 23, 25, 26, 27} | set(range(32, 40))
MIN_PITCH_MM = 30  # centre to centre: room for a lamp and its printed label


def load_board():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def pins(board):
    """[(gpio, use, direction, pull)] for every GPIO the board uses."""
    out = [(board["strip"]["pin"], "strip", "out", None)]
    out += [(g, "row", "out", None) for g in board["keypad"]["rows"]]
    out += [(g, "col", "in", "up") for g in board["keypad"]["cols"]]
    out += [(b["pin"], n, "in", b.get("pull")) for n, b in board["buttons"].items()]
    return out


def board_problems(board):
    p = []
    lamps = board["lamps"]
    names = [lp["name"] for lp in lamps]
    for n in CONTRACT:
        if names.count(n) != 1:
            p.append("lamp %s appears %d times" % (n, names.count(n)))
    extras = set(names) - set(CONTRACT) - EXTRA_OK
    if extras:
        p.append("lamps outside the contract: %s" % sorted(extras))
    count = board["strip"]["count"]
    if sorted(lp["pixel"] for lp in lamps) != list(range(count)) or len(lamps) != count:
        p.append("pixels are not exactly 0..%d" % (count - 1))
    pw, ph = board["panel_mm"]
    r = board["parts"]["lamp_diameter_mm"] / 2.0
    for lp in lamps:
        if not (r <= lp["x"] <= pw - r and r <= lp["y"] <= ph - r):
            p.append("lamp %s is outside the panel" % lp["name"])
        if not str(lp.get("label", "")).strip():
            p.append("lamp %s has no label" % lp["name"])
    for a, b in itertools.combinations(lamps, 2):
        if math.hypot(a["x"] - b["x"], a["y"] - b["y"]) < MIN_PITCH_MM:
            p.append("lamps %s and %s are closer than %d mm" % (a["name"], b["name"], MIN_PITCH_MM))
    used = pins(board)
    gpios = [u[0] for u in used]
    if len(gpios) != len(set(gpios)):
        p.append("a GPIO is used twice: %s" % sorted(g for g in gpios if gpios.count(g) > 1))
    for g, use, direction, pull in used:
        if g not in ESP32_GPIOS:
            p.append("GPIO%d (%s) does not exist on the ESP32" % (g, use))
        if g in FLASH:
            p.append("GPIO%d (%s) is a flash pin" % (g, use))
        if g in STRAPPING:
            p.append("GPIO%d (%s) is a strapping pin" % (g, use))
        if g in UART0:
            p.append("GPIO%d (%s) is the USB serial port" % (g, use))
        if g in INPUT_ONLY and (direction != "in" or pull):
            p.append("GPIO%d (%s) is input-only without internal pulls" % (g, use))
    labels = board["keypad"]["labels"]
    flat = [k for row in labels for k in row]
    if len(labels) != 4 or any(len(row) != 4 for row in labels) or len(set(flat)) != 16:
        p.append("keypad labels are not 4x4 unique")
    if len(board["keypad"]["rows"]) != len(labels) or len(board["keypad"]["cols"]) != 4:
        p.append("keypad rows/cols do not match the labels")
    keys = board["keys"]
    if set(keys) != set(flat):
        p.append("keys without a label or labels without a role: %s" % sorted(set(keys) ^ set(flat)))
    if set(keys.values()) - ROLES:
        p.append("unknown key roles: %s" % sorted(set(keys.values()) - ROLES))
    if sorted(k for k, v in keys.items() if v == "die") != list("123456"):
        p.append("die keys are not exactly 1-6")
    for role in ROLES - {"die", "digit"}:
        if list(keys.values()).count(role) != 1:
            p.append("role %s is not on exactly one key" % role)
    if set(board["buttons"]) != BUTTONS:
        p.append("buttons are not %s" % sorted(BUTTONS))
    return p


def test_board_json_is_valid():
    assert board_problems(load_board()) == []


def test_strip_matches_lamps():
    board = load_board()
    st = board["strip"]
    assert st["type"] == "WS2812B" and st["order"] == "GRB"
    assert st["count"] == len(CONTRACT) + len(EXTRA_OK) == len(board["lamps"])
    assert 0 < st["max_brightness"] <= 255


def _mutate(board, what):
    b = copy.deepcopy(board)
    lamps = b["lamps"]
    if what == "duplicate name":
        lamps[5]["name"] = lamps[6]["name"]
    elif what == "missing lamp":
        lamps.pop()
    elif what == "pixel gap":
        lamps[3]["pixel"] = 99
    elif what == "outside panel":
        lamps[0]["x"] = b["panel_mm"][0] + 5
    elif what == "overlap":
        lamps[1]["x"], lamps[1]["y"] = lamps[0]["x"] + 3, lamps[0]["y"]
    elif what == "strapping pin":
        b["buttons"]["undo"]["pin"] = 12
    elif what == "flash pin":
        b["keypad"]["cols"][0] = 7
    elif what == "input-only output":
        b["strip"]["pin"] = 34
    elif what == "input-only pull-up":
        b["buttons"]["lamp_test"]["pin"] = 35
    elif what == "shared gpio":
        b["buttons"]["end_hand"]["pin"] = b["keypad"]["rows"][0]
    elif what == "duplicate key label":
        b["keypad"]["labels"][0][0] = "2"
    elif what == "label without role":
        del b["keys"]["C"]
    elif what == "7 as a die":
        b["keys"]["7"] = "die"
    return b


@pytest.mark.parametrize(
    "what",
    [
        "duplicate name",
        "missing lamp",
        "pixel gap",
        "outside panel",
        "overlap",
        "strapping pin",
        "flash pin",
        "input-only output",
        "input-only pull-up",
        "shared gpio",
        "duplicate key label",
        "label without role",
        "7 as a die",
    ],
)
def test_checks_catch_broken_boards(what):
    assert board_problems(_mutate(load_board(), what)) != []


def test_power_budget_fits_and_is_what_bom_says():
    board = load_board()
    pw, n = board["power"], board["strip"]["count"]
    worst = n * pw["lamp_full_white_ma"] + pw["controller_ma"] + pw["shifter_ma"]
    capped = n * pw["lamp_full_white_ma"] * board["strip"]["max_brightness"] / 255.0
    assert pw["supply_a"] * 1000 >= worst * pw["margin"]
    assert worst < pw["fuse_a"] * 1000 <= pw["supply_a"] * 1000
    b = hwmodel.budget(board)
    assert b["worst_ma"] == worst and abs(b["lamps_capped_ma"] - capped) < 1e-9
    assert hwmodel.budget_problems(b) == []
    assert sorted(pw["inject_at"])[0] == 0 and set(pw["inject_at"]) <= set(range(n))
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    assert "%d × %d mA" % (n, pw["lamp_full_white_ma"]) in bom
    assert "%.2f A" % (worst / 1000.0) in bom and "%.2f A" % (capped / 1000.0) in bom
    assert "| LED1–LED%d | %d |" % (n, n) in bom


def test_budget_problems_catch_a_small_supply():
    board = load_board()
    board["power"]["supply_a"] = 2.0
    board["power"]["fuse_a"] = 1.5
    assert len(hwmodel.budget_problems(hwmodel.budget(board))) >= 2


def test_generated_files_are_up_to_date(tmp_path):
    written = drawings.write_all(str(tmp_path))
    assert sorted(os.path.basename(p) for p in written) == sorted(drawings.build_all())
    for path in written:
        name = os.path.basename(path)
        with open(path, "rb") as f, open(os.path.join(HW, name), "rb") as g:
            assert f.read() == g.read(), "%s is stale: run python hardware/drawings.py" % name


def test_stale_detection_notices_a_change(tmp_path):
    board = load_board()
    board["lamps"][0]["label"] = "CHANGED"
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    assert "layout.svg" in drawings.stale(HW, str(path))


def test_generator_runs_as_a_script_from_the_repo_root():
    r = subprocess.run(
        [sys.executable, "hardware/drawings.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert "up to date" in r.stdout


@pytest.mark.parametrize("name", ["wiring.svg", "keymap.svg", "layout.svg"])
def test_svgs_parse_and_carry_the_data(name):
    root = ET.parse(os.path.join(HW, name)).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    board = load_board()
    if name == "layout.svg":
        expected = [lp["name"] for lp in board["lamps"]] + [lp["label"] for lp in board["lamps"]]
    elif name == "keymap.svg":
        expected = [k for row in board["keypad"]["labels"] for k in row]
    else:
        expected = ["GPIO%d" % u[0] for u in pins(board)] + [lp["name"] for lp in board["lamps"]]
    missing = [e for e in expected if e not in text]
    assert missing == []


def test_pinout_lists_every_gpio():
    with open(os.path.join(HW, "pinout.md"), encoding="utf-8") as f:
        md = f.read()
    for g, use, _, _ in pins(load_board()):
        assert "| GPIO%d | %s |" % (g, hwmodel.header_pin(g)) in md, use
