# Revision C: one supply for the DevKitC. Its micro-USB port, 5V pin and 3V3 pin
# are mutually exclusive power inputs (Espressif's DevKitC guide); the board feeds
# the 5V pin, the isolator U7 drives VBUS on its device-side port, so W6's VBUS
# is cut, and whatever U7 takes from the rail is on EF4's budget. Every document
# says the same about D1.

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

import hwmodel  # noqa: E402
import hwparts  # noqa: E402
import hwprotect  # noqa: E402
import hwsupply  # noqa: E402
import partfacts  # noqa: E402


def load():
    with open(os.path.join(HW, "board.json"), encoding="utf-8") as f:
        return json.load(f)


def read(name):
    with open(os.path.join(HW, name), encoding="utf-8") as f:
        return f.read()


def test_the_devkitc_has_one_supply():
    board = load()
    assert hwsupply.devkit_supplies(board) == ["5V pin: rail -> EF4 -> D1"]
    assert hwsupply.supply_problems(board) == []
    iso = partfacts.USB_ISOLATOR
    assert iso["drives_device_vbus"] and iso["rail_ma"] == 0 and iso["mpn"] == "Adafruit 2107"


def test_a_w6_that_carries_vbus_gives_the_devkitc_two_supplies():
    board = load()
    board["power"]["devkit_vbus_cut"] = False
    (problem,) = hwsupply.supply_problems(board)
    assert problem.startswith("the DevKitC has 2 supplies") and "U7's device-side port" in problem
    # An isolator that drove no VBUS would need no cut.
    quiet = dict(partfacts.USB_ISOLATOR, drives_device_vbus=False)
    assert hwsupply.supply_problems(board, quiet) == []


def test_an_isolator_powered_from_the_rail_is_on_ef4s_budget():
    board = load()
    ctrl = hwmodel.budget(board)["branches"][-1]
    assert ctrl[0] == "EF4" and ctrl[4] == 251  # DevKitC 250 mA + U1 1 mA + U7 0 mA
    # A device side fed from the rail (30 mA) puts EF4's worst case at 0.281 A, above its
    # 0.2621 A minimum trip (TPS2552-1 Table 1, RILIM 88.7 kΩ): the check refuses it.
    railfed = dict(partfacts.USB_ISOLATOR, rail_ma=30)
    problems = hwprotect.budget_problems(hwmodel.budget(board, railfed))
    assert any(p.startswith("EF4 eFuse 0.3 A") and "not above its worst case 0.28 A" in p for p in problems)


def test_every_document_says_the_same_about_d1():
    role = hwsupply.D1_ROLE
    rows = {r[0]: r for r in hwparts.parts_rows(load())}
    assert role in rows["D1"][2] and "VBUS core cut" in rows["W6"][2]
    for name in ("BOM.md", "pinout.md", "README.md"):
        text = " ".join(read(name).split())  # Markdown wraps lines
        assert role in text, name
        assert "blocks current between the rail and a laptop" not in text, name
        assert "blocks back-feed into the supply when USB is plugged in" not in text, name
    assert "Olimex" not in read("BOM.md") and "ADuM4160 class" not in read("README.md")


# --- safety test before first power ---------------------------------------------

import hwbonds  # noqa: E402


def _section(text, title):
    i = text.index(title)
    j = text.index("\n## ", i + 1)
    return " ".join(text[i:j].split())


def test_the_safety_test_meters_every_bond_with_its_limits_before_first_power():
    readme = read("README.md")
    assert readme.index("## Safety test before first power") < readme.index("## First power-on")
    test = _section(readme, "## Safety test before first power")
    assert hwbonds.safety_test_problems(test) == []
    assert hwbonds.service_problems(_section(readme, "## Periodic service")) == []
    assert len(hwbonds.bonding_leads()) == 8 and len(hwbonds.BONDS) == 11


def test_a_safety_test_that_skips_a_bond_or_a_limit_is_caught():
    test = _section(read("README.md"), "## Safety test before first power")
    assert hwbonds.safety_test_problems(test.replace("S4 keyswitch body", "the keyswitch")) == [
        "the safety test does not meter S4 keyswitch body"
    ]
    assert hwbonds.safety_test_problems(test.replace("500 V DC", "250 V DC")) == [
        "the safety test does not state '500 V DC'"
    ]


def test_a_service_list_without_the_safety_test_or_a_limit_is_caught():
    service = _section(read("README.md"), "## Periodic service")
    assert hwbonds.service_problems(service.replace("every bonded part", "the lid")) == [
        "the service list does not state 'every bonded part'"
    ]
    assert hwbonds.service_problems(service.replace("at least 1 MΩ", "a high reading")) == [
        "the service list does not state 'at least 1 MΩ'"
    ]
