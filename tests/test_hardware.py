# Hardware data and generated drawings: board.json holds the lamp contract and a
# safe ESP32 pin map; every file hardware/drawings.py writes is up to date and valid.
# The checks live in board_problems() so the tests can also prove they catch
# broken boards (see test_checks_catch_*).

import copy
import itertools
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import drawings  # noqa: E402
import hwlines  # noqa: E402
import hwmodel  # noqa: E402
import hwprotect  # noqa: E402
import partfacts  # noqa: E402


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
PSRAM = {16, 17}  # ESP32-WROVER-E: the PSRAM's clock and chip select
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
    key = board["buttons"]["supervisor_key"]
    if "nc_pin" in key:
        out.append((key["nc_pin"], "supervisor_key NC contact", "in", key.get("nc_pull", key.get("pull"))))
    out += [(g, "lamp feed fault flag", "in", None) for g in board["strip"]["feed_fault_pins"]]
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
        if g in PSRAM:
            p.append("GPIO%d (%s) belongs to the WROVER's PSRAM" % (g, use))
        if pull in ("up", "down") and g in INPUT_ONLY:
            p.append("GPIO%d (%s) relies on an internal pull it does not have" % (g, use))
        if g in INPUT_ONLY and direction != "in":
            p.append("GPIO%d (%s) is input-only: it cannot drive" % (g, use))
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
    key = board["buttons"].get("supervisor_key", {})
    if key.get("contact") != "changeover" or "nc_pin" not in key:
        p.append("the supervisor keyswitch is not a changeover contact on two inputs")
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
    elif what == "keyswitch NC on a strapping pin":
        b["buttons"]["supervisor_key"]["nc_pin"] = 2
    elif what == "keyswitch with one contact":
        del b["buttons"]["supervisor_key"]["nc_pin"]
    elif what == "keyswitch NC on its NO pin":
        b["buttons"]["supervisor_key"]["nc_pin"] = b["buttons"]["supervisor_key"]["pin"]
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
        "keyswitch NC on a strapping pin",
        "keyswitch NC on its NO pin",
        "keyswitch with one contact",
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
    b = hwmodel.budget(board)
    assert b["worst_ma"] == worst and abs(b["lamps_capped_ma"] - capped) < 1e-9
    assert hwprotect.budget_problems(b) == []
    first = board["strip"]["feed_first_pixels"]
    assert sorted(first)[0] == 0 and set(first) <= set(range(n))
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    assert "%d × %d mA" % (n, pw["lamp_full_white_ma"]) in bom
    assert "%.2f A" % (worst / 1000.0) in bom and "%.2f A" % (capped / 1000.0) in bom
    assert "| LED1–LED%d | %d |" % (n, n) in bom


def test_budget_problems_catch_a_small_supply():
    board = load_board()
    board["power"]["supply_a"] = 2.0
    problems = hwprotect.budget_problems(hwmodel.budget(board))
    assert any("below the 3.84 A needed" in p for p in problems)
    # 2 A × 110 % = 2.2 A limit: EF1 acts at up to 1.30 A, plus the other branches' normal load.
    assert any("EF1 eFuse 1.2 A" in p and "can never clear its fault" in p for p in problems)


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


# --- power: one latch-off eFuse per branch ----------------------


def _problems(board):
    return hwprotect.budget_problems(hwmodel.budget(board))


def test_every_branch_has_an_efuse_above_its_load_below_its_wires():
    board = load_board()
    b = hwmodel.budget(board)
    assert [br[0] for br in b["branches"]] == ["EF1", "EF2", "EF3", "EF4"]  # three lamp feeds, then the controller
    assert [br[3] for br in b["branches"]] == [1.2, 0.9, 1.2, 0.3]
    assert all(br[2] == "efuse" for br in b["branches"])
    # TPS2552-1 datasheet (SLVS841E) Table 1: RILIM 21.5 kΩ (1 %) trips 1.2 A between 1.106 and
    # 1.2971 A; 0.3 A (88.7 kΩ) between 0.2621 and 0.3423 A; F1's worst case is 17 × 60 mA.
    assert hwprotect.protector("efuse", 1.2) == pytest.approx((1.106, 1.2971))
    assert hwprotect.protector("efuse", 0.3) == pytest.approx((0.2621, 0.3423))
    assert hwprotect.protector("efuse", 1.0) == pytest.approx((0.92, 1.08))  # no row: the ±8 % budget
    assert b["branches"][0][4] == 17 * 60
    assert _problems(board) == []


