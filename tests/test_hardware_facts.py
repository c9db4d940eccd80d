# Part facts the checks use are either confirmed from the maker's published
# data (partfacts.py cites the document and revision) or listed under "To
# confirm before ordering" in BOM.md, with the document to check them against,
# and every BOM line they concern says so. Nothing unconfirmed is passed off
# as the maker's figure.

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import hwparts  # noqa: E402
import partfacts  # noqa: E402


def load():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def parts_table():
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    return bom[bom.index("BEGIN GENERATED parts") : bom.index("END GENERATED parts")]


def test_the_efuse_facts_confirmed_from_slvs841_are_the_ones_the_checks_use():
    e = partfacts.EFUSE
    assert e["behaviour"] == "latch-off" and e["mpn"] == "TPS2552DBVR-1"
    assert e["trip_range_a"] == (0.075, 1.7) and e["continuous_a"] == 1.5
    # SLVS841F, 7.5 Electrical Characteristics: FAULT deglitch (overcurrent), reverse-voltage
    # comparator trip point, time from reverse-voltage condition to MOSFET turn-off (VIN = 5 V),
    # FAULT deglitch (reverse voltage), rDS(on) of the DBV package over -40-125 °C.
    assert e["deglitch_ms"] == (5.0, 7.5, 10.0)
    assert e["reverse_trip_v"] == (0.095, 0.135, 0.190)
    assert e["reverse_off_ms"] == (3.0, 5.0, 7.0)
    assert e["reverse_fault_ms"] == (2.0, 4.0, 6.0)
    assert e["rds_on_max_ohm"] == 0.135
    # Table "Common RILIM Resistor Selections": 1 % RILIM and IOS min / max, its tolerance included.
    assert partfacts.EFUSE_RILIM == {
        0.3: (88.7, 0.2621, 0.3423),
        0.9: (28.7, 0.8247, 0.9887),
        1.2: (21.5, 1.1060, 1.2971),
    }
    # Confirmed, so no longer on the list to confirm, and the BOM cites the revision read.
    assert not [p for p, _, _ in partfacts.TO_CONFIRM if "TPS2552" in p or "EF1" in p]
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    assert "Figures from TI SLVS841F, 7.5 Electrical Characteristics (DBV package)." in bom


def test_every_fact_to_confirm_concerns_a_bought_part_and_its_line_says_so():
    rows = hwparts.parts_rows(load())
    assert hwparts.confirm_problems(rows) == []
    table = parts_table()
    refs = {"U7", "E5", "ET1", "ET2", "CB7", "CB8"}
    marked = {
        line.split("|")[1].strip() for line in table.splitlines() if "(to confirm before ordering: below)" in line
    }
    assert marked == refs
    for part, _, source in partfacts.TO_CONFIRM:
        assert part in table and source in table, part


def test_a_fact_to_confirm_about_a_part_not_bought_is_caught():
    rows = hwparts.parts_rows(load())
    stray = partfacts.TO_CONFIRM + (("TI TPS7A02 (U99)", "25 nA quiescent current", "TI datasheet"),)
    assert hwparts.confirm_problems(rows, stray) == ["to-confirm entry 'TI TPS7A02 (U99)' names no part the BOM buys"]
    nameless = (("some cable", "its capacitance", "its datasheet"),)
    assert hwparts.confirm_problems(rows, nameless) == ["to-confirm entry 'some cable' names no part the BOM buys"]
