"""The shift manager acknowledges a progressive hit's PENDING on the pit page:
the controller's process on a real mosquitto holds the hit PENDING, the page
(its HTTP side, its service connection) shows it as an alert for the shift
manager with the controller's id, a floor supervisor's attempt is refused, and
the shift manager's acknowledgement goes out on her own connection to the
controller, whose meter opens again."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that httpx2 will replace httpx
    from starlette.testclient import TestClient

from floor_harness import Floor
from progressive_floor import PARAMS, ROOT
from test_floor_page import log_in, token

from bench.floor import localfloor
from bench.floor.progressive_feed import TableJournal
from host_tools.floor.base import floordir, topics
from host_tools.floor.page.app import make_app
from host_tools.floor.page.sessions import Sessions
from host_tools.floor.progressive import integrity, messages, params

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not localfloor.have_mosquitto(), reason="mosquitto is not installed"),
]


@pytest.fixture
def floor(tmp_path):
    f = Floor(tmp_path / "floor", tables=("T1", "T2"))
    floordir.write_json(params.params_path(f.dir), PARAMS)
    integrity.install(f.dir)  # the installation step: the controller's code recorded
    log = open(os.path.join(f.dir, "logs", "progressive.log"), "ab")
    presence = f.watch(messages.presence_topic("main"))
    f.controller = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", f.dir], cwd=ROOT, stdout=log, stderr=log
    )
    log.close()
    # it says "online" after its SUBSCRIBEs on the same connection: the broker has them
    assert f.wait(lambda v: (messages.presence_topic("main"), b"online") in presence, timeout=30)
    yield f
    f.controller.send_signal(signal.SIGTERM)
    f.controller.wait(15)
    f.close()


def send(floor, journal, kind, count):
    payload, _ = journal.record(kind, count, "MEA")
    floor.gateway(journal.table).publish(topics.table("main", journal.table, "event"), payload, qos=1).wait_for_publish(
        5
    )


def test_the_shift_manager_acknowledges_pending_on_the_page_and_the_meter_opens(floor):
    meters = floor.watch(topics.meter("main", "MEA"))
    t2 = TableJournal("T2")
    send(floor, t2, messages.PROG_WAGER, 2)
    send(floor, t2, messages.PROG_HIT, 2)
    assert floor.wait(lambda v: "prog-MEA-1" in v.book.alerts, timeout=20)
    alert = floor.view.book.alerts["prog-MEA-1"]
    assert (alert.kind, alert.table, alert.required, alert.hold) == (
        "progressive_pending",
        "T2",
        ("shift_manager",),
        False,
    )
    assert alert.detail == "MEA hit 1 at T2: 2 winning wagers paid $500.10, $500.10 from a meter of $1,000.20"

    # The controller's heartbeat (the meter again every 2 s) changes nothing: no push to the pages.
    # Bounded by the heartbeats the view itself receives, not by a sleep: other messages (the
    # recorder's availability when it connects late) may still bump the version meanwhile.
    verdicts = []
    fold = floor.view._progressive

    def watched_fold(payload, now):
        verdicts.append(fold(payload, now))
        return verdicts[-1]

    floor.view._progressive = watched_fold
    assert floor.wait(lambda v: len(verdicts) >= 2, timeout=10)
    assert verdicts[:2] == [None, None]

    sessions = Sessions(floor.clock, idle=600.0, lifetime=3600.0)
    try:
        bob = TestClient(make_app(floor.view, floor.floor, floor.dir, sessions), base_url="http://pit.test")
        log_in(bob, "bob")
        page = bob.get("/").text
        assert 'id="alert-prog-MEA-1"' in page and "progressive PENDING" in page
        refused = bob.post("/ack", data={"alert": "prog-MEA-1", "note": "paid", "csrf": token(page)})
        assert refused.status_code == 403 and "not the floor supervisor" in refused.text

        sam = TestClient(make_app(floor.view, floor.floor, floor.dir, sessions), base_url="http://pit.test")
        log_in(sam, "sam")
        page = sam.get("/").text
        done = sam.post(
            "/ack",
            data={"alert": "prog-MEA-1", "note": "paid 2 x $500.10", "csrf": token(page)},
            follow_redirects=False,
        )
        assert done.status_code == 303
        assert floor.wait(lambda v: not alert.open)
        assert alert.acks[0]["user"] == "sam" and alert.acks[0]["role"] == "shift_manager"
    finally:
        sessions.close_all()

    def opened():
        got = [json.loads(p) for _, p in meters]
        return got and got[-1]["state"] == "open" and got[-1]["pending"] == []

    end = time.monotonic() + 15
    while not opened() and time.monotonic() < end:
        time.sleep(0.1)
    assert opened()
    with open(os.path.join(floor.dir, "logs", "progressive.log")) as f:
        text = f.read()
    assert "prog-MEA-1 acknowledged by sam" in text
