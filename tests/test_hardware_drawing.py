# Revision C: wiring.svg is generated from the single source and names every
# part the BOM buys, every wire, every protective-earth bond and the mains
# circuit; a part missing from it fails, shown on a deliberately broken copy.

import json
import os
import re
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import draw_parts  # noqa: E402
import draw_wiring  # noqa: E402
import hwbonds  # noqa: E402
import hwparts  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def load():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def svg_text(svg):
    return " ".join(t.text or "" for t in ET.fromstring(svg).iter(SVG + "text"))


def missing_from(text, refs):
    found = set(re.findall(r"[A-Z]+\d+(?:\.\d+)?", text))
    spans = re.findall(r"\b([A-Z]+)(\d+)[–-]\1?(\d+)\b", text)
    for prefix, a, z in spans:
        found |= {"%s%d" % (prefix, k) for k in range(int(a), int(z) + 1)}
    return [r for r in refs if r not in found]


def test_wiring_svg_names_every_part_wire_bond_and_the_mains_circuit():
    board = load()
    with open(os.path.join(HW, "wiring.svg"), encoding="utf-8") as f:
        svg = f.read()
    assert svg == draw_wiring.draw(board)  # generated from board.json, nothing hand-edited
    text = svg_text(svg)
    refs = draw_parts.drawing_refs(board)
    assert {"S3", "TB2", "RL1", "C10", "C18", "J10", "W0", "W12", "X9", "CB8"} <= set(refs)
    assert missing_from(text, refs) == []
    assert "MAINS CIRCUIT" in text and "PROTECTIVE-EARTH BONDS" in text
    for part, term, _, lead in hwbonds.BONDS:
        assert "%s (%s)" % (part, term) in text and lead in text, part


def test_a_part_missing_from_the_drawing_is_caught():
    board = load()
    text = svg_text(draw_wiring.draw(board))
    refs = draw_parts.drawing_refs(board)
    assert missing_from(text.replace("TB2", "TB?"), refs) == ["TB2"]  # revision B drew no TB2
    assert missing_from(text.replace("X9:", "X?:"), refs) == ["X9"]
    rows = hwparts.parts_rows(board) + [("U99", 1, "a part bought but never drawn", "TI SN74AHCT125N")]
    assert "U99" in hwparts._covered(rows) and missing_from(text, sorted(hwparts._covered(rows))) == ["U99"]
