"""A restart of the floor floods the floor supervisor: every table goes offline
and its board comes back with a `restart` record. The page groups such alerts
of one event, and the floor supervisor acknowledges them together with one
note, each acknowledgement still published on his own connection and recorded
per alert. Nobody else is offered the group; a finding that may be tampering
(a chain broken) is never in it. A real mosquitto, the floor's recorder and
the page's service (tests/floor_harness.py)."""

import re
import time

import paho.mqtt.client as mqtt
import pytest
from floor_harness import Floor
from floor_journal import Journal
from test_floor_page import client_for, log_in, token

from bench.floor import localfloor
from host_tools.floor.base import floordir, topics
from host_tools.floor.page.sessions import Sessions

pytestmark = pytest.mark.skipif(
    not localfloor.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)
TABLES = ("T1", "T2", "T3")
NOTE = "floor restarted by the technician at 03:10; all tables back"


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    f = Floor(tmp_path_factory.mktemp("floor"), tables=TABLES)
    yield f
    f.close()


@pytest.fixture
def sessions(floor):
    s = Sessions(floor.clock, idle=600.0, lifetime=3600.0)
    yield s
    s.close_all()


def open_of(view, *kinds):
    return sorted((a for a in view.book.alerts.values() if a.open and a.kind in kinds), key=lambda a: a.id)


def recorder_finding(floor, table, kind, text, ref):
    """An alert as the recorder publishes it (its own account: only it may write there)."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="recorder-finding")
    c.username_pw_set("recorder", floordir.password(floor.dir, "recorder"))
    c.connect("127.0.0.1", floor.floor["port"])
    c.loop_start()
    body = {"kind": kind, "table": table, "text": text, "id": ref, "at": floor.clock()}
    c.publish(topics.floor_root("main") + "/alert/%d" % ref, topics.encode(body), qos=1, retain=True).wait_for_publish(
        5
    )
    c.disconnect()
    c.loop_stop()


def section(page, alert_id):
    start = page.index('id="alert-%s"' % alert_id)
    return page[start : page.index("</section>", start)]


def test_a_floor_restart_is_acknowledged_together_by_the_floor_supervisor_and_recorded_per_alert(floor, sessions):
    floor.clock.now = time.time()  # the records' times are the recorder's: one clock for both
    for t in TABLES:
        floor.presence(t, "online")
    assert floor.wait(lambda v: all(v.tiles[t]["online"] for t in TABLES))
    # The floor stops: each gateway says offline; it comes back, each board with its restart record.
    for t in TABLES:
        floor.presence(t, "offline")
    for t in TABLES:
        j = Journal()
        j.roll(2, 2)
        j.add("restart", 1)
        floor.publish(t, j)
        floor.presence(t, "online")
    recorder_finding(floor, "T3", "chain broken", "record 9 does not follow record 8", 9001)
    # (The recorder's own verdict, from heartbeats this harness does not send, may add an offline of its own.)
    assert floor.wait(
        lambda v: len(open_of(v, "restart")) == 3 and len(open_of(v, "offline")) >= 3 and open_of(v, "chain_broken")
    )
    flood = [a.id for a in sorted(open_of(floor.view, "offline", "restart"), key=lambda a: (a.raised_at, a.id))]
    (broken,) = open_of(floor.view, "chain_broken")

    ann = client_for(floor, sessions)  # surveillance: not hers to acknowledge
    log_in(ann, "ann")
    page = ann.get("/").text
    assert 'action="/ack-all"' not in page
    assert all('action="/ack"' not in section(page, i) for i in flood + [broken.id])
    forged = ann.post("/ack-all", data={"alerts": " ".join(flood), "note": "mine", "csrf": token(page)})
    assert forged.status_code == 403 and "Refused, nothing acknowledged: " in forged.text
    assert "is for the floor supervisor, not the surveillance" in forged.text
    attempt = floor.view.book.audit[-1]
    assert (attempt["action"], attempt["user"], attempt["alert"]) == ("refused", "ann", flood[0])
    assert all(floor.view.book.alerts[i].acks == [] for i in flood)

    bob = client_for(floor, sessions)
    log_in(bob, "bob")
    page = bob.get("/").text
    group = re.search(r'<section class="related"[^>]*data-count="(\d+)">.*?</section>', page, re.S)
    n = len(flood)
    assert group is not None and group.group(1) == str(n) and "Acknowledge all %d" % n in group.group(0)
    assert "table offline: T1, T2, T3" in group.group(0)
    assert "board restored after a restart or power cut: T1, T2, T3" in group.group(0)
    named = re.search(r'name="alerts" value="([^"]+)"', group.group(0)).group(1).split()
    assert sorted(named) == sorted(flood) and broken.id not in named  # tampering is looked at one by one
    assert 'action="/ack"' in section(page, broken.id)  # but he may acknowledge it on its own

    done = bob.post("/ack-all", data={"alerts": " ".join(named), "note": NOTE, "csrf": token(page)})
    assert done.status_code == 200 and "Refused" not in done.text  # redirected to the floor
    assert floor.wait(lambda v: all(not v.book.alerts[i].open for i in flood))
    for i in flood:
        (ack,) = floor.view.book.alerts[i].acks
        assert (ack["user"], ack["role"], ack["for_role"], ack["note"]) == ("bob", "supervisor", "supervisor", NOTE)
    logged = [e for e in floor.view.book.audit if e["action"] == "acknowledged" and e["alert"] in flood]
    assert sorted(e["alert"] for e in logged) == sorted(flood)  # one record per alert
    assert broken.open
    page = bob.get("/").text
    assert 'class="related"' not in page
    history = bob.get("/table/T2").text
    acks = history[history.index("id=acks") : history.index("id=board")]
    on_t2 = len([i for i in flood if i.startswith("T2-")])  # its offline(s) and its restart
    assert on_t2 >= 2 and acks.count("bob (floor supervisor) acknowledged at ") == acks.count(NOTE) == on_t2
