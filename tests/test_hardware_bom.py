# Revision C: the BOM buys the build. Every line has an orderable part number
# (no series name, no placeholder), every designator a document names is bought,
# every counted part (glands, crimps, housings, cable by the metre, heat-shrink)
# is bought in a quantity that covers its uses, and the cable stock's facts are
# the ones the wire checks use. Each check is shown failing on a broken copy.

import copy
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import hwbuy  # noqa: E402
import hwparts  # noqa: E402
import partfacts  # noqa: E402


def load():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def test_series_names_and_placeholders_are_not_part_numbers():
    rows = hwparts.parts_rows(load())
    assert hwparts.bom_line_problems(rows) == []
    for bad in ("Littelfuse 0218 series", "TBD", "see vendor", "Lorlin SR series SRK 1NO+1NC", "Volex 17500 series"):
        assert hwparts.bom_line_problems([("FU1", 1, "mains fuse", bad)]) != [], bad
    refs = {r[0]: r[3] for r in rows}
    assert refs["S4"] == "Schneider Electric XB4BG21 + ZBE102" and refs["FU1"] == "Littelfuse 0218001.HXP"


def test_every_designator_family_is_seen_and_must_be_bought():
    rows = hwparts.parts_rows(load())
    text = "TB2, AD3, SR1, RL4, XU1, MH2, CT5, HX1, CB8 and HS1; then TB3, AD99, SR2, RL9, XU2, MH7, CT9, HX7, CB9"
    assert hwparts.missing_refs(text, rows) == sorted(["TB3", "AD99", "SR2", "RL9", "XU2", "MH7", "CT9", "HX7", "CB9"])


def test_every_counted_part_is_bought_to_cover_its_uses():
    board = load()
    rows = hwparts.parts_rows(board)
    need = hwbuy.uses(board)
    assert hwbuy.quantity_problems(rows, need) == []
    assert sum(n for n, _ in need["E9"]) == 7  # six cables and the panel bond into E6
    assert sum(n for n, _ in need["CT1"]) == 24  # 18 AWG female: W1.n at X5–X7, string power and data ends
    assert sum(n for n, _ in need["CT5"]) == 20  # M4 rings: 8 bonding leads, W0's bond core, W12's PE
    assert sum(n for n, _ in need["HX1"]) == 6 and sum(n for n, _ in need["HX2"]) == 3


def test_a_short_count_or_an_unbought_use_is_caught():
    board = load()
    rows = hwparts.parts_rows(board)
    need = hwbuy.uses(board)
    short = [("E9", 4) + r[2:] if r[0] == "E9" else r for r in rows]  # revision B's four glands
    assert hwbuy.quantity_problems(short, need) == [
        "E9: 4 bought, 7 used (feed pairs W1.n into E6; W2, W3, W4 into E6; the panel bond W11.4 into E6)"
    ]
    metres = [(r[0], "5 m") + r[2:] if r[0] == "CB1" else r for r in rows]
    assert any(p.startswith("CB1: 5 m bought") for p in hwbuy.quantity_problems(metres, need))
    missing = [r for r in rows if r[0] != "HX1"]
    assert hwbuy.quantity_problems(missing, need) == [
        "HX1 is used (string data ends, in and out) but no BOM line buys it"
    ]


def test_the_named_cables_are_the_facts_the_checks_use():
    board = load()
    assert hwbuy.cable_problems(board) == []
    cables = partfacts.CABLES
    assert cables["CB3"]["awg"] == board["power"]["link_awg"] == 18 and cables["CB3"]["mm2"] == 0.82
    assert cables["CB7"]["pf_per_m"] <= board["keypad"]["cable_pf_per_m"]
    assert cables["CB8"]["colours"] == ("brown", "blue", "green/yellow") and cables["CB8"]["mm2"] == 1.5
    assert set(hwbuy.STOCK) == {w[0].split(".")[0] for w in __import__("hwwires").wires(board)}
    # Revision B's string cable: 1.0 mm² (17 AWG) with a green/yellow core, in a box with real bonds.
    broken = copy.deepcopy(cables)
    broken["CB3"] = {
        "mpn": "Lapp ÖLFLEX CLASSIC 110 3G1.0",
        "awg": 17,
        "mm2": 1.0,
        "colours": ("green/yellow",),
        "cores": 3,
    }
    problems = hwbuy.cable_problems(board, broken)
    assert "W9 is modelled as 18 AWG but cut from CB3 (Lapp ÖLFLEX CLASSIC 110 3G1.0, 17 AWG)" in problems
    assert any(p.startswith("W14 is cut from Lapp") and "reserved for protective earth" in p for p in problems)
    broken = copy.deepcopy(cables)
    broken["CB7"]["pf_per_m"] = 150  # a keypad cable the settle time does not cover
    assert hwbuy.cable_problems(board, broken) == [
        "keypad cable Belden 9539: 150 pF/m core to core, above the 100 pF/m the settle time assumes"
    ]
