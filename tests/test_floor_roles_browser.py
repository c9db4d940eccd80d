"""The pit page offers each person only what they may do, in headless Chromium
on a whole floor (tests/pit_floor.py: mosquitto, virtual boards keyed live,
their gateways, the recorder and `python -m host_tools floor page`).

T1 is keyed to its shooter's 6th point (the 4th: floor supervisor and
surveillance; the 5th: shift manager; the 6th: surveillance's HOLD), then
both boards lose their power and come back (each table offline, each board
restored: the floor supervisor's). The same alerts are then seen by a floor
supervisor, surveillance, a shift manager and a technician, each checked for
the buttons they get; the floor supervisor acknowledges the restart's alerts
together with one note; surveillance's button is gone once she has
acknowledged. Screenshots: roles-*.png (docs/floor.md)."""

import pytest
from browser import chrome, missing, shot, wait_for
from pit_floor import FIFTH_AND_SIXTH, TO_FOURTH_POINT, PitFloor
from test_floor_browser import ARRIVES_S, log_in, press, selector, text

from bench.floor.localfloor import have_mosquitto, shared_template

pytestmark = [
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
    pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"),
]
TABLES = ("T1", "T2")
NOTE = "power cut on the pit; both boards back"
ACK, PAY = "Acknowledge", "Verified — pay"
ACTIONS = {  # (table, kind) -> the button each role gets on it, None: no button
    "bob": {("T1", "fire_4"): ACK, ("T1", "fire_5"): None, ("T1", "fire_6"): None, "offline": ACK, "restart": ACK},
    "ann": {("T1", "fire_4"): ACK, ("T1", "fire_5"): None, ("T1", "fire_6"): PAY, "offline": None, "restart": None},
    "sam": {("T1", "fire_4"): None, ("T1", "fire_5"): ACK, ("T1", "fire_6"): None, "offline": None, "restart": None},
    "tom": {("T1", "fire_4"): None, ("T1", "fire_5"): None, ("T1", "fire_6"): None, "offline": None, "restart": None},
}
TITLES = {"bob": "floor supervisor", "ann": "surveillance", "sam": "shift manager", "tom": "technician"}


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    # Escalation (which would let a shift manager stand in) kept out of the way of this test.
    f = PitFloor(
        str(tmp_path_factory.mktemp("roles")),
        shared_template(tmp_path_factory),
        TABLES,
        idle=900,
        page_options=("--escalate-after", "3600"),
    )
    yield f
    f.stop()


@pytest.fixture(scope="module")
def driver():
    d = chrome()
    yield d
    d.quit()


def shown(driver):
    """[(table, kind, button label or None)] of the alerts on the page now, and
    the related group's count (0 without one); None while a live update replaces them."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        found = []
        for box in driver.find_elements(By.CSS_SELECTOR, ".alerts section[data-kind]"):
            table = box.find_element(By.TAG_NAME, "h2").text.split()[0]
            buttons = box.find_elements(By.CSS_SELECTOR, "form.ack button")
            found.append((table, box.get_attribute("data-kind"), buttons[0].text if buttons else None))
        groups = driver.find_elements(By.CSS_SELECTOR, ".alerts section.related")
        return found, int(groups[0].get_attribute("data-count")) if groups else 0
    except WebDriverException:
        return None


def everything_raised(driver):
    """The page once it shows T1's three Fire Bet alerts and, for each table, an offline and a restored board."""
    now = shown(driver)
    if now is None:
        return None
    kinds = {(t, k) for t, k, _ in now[0]}
    want = {("T1", "fire_4"), ("T1", "fire_5"), ("T1", "fire_6")}
    want |= {(t, k) for t in TABLES for k in ("offline", "restart")}
    return now if want <= kinds else None


def alert_text(driver, css):
    """The text of the alert `css` selects, or None while a live update replaces it."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        return driver.find_element(By.CSS_SELECTOR, css).text
    except WebDriverException:
        return None


def log_out(driver):
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, "form.who button").click()
    assert wait_for(lambda: "/login" in driver.current_url)


def test_each_role_sees_only_the_actions_it_may_take_and_a_restart_is_acknowledged_at_once(floor, driver):
    from selenium.webdriver.common.by import By

    f = floor
    f.roll("T1", TO_FOURTH_POINT + " " + FIFTH_AND_SIXTH)  # the 4th, 5th and 6th points
    for t in TABLES:  # both boards lose their power, then come back
        f.rig.kill_board(t)
    for t in TABLES:
        f.rig.start_board(t)

    for name in ("bob", "ann", "sam", "tom"):
        log_in(driver, f.url, name)
        who = "%s — %s" % (name, TITLES[name])
        assert wait_for(lambda: who in text(driver))  # noqa: B023  (called here, in this iteration)
        now = wait_for(lambda: everything_raised(driver), timeout=ARRIVES_S)
        assert now is not None, text(driver)
        alerts, group = now
        for table, kind, button in alerts:
            want = ACTIONS[name].get((table, kind), ACTIONS[name].get(kind, "unexpected"))
            assert button == want, (name, table, kind, button)
        health = [a for a in alerts if a[1] in ("offline", "restart")]
        assert group == (len(health) if name == "bob" else 0), (name, group, health)
        shot(driver, "roles-%s" % name)
        log_out(driver)

    # The floor supervisor acknowledges the restart's alerts together, one note for all.
    log_in(driver, f.url, "bob")
    now = wait_for(lambda: everything_raised(driver), timeout=ARRIVES_S)
    assert now is not None and now[1] >= 2 * len(TABLES), now  # the related group's count
    related = ".alerts section.related"
    press(driver, "related", NOTE, lambda box: shot(driver, "roles-restart-flood"), css=related)

    def health_left():
        now = shown(driver)
        return now is not None and not [a for a in now[0] if a[1] in ("offline", "restart")] and now[1] == 0

    assert wait_for(health_left, timeout=ARRIVES_S), text(driver)
    shot(driver, "roles-restart-acknowledged")
    for t in TABLES:
        driver.get(f.url + "/table/" + t)
        acks = driver.find_element(By.CSS_SELECTOR, "table#acks").text
        assert acks.count("bob (floor supervisor) acknowledged at ") >= 2 and NOTE in acks, acks
    driver.get(f.url + "/")
    log_out(driver)

    # Surveillance acknowledges the 4th point: her button is gone, the alert waits for the floor supervisor.
    log_in(driver, f.url, "ann")
    assert wait_for(lambda: everything_raised(driver) or shown(driver), timeout=ARRIVES_S)
    press(driver, "fire_4", table="T1")

    def hers_done():
        now = shown(driver)
        return now is not None and ("T1", "fire_4", None) in now[0]

    assert wait_for(hers_done, timeout=ARRIVES_S), text(driver)
    fourth = wait_for(lambda: alert_text(driver, selector("fire_4", "T1")))
    assert "ann (surveillance) acknowledged at " in fourth and "waiting for the floor supervisor" in fourth
    shot(driver, "roles-surveillance-after-her-acknowledgement")
