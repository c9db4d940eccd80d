# Revision C: the BOM buys the build. Every line has an orderable part number
# (no series name, no placeholder), every designator a document names is bought,
# every counted part (glands, crimps, housings, cable by the metre, heat-shrink)
# is bought in a quantity that covers its uses, and the cable stock's facts are
# the ones the wire checks use. Each check is shown failing on a broken copy.

import copy
import json
import os
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import hwbonds  # noqa: E402
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
    text = "TB2, AD3, SR1, RL4, XU1, MH2, CT5, HX1, CB8, ET1 and HS1; "
    text += "then TB3, AD99, SR2, RL9, XU2, MH7, CT9, HX7, CB9, ET9"
    assert hwparts.missing_refs(text, rows) == sorted(
        ["TB3", "AD99", "SR2", "RL9", "XU2", "MH7", "CT9", "HX7", "CB9", "ET9"]
    )


def test_every_counted_part_is_bought_to_cover_its_uses():
    board = load()
    rows = hwparts.parts_rows(board)
    need = hwbuy.uses(board)
    assert hwbuy.quantity_problems(rows, need) == []
    assert sum(n for n, _ in need["E9"]) == 7  # six cables and the panel bond into E6
    assert sum(n for n, _ in need["CT1"]) == 26  # 18 AWG female: W1.n at X5–X7, string ends, trip-test lead
    # M4 rings: 8 leads at their stud, 3 at a bonded stud (E1 lid, E6 door, E12), W0's bond core, W12's PE
    assert sum(n for n, _ in need["CT5"]) == 15
    assert sum(n for n, _ in need["ET1"]) == 3 and sum(n for n, _ in need["ET2"]) == 1  # bezels, keyswitch
    assert sum(n for n, _ in need["HX1"]) == 6 and sum(n for n, _ in need["HX2"]) == 4  # 3 strings + trip-test lead


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


def _text(name):
    with open(os.path.join(HW, name), encoding="utf-8") as f:
        text = f.read()
    if name.endswith(".svg"):
        text = " ".join(t.text or "" for t in ET.fromstring(text).iter("{http://www.w3.org/2000/svg}text"))
    return text


def test_every_bond_ends_in_a_terminal_the_bom_buys():
    rows = hwparts.parts_rows(load())
    assert hwbonds.bond_problems(hwparts._covered(rows)) == []
    assert {term for _, term, _, _ in hwbonds.BONDS} == {"CT5", "CT6", "TB2", "ET1", "ET2"}
    for name in ("README.md", "wiring.svg"):  # the bonding step and the drawing name the tags
        assert "ET1" in _text(name) and "ET2" in _text(name), name


def test_an_earth_tag_used_but_not_bought_is_caught_everywhere():
    board = load()
    rows = [r for r in hwparts.parts_rows(board) if r[0] != "ET1"]  # revision B bought no bezel tags
    assert hwbonds.bond_problems(hwparts._covered(rows)) == [
        "the bond of S%d bezel (W11.%d) ends in ET1, which no BOM line buys" % (k, k + 4) for k in (1, 2, 3)
    ]
    wires = [w[0] for w in __import__("hwwires").wires(board)]
    assert hwparts.missing_refs(_text("README.md"), rows, wires) == ["ET1"]
    assert hwparts.missing_refs(_text("wiring.svg"), rows, wires) == ["ET1"]
    assert hwbuy.quantity_problems(rows, hwbuy.uses(board)) == [
        "ET1 is used (under the mounting nut of S1 bezel, S2 bezel, S3 bezel) but no BOM line buys it"
    ]
    short = [("ET1", 2) + r[2:] if r[0] == "ET1" else r for r in hwparts.parts_rows(board)]
    assert hwbuy.quantity_problems(short, hwbuy.uses(board)) == [
        "ET1: 2 bought, 3 used (under the mounting nut of S1 bezel, S2 bezel, S3 bezel)"
    ]


def test_exactly_one_mains_cord_the_sites():
    board = load()
    rows = hwparts.parts_rows(board)
    assert hwparts.cord_problems(board, rows) == []
    assert [r[3] for r in rows if r[0] == "E5"] == ["Tripp Lite P006-006"]  # north_america
    assert set(hwparts.MAINS_CORDS) == {"north_america", "europe_schuko", "uk"}
    for site, (_, mpn) in hwparts.MAINS_CORDS.items():
        other = copy.deepcopy(board)
        other["power"]["mains_cord"] = site
        assert [r[3] for r in hwparts.parts_rows(other) if r[0] == "E5"] == [mpn]
        assert hwparts.cord_problems(other, hwparts.parts_rows(other)) == []
    table = _text("BOM.md")
    for _, mpn in hwparts.MAINS_CORDS.values():
        assert mpn in table, mpn


def test_no_cord_two_cords_a_wrong_cord_or_an_unknown_site_is_caught():
    board = load()
    rows = hwparts.parts_rows(board)
    schuko = ("E5", 1, "mains cord", hwparts.MAINS_CORDS["europe_schuko"][1])
    assert hwparts.cord_problems(board, rows + [schuko]) == [
        "2 mains cord lines (E5) in one build: exactly one, the site's"
    ]
    assert hwparts.cord_problems(board, [r for r in rows if r[0] != "E5"]) == [
        "0 mains cord lines (E5) in one build: exactly one, the site's"
    ]
    wrong = [schuko if r[0] == "E5" else r for r in rows]
    assert hwparts.cord_problems(board, wrong) == [
        "E5 is Tripp Lite P054-006, not the north_america cord Tripp Lite P006-006"
    ]
    board["power"]["mains_cord"] = "mars"
    assert hwparts.cord_problems(board, rows) == [
        "power.mains_cord is 'mars'; it must be one of europe_schuko, north_america, uk"
    ]


def test_an_unknown_site_still_generates_and_the_bom_says_why(tmp_path):
    import drawings

    board = load()
    board["power"]["mains_cord"] = "mars"
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    bom = drawings.build_all(str(path))["BOM.md"]
    assert "power.mains_cord is 'mars'; it must be one of europe_schuko, north_america, uk" in bom
