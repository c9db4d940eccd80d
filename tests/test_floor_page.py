"""The pit page's HTTP side (host_tools/floor/page) against a real mosquitto:
logins, sessions that expire, forms that must be the page's own, alerts
acknowledged through each person's own broker connection, history and CSV.
(The browser itself: tests/test_floor_browser.py.)"""

import re
import time
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that httpx2 will replace httpx
    from starlette.testclient import TestClient

from floor_harness import PEOPLE, Floor
from floor_journal import POINTS_IN_ORDER, Journal

from bench.floor import localfloor
from host_tools.floor.page.app import make_app
from host_tools.floor.page.sessions import Sessions

pytestmark = pytest.mark.skipif(
    not localfloor.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def the_floor(tmp_path_factory):
    # One broker and one set of people (Argon2id hashing is deliberately slow)
    # for the module; each test has a page service of its own.
    f = Floor(tmp_path_factory.mktemp("floor"), tables=("T1", "T2", "T3"))
    yield f
    f.close()


@pytest.fixture
def floor(the_floor):
    the_floor.fresh_view()
    return the_floor


@pytest.fixture
def sessions(floor):
    s = Sessions(floor.clock, idle=600.0, lifetime=3600.0)
    yield s
    s.close_all()


def client_for(floor, sessions):
    return TestClient(make_app(floor.view, floor.floor, floor.dir, sessions), base_url="http://pit.test")


def token(html):
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def log_in(client, name, password=None):
    form = client.get("/login")
    password = PEOPLE[name][1] if password is None else password
    return client.post(
        "/login", data={"user": name, "password": password, "csrf": token(form.text)}, follow_redirects=False
    )


def fourth_point(floor, table="T1"):
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    floor.publish(table, j)
    assert floor.wait(lambda v: mine(v, table, "fire_4"))
    (alert,) = mine(floor.view, table, "fire_4")
    return alert


def mine(view, table, kind):
    return [a for a in view.book.alerts.values() if a.table == table and a.kind == kind]


def test_login_with_the_right_password_opens_the_floor_and_a_wrong_one_is_refused(floor, sessions):
    client = client_for(floor, sessions)
    assert client.get("/", follow_redirects=False).headers["location"] == "/login"
    bad = log_in(client, "ann", "not ann's password")
    assert bad.status_code == 401
    assert "Wrong name or password." in bad.text
    assert log_in(client, "nobody", "whatever at all").status_code == 401
    ok = log_in(client, "ann")
    assert (ok.status_code, ok.headers["location"]) == (303, "/")
    cookie = ok.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    page = client.get("/")
    assert page.status_code == 200
    assert "ann — surveillance" in page.text
    assert 'id="tile-T1"' in page.text and 'id="tile-T2"' in page.text
    assert "<svg" in page.text  # the lit board's picture in each tile
    assert page.headers["content-security-policy"].startswith("default-src 'self'")


def test_a_login_form_not_made_by_the_page_is_refused(floor, sessions):
    client = client_for(floor, sessions)
    client.get("/login")
    forged = client.post(
        "/login", data={"user": "ann", "password": PEOPLE["ann"][1], "csrf": "made-up"}, follow_redirects=False
    )
    assert forged.status_code == 403
    assert sessions._by_id == {}


def test_the_4th_point_alert_acknowledged_by_surveillance_shows_in_history_with_her_name(floor, sessions):
    client = client_for(floor, sessions)
    log_in(client, "ann")
    alert = fourth_point(floor)
    page = client.get("/").text
    assert 'id="alert-%s"' % alert.id in page
    assert (
        "4th Fire Bet point" in page
        and "waiting for the <strong>floor supervisor and the surveillance</strong>" in page
    )
    done = client.post(
        "/ack", data={"alert": alert.id, "note": "cameras 4 and 5", "csrf": token(page)}, follow_redirects=False
    )
    assert done.status_code == 303
    # Through ann's own broker connection on ack/surveillance/ann, back to the page's book.
    assert floor.wait(lambda v: alert.acks)
    assert alert.acks[0]["user"] == "ann" and alert.acks[0]["role"] == "surveillance"
    history = client.get("/table/T1").text
    acks = history[history.index("id=acks") : history.index("id=board")]
    assert re.search(r"<td>ann \(surveillance\) acknowledged at [0-9T:+-]+: cameras 4 and 5</td>", acks), acks
    assert "<td>2-2</td>" in history  # the rolls, with their dice
    csv_text = client.get("/table/T1.csv").text
    assert csv_text.splitlines()[0] == "shooter,seq,time,time_from,die1,die2,total,point,fire_points,resolved"
    assert len(csv_text.splitlines()) == 1 + 8


def test_a_floor_supervisor_cannot_clear_a_hold_and_the_refusal_is_recorded(floor, sessions):
    client = client_for(floor, sessions)
    log_in(client, "bob")
    j = Journal()
    for d in POINTS_IN_ORDER:
        j.roll(*d)
    floor.publish("T2", j)
    assert floor.wait(lambda v: mine(v, "T2", "fire_6"))
    (hold,) = mine(floor.view, "T2", "fire_6")
    page = client.get("/").text
    refused = client.post("/ack", data={"alert": hold.id, "note": "pay", "csrf": token(page)})
    assert refused.status_code == 403
    assert "is for the surveillance, not the floor supervisor" in refused.text
    assert hold.open and hold.acks == []
    history = client.get("/table/T2").text
    # An attempt, kept apart from the acknowledgements.
    acks = history[history.index("id=acks") : history.index("id=board")]
    attempts = history[history.index("id=attempts") :]
    assert "bob" not in acks and "not the floor supervisor" not in acks
    assert "bob (floor supervisor) tried to acknowledge %s (HOLD: 6th Fire Bet point): refused, " % hold.id in attempts
    assert "not the floor supervisor" in attempts


def test_a_forged_ack_form_and_an_expired_session_are_refused(floor, sessions):
    client = client_for(floor, sessions)
    log_in(client, "ann")
    alert = fourth_point(floor)
    forged = client.post("/ack", data={"alert": alert.id, "note": "", "csrf": "guess"})
    assert forged.status_code == 403
    other_site = client.post(
        "/ack",
        data={"alert": alert.id, "note": "", "csrf": token(client.get("/").text)},
        headers={"origin": "http://evil.test"},
    )
    assert other_site.status_code == 403
    assert alert.acks == []
    floor.clock.now += 601.0  # idle longer than the session may
    expired = client.get("/", follow_redirects=False)
    assert (expired.status_code, expired.headers["location"]) == (303, "/login")
    assert client.get("/fragment").status_code == 401
    assert sessions._by_id == {}


def test_history_filters_refuse_a_malformed_date(floor, sessions):
    client = client_for(floor, sessions)
    log_in(client, "tom")
    fourth_point(floor)
    assert client.get("/table/T1?since=yesterday").status_code == 400
    assert client.get("/table/T9").status_code == 404
    none = client.get("/table/T1.csv?until=2000-01-01").text.splitlines()
    assert len(none) == 1
    page = client.get("/").text
    assert 'action="/ack"' not in page  # a technician reads and acknowledges nothing


def test_a_restarted_page_folds_the_same_alerts_from_the_recorder_and_keeps_who_acknowledged(floor, sessions):
    client = client_for(floor, sessions)
    log_in(client, "ann")
    alert = fourth_point(floor, "T2")
    client.post("/ack", data={"alert": alert.id, "note": "seen", "csrf": token(client.get("/").text)})
    assert floor.wait(lambda v: alert.acks)
    floor.fresh_view(keep_log=True)  # the page process restarted: same recorder, same page.sqlite
    assert floor.wait(lambda v: mine(v, "T2", "fire_4"))
    (again,) = mine(floor.view, "T2", "fire_4")
    assert again.id == alert.id
    assert [(a["user"], a["role"], a["note"]) for a in again.acks] == [("ann", "surveillance", "seen")]
    assert again.missing() == ["supervisor"]


def test_a_record_that_breaks_the_chain_is_a_chain_alert_never_a_point(floor, sessions):
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    forged = dict(j.records[-1], dice=[4, 4], arg=4 * 8 + 4)  # the 4th point's record rewritten, link kept
    floor.publish("T3", j, j.records[:-1] + [forged])
    assert floor.wait(lambda v: mine(v, "T3", "chain_broken"))
    (broken,) = mine(floor.view, "T3", "chain_broken")
    assert broken.missing() == ["supervisor"] and "T3" in broken.detail
    assert mine(floor.view, "T3", "fire_4") == []
    client = client_for(floor, sessions)
    log_in(client, "bob")
    client.post("/ack", data={"alert": broken.id, "note": "technician called", "csrf": token(client.get("/").text)})
    assert floor.wait(lambda v: not broken.open)
    floor.fresh_view(keep_log=True)  # restarted: the recorder's retained alert comes back with its acknowledgement
    assert floor.wait(lambda v: mine(v, "T3", "chain_broken"))
    (again,) = mine(floor.view, "T3", "chain_broken")
    assert (again.id, again.open, again.acks[0]["user"]) == (broken.id, False, "bob")


def test_a_hold_cleared_by_surveillance_goes_down_signed_with_the_boards_key(floor, sessions):
    from crapsboard.base.link_key import ROLE_FLOOR
    from crapsboard.link.link import CounterMemory
    from crapsboard.link.link_auth import Auth, AuthError
    from host_tools import keys
    from host_tools.floor.base import topics

    downlinks = floor.watch(topics.table("main", "T3", "downlink"))
    floor.state("T3", ctr=41)  # the board's last signed counter, as T3's gateway says it
    client = client_for(floor, sessions)
    log_in(client, "ann")
    j = Journal()
    for d in POINTS_IN_ORDER:
        j.roll(*d)
    floor.publish("T3", j)
    assert floor.wait(lambda v: mine(v, "T3", "fire_6"))
    (hold,) = mine(floor.view, "T3", "fire_6")
    client.post("/ack", data={"alert": hold.id, "note": "payoffs equal wagers", "csrf": token(client.get("/").text)})
    assert floor.wait(lambda v: not hold.open)
    end = time.monotonic() + 5
    while not downlinks and time.monotonic() < end:
        time.sleep(0.05)
    (topic, payload), *more = downlinks
    assert more == []
    body = topics.decode(payload)
    request = body["request"]
    assert {k: request[k] for k in ("cmd", "journal", "seq", "by", "alert")} == {
        "cmd": "verified",
        "journal": 1,
        "seq": 13,
        "by": "ann",
        "alert": hold.id,
    }
    # The board's own check (the firmware's link_auth) takes it under T3's key, once.
    assert request["ctr"] == 42  # one above the board's last: a board takes at most 1000 above it
    # under the floor's role key it derives from its link key (docs/link.md, "Keys")
    board = Auth(keys.read_key(floor.dir + "/keys/T3.key"), CounterMemory(41), ROLE_FLOOR)
    board.check(request)
    with pytest.raises(AuthError, match="replayed or old counter"):
        board.check(request)
    with pytest.raises(AuthError, match="bad tag"):  # another table's board
        Auth(keys.read_key(floor.dir + "/keys/T1.key"), CounterMemory(), ROLE_FLOOR).check(request)
    with pytest.raises(AuthError, match="bad tag"):
        Auth(keys.read_key(floor.dir + "/keys/T3.key"), CounterMemory(), ROLE_FLOOR).check(dict(request, seq=14))
    with pytest.raises(AuthError, match="bad tag"):  # the link key itself does not sign `verified`
        Auth(keys.read_key(floor.dir + "/keys/T3.key"), CounterMemory(41)).check(dict(request, ctr=43))
    # The board's answers, as T3's gateway publishes them in the table's state
    # (host_tools/floor/gateway/downlink.py): on the alert, the tile and the history.
    answer = {"cmd": "verified", "alert": hold.id, "seq": 13, "ctr": 42, "ok": False, "at": 1}
    refused = dict(answer, error="that hand has moved on: record 15, a roll, undo or hand end, came after it")
    floor.state("T3", ctr=42, downlinks=[refused])
    assert floor.wait(lambda v: hold.board == refused)
    tile = client.get("/").text
    tile = tile[tile.index('id="tile-T3"') :]
    assert "the board refused the clearance: that hand has moved on: record 15" in tile[: tile.index("</a>")]
    taken = dict(answer, ok=True, ctr=43, record=14)
    floor.state("T3", ctr=43, downlinks=[refused, taken])
    assert floor.wait(lambda v: hold.board == taken)
    assert hold.as_dict()["board"] == taken
    page = client.get("/").text
    tile = page[page.index('id="tile-T3"') :]
    assert "%s: cleared on the board, verified — pay lit (record 14)" % hold.id in tile[: tile.index("</a>")]
    history = client.get("/table/T3").text
    board = history[history.index("id=board") : history.index("id=rolls")]
    assert 'class="downlink ok"' in board and "(record 14)" in board
    replayed = dict(answer, ctr=43, error="replayed or old counter: last accepted is 43")
    floor.state("T3", ctr=43, downlinks=[refused, taken, replayed])
    assert floor.wait(lambda v: v.tiles["T3"]["state"]["downlinks"][-1] == replayed)
    assert hold.board == taken  # the board took it once: the replay refused does not undo that


def test_guessing_a_password_is_throttled_then_locks_the_account_until_a_shift_manager_unlocks_it(floor, sessions):
    from host_tools.floor.page import logins

    client = client_for(floor, sessions)
    statuses = []
    for i in range(3):  # the first failures are answered at once
        statuses.append(log_in(client, "tom", "guess %d" % i).status_code)
    assert statuses == [401, 401, 401]
    # From the third, the next try waits 1 s, then 2, 4, …: one during the wait is refused unread,
    # the right password included.
    early = log_in(client, "tom")
    assert early.status_code == 429 and "Too many failed logins: try again in 2 s." in early.text
    for _ in range(27):  # the audit's 30 wrong passwords, each after its delay
        floor.clock.now += logins.MAX_DELAY_S + 1
        statuses.append(log_in(client, "tom", "another guess").status_code)
    assert statuses[:10] == [401] * 10 and statuses[10:] == [429] * 20  # locked at the 10th failure in a row
    floor.clock.now += 3600
    locked = log_in(client, "tom")  # the right one, an hour later: still refused
    assert locked.status_code == 429
    assert "This account is locked after 10 failed logins: a shift manager must unlock it." in locked.text
    # Surveillance sees the alert; a shift manager lifts it.
    [alert] = [a for a in floor.view.snapshot()[1] if a["kind"] == "login_locked"]
    assert alert["required"] == ["shift_manager"] and alert["told"] == ["surveillance"]
    assert alert["detail"].startswith("tom: 10 failed logins in a row")
    audit = [e for e in floor.view.snapshot()[3] if e["action"] == "login_failed"]
    assert len(audit) == 32 and {e["user"] for e in audit} == {"tom"}
    assert sum(e["reason"] == "wrong name or password" for e in audit) == 10
    assert [e["action"] for e in floor.view.log.entries()].count("login_failed") == 32  # kept in page.sqlite
    ann = client_for(floor, sessions)
    assert log_in(ann, "ann").status_code == 303
    refused = ann.post("/ack", data={"alert": alert["id"], "note": "mine?", "csrf": token(ann.get("/").text)})
    assert refused.status_code in (200, 303, 403)
    assert floor.view.book.alerts[alert["id"]].open  # surveillance cannot lift it
    sam = client_for(floor, sessions)
    assert log_in(sam, "sam").status_code == 303
    sam.post("/ack", data={"alert": alert["id"], "note": "tom called", "csrf": token(sam.get("/").text)})
    assert floor.wait(lambda v: not v.book.alerts[alert["id"]].open)
    assert (log_in(client, "tom").status_code, floor.view.book.alerts[alert["id"]].acks[0]["user"]) == (303, "sam")


def test_a_page_restarted_keeps_the_lock(floor, sessions):
    client = client_for(floor, sessions)
    for _ in range(10):
        log_in(client, "bob", "a guess")
        floor.clock.now += 61
    floor.fresh_view(keep_log=True)
    again = client_for(floor, sessions)
    assert log_in(again, "bob").status_code == 429
    assert [a["detail"][:4] for a in floor.view.snapshot()[1] if a["kind"] == "login_locked"] == ["bob:"]


def test_the_session_cookie_is_secure_over_https(floor, sessions):
    app = make_app(floor.view, floor.floor, floor.dir, sessions, secure=True)
    client = TestClient(app, base_url="https://pit.test")
    ok = log_in(client, "ann")
    assert ok.status_code == 303 and "Secure" in ok.headers["set-cookie"]
    plain = log_in(client_for(floor, sessions), "ann")
    assert "Secure" not in plain.headers["set-cookie"]


def test_a_record_the_board_did_not_write_is_an_alert_for_supervisor_and_surveillance_never_a_point(floor, sessions):
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    forged = dict(j.records[-1], mac="00" * 8)  # the 4th point, published with the gateway's account, MAC made up
    floor.publish("T2", j, j.records[:-1] + [forged], journal_id=7)  # a journal of its own on the module's floor
    assert floor.wait(lambda v: mine(v, "T2", "forged_record"))
    (alert,) = mine(floor.view, "T2", "forged_record")
    assert alert.missing() == ["supervisor", "surveillance"]
    assert "a record T2's board did not write came from gateway-T2: record 9 of journal 7" in alert.detail
    sevens = lambda v: [a for a in mine(v, "T2", "fire_4") if a.journal and a.journal[-1] == 7]  # noqa: E731
    assert sevens(floor.view) == []  # stored nowhere, so no point
    floor.publish("T2", j, j.records[-1:], journal_id=7)  # the genuine record 9 after it: stored, the point's alert
    assert floor.wait(lambda v: sevens(v))


def test_after_a_board_erased_step_the_page_folds_the_new_journal_afresh(floor, sessions):
    import paho.mqtt.client as mqtt

    from host_tools.floor.base import erasure, floordir, floorkeys, topics

    old = Journal(journal_id=21)
    for d in POINTS_IN_ORDER[:8]:
        old.roll(*d)
    ours = lambda v: [a for a in mine(v, "T3", "fire_4") if a.journal and a.journal[1] == 21]  # noqa: E731
    floor.publish("T3", old, journal_id=21)
    assert floor.wait(lambda v: ours(v))
    step = erasure.sign(floorkeys.read(floor.dir, "T3", "journal"), "T3", "0b0a0d", "T. Tech", time.time())
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="technician-step")
    c.username_pw_set("floorctl", floordir.password(floor.dir, "floorctl"))
    c.connect("127.0.0.1", floor.floor["port"])
    c.loop_start()
    try:
        c.publish(topics.table("main", "T3", "erased"), topics.encode(step), qos=1).wait_for_publish(5)
    finally:
        c.disconnect()
        c.loop_stop()
    assert floor.wait(lambda v: mine(v, "T3", "board_erased"))
    (notice,) = mine(floor.view, "T3", "board_erased")
    assert notice.missing() == ["supervisor"] and "by technician T. Tech" in notice.detail
    assert "the old journal 21 received up to record 9" in notice.detail
    # The erased board's journal 21 again, another game: its 4th point is an alert of its own.
    new = Journal(journal_id=21)
    new.roll(3, 4)
    for d in POINTS_IN_ORDER[:8]:
        new.roll(*d)
    floor.publish("T3", new, journal_id=21)
    assert floor.wait(lambda v: len(ours(v)) == 2)
    first, second = sorted(ours(floor.view), key=lambda a: a.raised_at)
    assert (first.journal, second.journal) == (("0b0a0d", 21), ("0b0a0d", 21, 1))
    assert second.seq == 10 and second.id != first.id
    history = client_for(floor, sessions)
    log_in(history, "ann")
    csv_text = history.get("/table/T3.csv").text
    assert len(csv_text.splitlines()) == 1 + 9  # the new journal's rolls alone: the table's state afresh


def test_records_the_copy_could_not_give_are_folded_at_the_next_tick(floor, tmp_path):
    import os

    from host_tools.floor.page.recorded import RecordedCopy

    # The page reading before the recorder's file is there: the retained `recorded` says more
    # than the copy gives, and no later `recorded` comes once the hand is over.
    late = tmp_path / "recorder.sqlite"
    floor.view.copy = RecordedCopy(str(late))
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    floor.publish("T1", j)
    assert floor.wait(lambda v: v.behind.get("T1", {}).get("seq", 0) >= j.seq)
    floor.view.tick()
    assert mine(floor.view, "T1", "fire_4") == []  # still nothing to read
    with floor.view.lock:  # the broker's messages wait meanwhile: what changes here is the tick's
        version = floor.view.version
        os.symlink(os.path.join(floor.dir, "recorder.sqlite"), late)
        floor.view.tick()
        assert len(mine(floor.view, "T1", "fire_4")) == 1
        assert "T1" not in floor.view.behind and floor.view.version == version + 1
        floor.view.tick()  # all folded: nothing read again, nothing changed
        assert floor.view.version == version + 1