def test_a_fuse_that_cannot_clear_its_feeds_fault_is_refused():
    # The issue's case: a T1.5A lets 3.15 A (2.1 × In) run for minutes, 10.6 W more than F1's 1.02 A.
    board = load_board()
    board["power"]["protector"] = "fuse"
    board["power"]["feed_trip_a"] = [1.5, 1.5, 1.5]
    problems = _problems(board)
    assert any("FU1 T1.5A" in p and "cannot clear its feed's fault" in p and "3.15 A" in p for p in problems)
    assert any("FU1 T1.5A: 1.5 A is not an IEC 60127 fuse rating" in p for p in problems)
    assert not hwprotect.is_iec_rating(1.5) and hwprotect.is_iec_rating(1.6) and hwprotect.is_iec_rating(1.25)


def test_an_efuse_the_supply_cannot_drive_to_its_trip_is_refused():
    board = load_board()
    board["power"]["supply_a"] = 1.5  # limit 1.65 A: EF1 acts at 1.30 A + the others' 0.92 A
    assert any("EF1" in p and "can never clear its fault" in p for p in _problems(board))


def test_an_efuse_too_close_to_its_load_or_above_its_wire_is_refused():
    board = load_board()
    board["power"]["feed_trip_a"] = [1.05, 0.9, 1.2]  # may trip at 0.97 A, F1 draws 1.02 A
    assert any("EF1 eFuse 1.05 A" in p and "not above its worst case 1.02 A" in p for p in _problems(board))
    board = load_board()
    board["power"]["link_awg"] = 22  # 0.92 A: a 1.2 A eFuse no longer protects the string
    assert any("0.92 A ampacity of its 22 AWG string links" in p for p in _problems(board))


def test_an_efuse_trip_without_the_datasheets_rilim_is_refused():
    board = load_board()
    board["power"]["feed_trip_a"] = [1.25, 0.9, 1.2]  # no Table 1 row: no resistor to order
    assert "EF1 eFuse 1.25 A: no RILIM for a 1.25 A trip in the TPS2552-1's table (partfacts.EFUSE_RILIM)" in (
        _problems(board)
    )


def test_a_feed_with_more_lamps_than_its_efuse_carries_is_refused():
    board = load_board()
    board["strip"]["feed_first_pixels"] = [0, 30]  # F1 now feeds 30 lamps: 1.8 A
    assert any("EF1 eFuse 1.2 A" in p and "not above its worst case 1.80 A" in p for p in _problems(board))


def test_the_dc_trunk_is_in_the_drop_and_ampacity_checks():
    board = load_board()
    pw = board["power"]
    assert (pw["trunk_awg"], pw["trunk_m"]) == (16, 0.3)
    b = hwmodel.budget(board)
    assert b["drop_full_v"] <= pw["max_drop_v"]
    # The figure: 3.07 A over 1 m of 18 AWG pair adds 0.13 V, past the limit.
    pw["trunk_awg"], pw["trunk_m"] = 18, 1.0
    assert 3.071 * 0.02095 * 2 == pytest.approx(0.1287, abs=1e-4)
    assert any("worst voltage drop" in p for p in _problems(board))
    pw["trunk_awg"] = 24  # 0.577 A ampacity
    assert any("DC trunk 24 AWG carries 3.07 A" in p for p in _problems(board))


def test_feed_connectors_are_keyed_polarised_latching_and_rated_above_the_fuse():
    board = load_board()
    conns = hwlines.connectors(board)
    feeds = [c for c in conns if c[1].startswith("power feed")]
    assert [c[0] for c in feeds] == ["X5", "X6", "X7"]
    assert all(c[2] == ["+5V", "GND"] for c in feeds)
    assert partfacts.CONNECTOR["keyed"] and partfacts.CONNECTOR["latching"]
    assert partfacts.CONNECTOR["rating_a"] >= max(board["power"]["feed_trip_a"]) * 1.08
    # No plug fits a header of another function: every other connector has more pins.
    assert hwlines.connector_problems(board) == []
    clash = conns + [("X9", "LED data copy", ["DATA", "GND"])]
    assert hwlines.connector_problems(board, clash) != []


