# Revision C: the latch-off eFuse is checked for what it must do. It latches
# (the part's own facts say so), and no healthy feed latches on its own load:
# a string mated live charges before the minimum fault deglitch, and a rail
# dip pushes less than the minimum reverse threshold back through any switch.
# Each check is shown failing on a deliberately broken copy of the data.

import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import hwlatch  # noqa: E402
import hwparts  # noqa: E402
import partfacts  # noqa: E402


def load():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def test_the_efuse_is_the_latch_off_part_and_the_bom_buys_it():
    assert partfacts.EFUSE["behaviour"] == "latch-off" and partfacts.EFUSE["mpn"] == "TPS2552DBVR-1"
    assert partfacts.EFUSE["deglitch_ms"] == (5.0, 7.5, 10.0)  # SLVS841, FAULT deglitch min / typ / max
    line = [r for r in hwparts.parts_rows(load()) if r[0] == "EF1–EF4"]
    assert len(line) == 1 and line[0][3] == partfacts.EFUSE["mpn"]
    assert hwlatch.latch_problems(load()) == []


def test_an_auto_retry_part_is_refused_by_its_facts():
    problems = hwlatch.latch_problems(load(), partfacts.EFUSE_AUTO_RETRY)
    assert problems == [
        "TPS2552 (TPS2552DBVR) is auto-retry, not latch-off: a shorted string would cycle on and off, "
        "its FAULT flag only pulsing"
    ]


def test_a_hot_mated_string_charges_before_the_deglitch():
    board = load()
    # By hand, F2 (13 pixels, 0.9 A trip, IOS min 0.8247 A): 330 µF × 1.2 + 1 µF + 13 × 0.1 µF = 398.3 µF,
    # its lamps at the cap draw 13 × 60 × 96/255 = 293.6 mA, 5.5 V × 398.3 µF / 0.531 A = 4.13 ms < 5 ms.
    assert hwlatch.output_uf(board, 1) == pytest.approx(398.3)
    assert hwlatch.hot_mate_ms(board, 1) == pytest.approx(5.5 * 398.3e-6 / (0.8247 - 13 * 60 * 96 / 255e3) * 1e3)
    assert hwlatch.hot_mate_ms(board, 1) < partfacts.EFUSE["deglitch_ms"][0]


def test_revision_bs_1000_uf_string_capacitor_latches_a_healthy_feed():
    board = load()
    board["parts"]["bulk_cap_uf"] = 1000
    problems = hwlatch.latch_problems(board)
    assert any(p.startswith("EF2 latches a healthy string mated live") and "12.5 ms" in p for p in problems)
    assert {p.split()[0] for p in problems if "mated live" in p} == {"EF1", "EF2", "EF3"}


def test_a_feed_whose_limit_cannot_carry_its_lamps_is_refused():
    board = load()
    board["strip"]["max_brightness"] = 255  # lamps at full white while it charges: F1 draws 1.02 A, IOS min 1.106 A
    assert any(p.startswith("EF1 latches a healthy string mated live") for p in hwlatch.latch_problems(board))
    board["power"]["feed_trip_a"] = [0.9, 0.9, 1.2]  # F1 at full white (1.02 A) above IOS min 0.8247 A
    assert "EF1: its smallest current limit cannot carry its string lit at the cap" in hwlatch.latch_problems(board)


def test_a_rail_dip_without_the_reservoir_latches_every_feed():
    board = load()
    # With the reservoir (4 × 1000 µF − 20 %): F1's share of the others' 0.99 + 1.30 + 0.34 A is
    # 398.7 / (398.7 + 3204) = 11 %, 0.29 A × 0.135 Ω = 39 mV < 95 mV.
    assert hwlatch.reverse_v(board, 0) == pytest.approx(0.0393, abs=5e-4)
    board["power"]["reservoir_count"] = 0
    problems = hwlatch.latch_problems(board)
    assert {p.split()[0] for p in problems if "latches in a rail dip" in p} == {"EF1", "EF2", "EF3", "EF4"}


def test_a_reverse_voltage_latches_in_the_check_however_briefly_it_lasts():
    # The part turns its switch off only after the reverse voltage has lasted 3 ms (SLVS841F,
    # 3 / 5 / 7 ms): the rail-dip check takes no credit for that time, so a part that waited
    # far longer still fails a board without its reservoir, and the healthy board passes.
    board = load()
    board["power"]["reservoir_count"] = 0
    patient = dict(partfacts.EFUSE, reverse_off_ms=(1000.0, 1000.0, 1000.0))
    assert hwlatch.latch_problems(board, patient) == hwlatch.latch_problems(board)
    assert any("latches in a rail dip" in p for p in hwlatch.latch_problems(board, patient))
    assert hwlatch.latch_problems(load(), patient) == []


def test_the_bom_states_the_latch_check_and_that_strings_may_be_mated_live():
    with open(os.path.join(HW, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    assert "Check: no feed latches on its own load." in bom
    assert "Strings **may be mated live**." in bom
    assert "also latches when OUT stays 95 / 135 / 190 mV above IN for 3 / 5 / 7 ms" in bom
    assert "| C18–C21 | 4 | 1000 µF electrolytic 16 V, low ESR, rail reservoir" in bom
    with open(os.path.join(HW, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert "Strings may be mated live" in readme
