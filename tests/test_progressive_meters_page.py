"""The meters on the pit page (docs/progressive.md, "On the pit page"): each tile shows the
meters its table plays, live (open, PENDING, closed and why); the meters panel (amount,
reserve, overflow, return per wager for 1, 2 and 3 winning wagers, break-even) is the shift
manager's and surveillance's only. The view by hand, then in headless Chromium with a real
mosquitto, the controller's process and `floor page`."""

import json

import pytest
from browser import PageProcess, chrome, missing, shot, wait_for
from progressive_floor import PEOPLE, Floor

from bench.floor import localfloor
from bench.floor.page_drive import log_in
from host_tools.floor.base import topics
from host_tools.floor.bus import broker
from host_tools.floor.page import render
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.progressive import messages

ROOT = topics.floor_root("main")


def meter(**over):
    m = {
        "v": 1,
        "game": "MEA",
        "amount": 3_779_094,
        "reserve": 12,
        "overflow": 250,
        "state": "open",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
        "paytable": "PT-BJS-MEA-01",
        "pay_rule": "shared",
        "hits_seen": 0,
        "winning_wagers_seen": 0,
        "pending": [],
        "tables": {"T1": "PT-BJS-MEA-01"},
        "closed_tables": {},
        "at": 1,
    }
    m.update(over)
    return json.dumps(m).encode()


def test_the_view_keeps_the_meters_and_bumps_only_when_what_is_shown_changes():
    view = FloorView("main", ["T1", "T2"], clock=lambda: 100.0)
    view.message(ROOT + "/progressive/presence", b"online")
    v0 = view.version
    view.message(topics.meter("main", "MEA"), meter())
    assert view.version == v0 + 1
    view.message(topics.meter("main", "MEA"), meter(at=3))  # the heartbeat: nothing shown changes
    assert view.version == v0 + 1
    (mea,) = view.progressive()
    assert (mea["game"], mea["state"], mea["amount"], mea["reserve"], mea["overflow"]) == (
        "MEA",
        "open",
        3_779_094,
        12,
        250,
    )
    # $37,790.94 on a $1 unit, MEA-01: 100.00% for one winning wager, 72.99% for 2, 63.99% for 3
    assert mea["per_wager"] == ["100.00%", "72.99%", "63.99%"] and mea["past_break_even"] is True
    view.message(ROOT + "/progressive/presence", b"offline")  # the controller gone: closed
    assert view.version == v0 + 2 and view.progressive()[0]["state"] == "closed"


def test_a_tile_says_each_meter_its_table_plays_and_why_it_is_closed():
    view = FloorView("main", ["T1", "T2"], clock=lambda: 100.0)
    view.message(ROOT + "/progressive/presence", b"online")
    why = "plays PT-BJS-MEA-05; the MEA meter is on PT-BJS-MEA-01"
    tables = {"T1": "PT-BJS-MEA-01", "T2": "PT-BJS-MEA-05"}
    view.message(topics.meter("main", "MEA"), meter(tables=tables, closed_tables={"T2": why}))
    tiles = {t["table"]: t for t in view.snapshot()[0]}
    meters = view.progressive()
    one = render.tile(tiles["T1"], meters)
    two = render.tile(tiles["T2"], meters)
    assert "Make &#x27;Em All Progressive <strong>$37,790.94</strong> open, shared by winning wagers" in one
    assert "Make &#x27;Em All Progressive <strong>closed</strong>: it %s" % why in two
    view.message(topics.meter("main", "MEA"), meter(state="pending", pending=[1]))
    assert "<strong>$37,790.94</strong> PENDING" in render.tile(tiles["T1"], view.progressive())


@pytest.mark.timeout(180)
@pytest.mark.skipif(missing() is not None, reason=str(missing()))
@pytest.mark.skipif(not localfloor.have_mosquitto(), reason="mosquitto is not installed")
def test_the_meters_on_the_pit_page_in_a_browser(tmp_path):
    from selenium.webdriver.common.by import By

    floor = Floor(tmp_path / "floor", tables=("T1", "T2"))
    page = driver = None
    try:
        floor.start_controller()
        assert floor.wait(lambda: floor.presence_words()[-1:] == ["online"])
        floor.send_config("T1", {"fired_up": "PT-BJS-FUP-05"})
        floor.send_config("T2", {"fired_up": "PT-BJS-FUP-03"})
        assert floor.wait(lambda: floor.meters.get("FUP", {}).get("closed_tables", {}).get("T2"))
        page = PageProcess(floor.dir, broker.free_port())
        driver = chrome()
        log_in(driver, page.url, "sam", PEOPLE["sam"][1])  # the shift manager: tiles and the panel

        def text(css):
            found = driver.find_elements(By.CSS_SELECTOR, css)
            try:
                return found[0].text if found else ""
            except Exception:  # replaced by a live update between finding and reading
                return ""

        assert wait_for(lambda: "$1,000.00" in text("#tile-T1 .meters"), timeout=20)
        assert wait_for(lambda: "Fired Up Progressive $5,000.00 open" in text("#tile-T1 .meters"), timeout=10)
        assert wait_for(
            lambda: "Fired Up Progressive closed: it plays PT-BJS-FUP-03" in text("#tile-T2 .meters"), timeout=10
        )
        assert wait_for(lambda: "reserve" in text("#meters"))
        floor.send("T1", messages.PROG_WAGER, 3)  # 30 cents to the meter, 6 to the reserve, without a reload
        assert wait_for(lambda: "$1,000.30" in text("#tile-T1 .meters"), timeout=20)
        assert wait_for(lambda: "$1,000.30" in text("#meters"), timeout=20)
        row = '#meters tr[data-game="MEA"]'
        words = ("$0.06", "shared by winning wagers", "below break-even")
        assert wait_for(lambda: all(w in text(row) for w in words), timeout=10), text(row)
        driver.execute_script("document.getElementById('meters').scrollIntoView()")
        shot(driver, "9-progressive-meters")
        floor.send("T1", messages.PROG_HIT, 1)
        assert wait_for(lambda: "PENDING" in text("#tile-T1 .meters"), timeout=20)
        driver.quit()

        driver = chrome()
        log_in(driver, page.url, "bob", PEOPLE["bob"][1])  # a floor supervisor: the public amounts only
        assert wait_for(lambda: "Make 'Em All Progressive" in text("#tile-T1 .meters"), timeout=20)
        assert driver.find_elements(By.CSS_SELECTOR, "#meters") == []
        assert "reserve" not in driver.page_source
    finally:
        if driver is not None:
            driver.quit()
        if page is not None:
            page.stop()
        floor.close()