def test_strings_do_not_link_5v_across_feeds_and_drop_stays_in_limit():
    board = load_board()
    b = hwmodel.budget(board)
    assert [(s[0], s[1], s[2]) for s in b["strings"]] == [(n, a, z) for n, a, z in b["feeds"]]
    # F1's longest link: pixel 2 (600, 30) to pixel 3 (40, 80) = 560 + 50 + 20 slack = 630 mm,
    # rounded up to the 50 mm step.
    assert b["strings"][0][3] == 650
    assert b["drop_full_v"] <= board["power"]["max_drop_v"]
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    assert "+5 V is not linked between strings" in bom
    assert "plug to plug**, DATA and GND only (two string receptacles cannot mate without it)" in bom


# --- inputs: pull-ups, settle time, protection -----------------------


def test_settle_time_is_the_column_rc_with_the_cable():
    board = load_board()
    kp = board["keypad"]
    # By hand: (10 kΩ pull-up + 1 kΩ series) × (1 m × 100 pF/m + 40 pF stray + 0.8 pF TVS)
    # = 11 kΩ × 140.8 pF = 1.5488 µs; 5 τ = 7.744 µs, rounded up to 8 µs.
    assert board["parts"]["column_pullup_ohm"] == 10000
    assert (kp["cable_max_m"], kp["cable_pf_per_m"], kp["stray_pf"]) == (1.0, 100, 40)
    assert hwlines.column_tau_us(board) == pytest.approx(1.5488)
    assert kp["settle_us"] == hwlines.settle_us(board) == 8
    assert hwlines.input_problems(board) == []


def test_a_longer_keypad_cable_makes_the_stored_settle_time_stale():
    board = load_board()
    board["keypad"]["cable_max_m"] = 3.0  # 11 kΩ × 340.8 pF × 5 = 18.7 µs
    assert hwlines.settle_us(board) == 19
    assert any("settle_us is 8" in p and "19 µs" in p for p in hwlines.input_problems(board))


def test_a_pressed_key_reads_low_and_a_weak_row_does_not():
    board = load_board()
    # 10 kΩ ∥ 45 kΩ = 8.18 kΩ against 1 kΩ + 500 Ω: 3.3 × 1.5 / 9.68 = 0.51 V < 0.825 V.
    assert hwlines.key_low_v(board) == pytest.approx(0.511, abs=0.001)
    board["parts"]["row_series_ohm"] = 10000
    assert any("above the ESP32's 0.82 V low threshold" in p for p in hwlines.input_problems(board))


def test_every_off_board_line_has_series_r_tvs_and_inputs_pull_up_and_rc():
    board = load_board()
    ref = hwlines.refs(board)
    lines = hwlines.offboard_lines(board)
    assert [n for n, _, _ in lines] == [
        "ROW1", "ROW2", "ROW3", "ROW4", "COL1", "COL2", "COL3", "COL4",
        "SW_UNDO", "SW_END_HAND", "SW_LAMP_TEST", "KEY_ON", "KEY_OFF", "DATA",
    ]  # fmt: skip
    tvs = [ref["tvs:" + n] for n, _, _ in lines]
    assert len(set(tvs)) == len(lines)  # one channel each
    assert hwlines.tvs_count(board) == 4 and partfacts.TVS["line_pf"] <= 1.0  # low capacitance
    designators = []
    for net, _, kind in lines:
        designators.append(ref["series" if kind == "data" else "series:" + net])
        if kind in ("col", "switch"):
            designators.append(ref["pullup:" + net])
        if kind == "switch":
            designators.append(ref["filter:" + net])
    assert len(designators) == len(set(designators))  # no part shared between lines
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    for net, _, _ in lines:
        row = [r for r in bom.splitlines() if r.startswith("| %s | GPIO" % net)]
        assert len(row) == 1, net
        assert ref["tvs:" + net] in row[0]
    assert "| R7–R15 | 9 | 10 kΩ ¼ W 1 %, pull-ups to 3V3 at the connector" in bom
    assert "| C3–C7 | 5 | 10 nF ceramic X7R 50 V, switch-line RC filter" in bom


