"""The shift manager acknowledges a progressive hit's PENDING in headless Chromium
(selenium, Debian's chromium and chromedriver): a real mosquitto, the
controller's process, `python -m host_tools floor page`; the hit appears
without a reload, her acknowledgement reaches the controller, whose meter
opens again. The screenshot goes to build/floor_screens/ (docs/progressive.md
shows a copy)."""

import json

import pytest
from browser import PageProcess, chrome, missing, shot, wait_for
from progressive_floor import PEOPLE, Floor

from bench.floor import localfloor
from bench.floor.page_drive import log_in
from host_tools.floor.base import topics
from host_tools.floor.bus import broker
from host_tools.floor.progressive import messages

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
    pytest.mark.skipif(not localfloor.have_mosquitto(), reason="mosquitto is not installed"),
]


def test_pending_acknowledged_by_the_shift_manager_in_a_browser(tmp_path):
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    floor = Floor(tmp_path / "floor", tables=("T1", "T2"))
    page = driver = None
    try:
        floor.start_controller()  # online: the hit published below reaches it (no recorder to catch up from)
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
        page = PageProcess(floor.dir, broker.free_port())
        driver = chrome()
        log_in(driver, page.url, "sam", PEOPLE["sam"][1])
        assert wait_for(lambda: "Sign out" in driver.page_source or "sam" in driver.page_source)
        floor.send("T2", messages.PROG_WAGER, 3)
        floor.send("T2", messages.PROG_HIT, 1)
        box = '.alerts section[data-kind="progressive_pending"][id="alert-prog-MEA-1"]'
        # a bound, not a wait: the page shows it as soon as the controller has taken the hit
        assert wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, box), timeout=60), "no PENDING without a reload"
        for _ in range(5):  # a live update may replace the alert between finding and using it
            assert wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, box), timeout=10)
            try:
                shown = driver.find_element(By.CSS_SELECTOR, box)
                text = shown.text
                assert "progressive PENDING" in text
                assert "MEA hit 1 at T2: 1 winning wager paid $1,000.30 from a meter of $1,000.30" in text
                shot(driver, "6-progressive-pending")
                shown.find_element(By.NAME, "note").send_keys("paid $1,000.30 at T2, position 4")
                shown.find_element(By.CSS_SELECTOR, "button").click()
                break
            except (StaleElementReferenceException, NoSuchElementException):
                continue
        assert floor.wait(lambda: floor.meters["MEA"]["state"] == "open" and floor.meters["MEA"]["pending"] == [])
        assert wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, box), timeout=10)
        assert "prog-MEA-1 acknowledged by sam" in floor.controller_log()
        got = [json.loads(p) for t, p in floor.seen if t == topics.meter("main", "MEA")]
        assert got[-1]["last_hit"]["pays"] == [100_030]
    finally:
        if driver is not None:
            driver.quit()
        if page is not None:
            page.stop()
        floor.close()