def test_changeover_keyswitch_is_additive_and_documented():
    board = load_board()
    key = board["buttons"]["supervisor_key"]
    # KEY_OFF left GPIO4 (beside GPIO0: a bridge booted the ROM downloader whenever the key was
    # off) for GPIO39, input-only: its pull-up is the external one at X3, none asked of the chip.
    assert key["contact"] == "changeover" and key["pin"] == 27 and key["nc_pin"] == 39
    assert key["nc_pull"] == "none"
    from crapsboard.table import layout as lay  # the current firmware still reads the file

    layout = lay.load(os.path.join(HW, "board.json"))
    assert layout.button_pins[lay.BUTTONS.index("supervisor_key")] == 27
    with open(os.path.join(HW, "pinout.md"), encoding="utf-8") as f:
        md = f.read()
    assert "| keyswitch NC contact (closed = supervisor off) (KEY_OFF) | GPIO39 | J2-4 |" in md
    assert "| low | low | **fault**" in md and "| high | high | **fault**" in md


# --- names and BOM completeness --------------------------------------


def test_nets_do_not_reuse_part_designators_and_headers_are_j2_j3():
    board = load_board()
    nets = [n for n, _, _, _ in hwmodel.keypad_nets(board)]
    assert nets == ["ROW1", "ROW2", "ROW3", "ROW4", "COL1", "COL2", "COL3", "COL4"]
    # Espressif's DevKitC V4 user guide and schematic: J2 (3V3 ... 5V) and J3 (GND ... CLK).
    assert hwmodel.header_pin(32) == "J2-7" and hwmodel.header_pin(23) == "J3-2"
    assert hwmodel.J2[0] == "3V3" and hwmodel.J2[-1] == "5V"
    for name in ("pinout.md", "wiring.svg", "BOM.md"):
        with open(os.path.join(HW, name), encoding="utf-8") as f:
            text = f.read()
        assert "J1-" not in text, name
        assert not re.search(r"keypad (row|column) [RC]\d", text), name


def test_bom_lists_everything_a_technician_must_buy():
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    table = bom[bom.index("BEGIN GENERATED parts") : bom.index("END GENERATED parts")]
    for needle in (
        "| EF1–EF4 | 4 | eFuse: latch-off current limiter with open-drain FAULT flag",
        "| X2 | 1 | 9-way Micro-Fit 3.0",
        "| X3 | 1 | 7-way Micro-Fit 3.0",
        "| X4 | 1 | 3-way Micro-Fit 3.0",
        "| X5 | 1 | 2-way Micro-Fit 3.0",
        "labelled both ends",
        "19-way female header",
        "standoff",
        "pixel string for F1",
        "pixel string for F3",
        "**earthed closed metal enclosure** for PS1 and X1",
        "terminal cover",
        "earth stud",
        "cable gland",
        "changeover (SPDT)",
        "USB 2.0 isolator",
        "panel feed-through",
        "strain relief of W5",
        "**logic box**: lockable steel enclosure",
        "tamper-evident seal",
        "T1A (IEC 60127-2 rating)",
    ):
        assert needle in table, needle
    assert "lamp links" not in table  # hand-spliced link wire is gone


# --- revision B: wires, part numbers, named parts --------------------

import hwparts  # noqa: E402
import hwwires  # noqa: E402


def test_every_wire_fits_the_terminals_on_it():
    board = load_board()
    assert hwwires.wire_problems(board) == []
    refs = [w[0] for w in hwwires.wires(board)]
    assert {"W0", "W1.1", "W2", "W3", "W4", "W8", "W9", "W11", "W12"} <= set(refs)
    # The case: an 18 AWG string cannot carry a JST SM contact (22-28 AWG).
    jst = "JST SM crimp SYM-001T-P0.6 / SYF-001T-P0.6"
    assert partfacts.TERMINAL_AWG[jst] == (22, 28)
    bad = [("WX", "string with JST SM ends", 18, 1.0, "red", jst, jst)]
    assert (
        hwwires.wire_problems(board, bad)
        == ["WX (string with JST SM ends) is 18 AWG, outside the 22–28 AWG of its " + jst] * 2
    )  # both ends
    board["power"]["feed_awg"] = 16  # Micro-Fit takes 18 AWG at most
    assert any(p.startswith("W1.1") and "16 AWG" in p for p in hwwires.wire_problems(board))


def test_every_bom_line_has_an_orderable_part_number():
    rows = hwparts.parts_rows(load_board())
    assert hwparts.bom_line_problems(rows) == []
    assert all(len(r) == 4 and str(r[3]).strip() for r in rows)
    broken = rows + [("R99", 1, "a resistor", "generic metal film")] + [("R98", 1, "another", "")]
    problems = hwparts.bom_line_problems(broken)
    assert [p.split(" (")[0] for p in problems] == ["BOM line R99", "BOM line R98"]


def _text_of(name):
    path = os.path.join(HW, name)
    if name.endswith(".svg"):
        root = ET.parse(path).getroot()
        return " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    with open(path, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("name", ["README.md", "wiring.svg", "pinout.md", "BOM.md"])
def test_every_part_named_in_a_document_is_in_the_bom(name):
    board = load_board()
    wires = [w[0] for w in hwwires.wires(board)]
    assert hwparts.missing_refs(_text_of(name), hwparts.parts_rows(board), wires) == []


def test_a_part_named_but_not_bought_is_caught():
    rows = hwparts.parts_rows(load_board())
    assert hwparts.missing_refs("fit R5, C1 and EF2, then U99 and FU7", rows) == ["FU7", "U99"]
    assert hwparts.missing_refs("R3–R6 and LED47", rows) == []


def test_the_module_is_a_wrover_and_nothing_uses_its_psram_pins():
    board = load_board()
    assert board["board"] == "ESP32-DevKitC-VE (ESP32-WROVER-E, 8 MB PSRAM)"
    assert not {u[0] for u in pins(board)} & PSRAM
    assert board["keypad"]["cols"] == [18, 19, 4, 23]
    b = copy.deepcopy(board)
    b["keypad"]["cols"][0] = 16
    assert any("PSRAM" in p for p in board_problems(b))
    b = copy.deepcopy(board)
    b["buttons"]["supervisor_key"]["nc_pull"] = "up"  # GPIO39 has no internal pull-up
    assert any("internal pull it does not have" in p for p in board_problems(b))


def test_every_lamp_feed_has_a_fault_flag_on_an_input_with_an_external_pull_up():
    board = load_board()
    flags = board["strip"]["feed_fault_pins"]
    assert len(flags) == len(board["strip"]["feed_first_pixels"]) == 3
    ref = hwlines.refs(board)
    assert [ref["pullup:FLT%d" % (i + 1)] for i in range(3)] == ["R25", "R26", "R27"]
    with open(os.path.join(HW, "pinout.md"), encoding="utf-8") as f:
        md = f.read()
    for i, g in enumerate(flags):
        assert "| lamp feed F%d fault flag (FLT%d, EF%d FAULT) | GPIO%d |" % (i + 1, i + 1, i + 1, g) in md


def test_the_carrier_netlist_wires_every_gpio_and_every_line_to_its_connector():
    import hwnet

    board = load_board()
    nets = dict(hwnet.nets(board))
    text = " ".join("; ".join(pins) for pins in nets.values())
    for g, use, _, _ in pins(board):
        assert "(GPIO%d)" % g in text, use
    for net, _, _ in hwlines.offboard_lines(board):
        assert net in nets
    assert nets["KEY_OFF"][0] == "X3-5" and "R24 to U2 J2-4 (GPIO39)" in nets["KEY_OFF"]
    assert nets["FLT1"] == ["EF1 FAULT", "R25", "U2 J2-5 (GPIO34)"]


def test_the_key_card_teaches_the_progressive_count():
    """The digit keys also key a progressive count (docs/keys.md): the card says so
    and shows the sequence with the board's own enter key."""
    root = ET.parse(os.path.join(HW, "keymap.svg")).getroot()
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    board = load_board()
    enter = next(k for k, role in board["keys"].items() if role == "enter")
    assert "PIN only" not in text and text.count("PIN · COUNT") == 4
    assert "PROGRESSIVE COUNT" in text
    assert "%s 1 1 2 %s = twelve MEA wagers" % (enter, enter) in text
