"""Offline is reported within 1.5x the keepalive; back online likewise
(issue 20). The broker's own will is late: Debian's mosquitto 2.0.11 checks
keepalives once every 6 s (host_tools/floor/presence.py says where), so the
recorder judges each table from its gateway's heartbeats and publishes the
verdict on `table/<t>/availability`, which `floor status` and the page read.

The judge on hand-worked times; the recorder fed messages directly (its real
SQLite store); then real processes: mosquitto, a virtual board, the gateway
and the recorder, the gateway frozen (SIGSTOP) and thawed, and cut off from
the broker by a network namespace (root; skipped with the reason otherwise).
"""

import signal
import time

import pytest

from host_tools.floor import cli, localfloor, presence, topics
from host_tools.floor.localfloor import Rig
from host_tools.floor.netns import netns_or_reason
from host_tools.floor.recorder import Recorder
from host_tools.floor.store import Store

FLOOR = "main"
KEEPALIVE = 4  # the gateway's, in the floor tests: 1.5x is 6 s
# What the verdict may take beyond 1.5x the keepalive, as the test sees it:
# the recorder judges every 0.05 s (its tick), then the verdict crosses the
# broker twice on loopback (recorder -> broker -> the test's subscriber),
# three processes scheduled on a 2-core machine shared with other work. Half
# a second covers that with room; it is ~3% of the 7 s the broker's will adds.
MARGIN_S = 0.5


# ---- the judge ------------------------------------------------------------------------


def test_a_silent_gateway_is_offline_after_one_and_a_half_keepalives():
    judge = presence.Judge()
    assert judge.online("T1", 0.0) is None  # never heard: no verdict
    judge.heard("T1", 10.0, True, keepalive=4)
    assert judge.online("T1", 16.0) is True  # 1.5 x 4 = 6 s: still within
    assert judge.online("T1", 16.01) is False
    assert judge.deadline("T1") == 16.0
    judge.heard("T1", 12.0, True)  # a beat: the keepalive it said before still holds
    assert judge.online("T1", 17.9) is True and judge.online("T1", 18.01) is False


def test_the_gateways_offline_counts_at_once_and_a_beat_brings_it_back():
    judge = presence.Judge()
    judge.heard("T1", 0.0, True, keepalive=4)
    judge.heard("T1", 1.0, False)  # its will, a clean stop, or its board lost
    assert judge.online("T1", 1.0) is False
    judge.heard("T1", 2.0, True, keepalive=4)
    assert judge.online("T1", 2.0) is True


def test_a_table_heard_only_through_its_presence_gets_the_default_keepalive():
    judge = presence.Judge()
    judge.heard("T2", 0.0, True)
    assert presence.DEFAULT_KEEPALIVE_S == 10
    assert judge.online("T2", 15.0) is True and judge.online("T2", 15.01) is False


def test_changes_say_each_verdict_once_and_again_after_forget():
    judge = presence.Judge()
    judge.heard("T1", 0.0, True, keepalive=2)
    judge.heard("T2", 0.0, False, keepalive=2)
    assert judge.changes(0.5) == [("T1", True), ("T2", False)]
    assert judge.changes(1.0) == []
    assert judge.changes(3.01) == [("T1", False)]
    judge.forget_said()
    assert judge.changes(3.02) == [("T1", False), ("T2", False)]


# ---- the recorder's judgement, messages fed directly ------------------------------------


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _recorder(tmp_path):
    said = []
    rec = Recorder(Store(str(tmp_path / "r.sqlite")), FLOOR, lambda t, p, r: said.append((t, p, r)))
    rec.clock = Clock()
    return rec, said


def _verdicts(said):
    return [(t.split("/")[-2], p.decode()) for t, p, r in said if t.endswith("/availability") and r]


def test_the_recorder_publishes_its_verdict_retained_and_stores_it(tmp_path):
    rec, said = _recorder(tmp_path)
    beat = topics.heartbeat_payload("T1", 4, True)
    assert rec.handle(topics.table(FLOOR, "T1", "heartbeat"), beat) == "heartbeat"
    rec.tick()
    assert _verdicts(said) == [("T1", "online")]
    rec.clock.now += 6.0
    rec.tick()
    assert _verdicts(said) == [("T1", "online")]  # 6 s: not yet
    rec.clock.now += 0.05
    rec.tick()
    assert _verdicts(said) == [("T1", "online"), ("T1", "offline")]
    assert rec.store.tables()["T1"]["presence"] == "offline"
    rec.handle(topics.table(FLOOR, "T1", "heartbeat"), beat)
    rec.tick()
    assert _verdicts(said)[-1] == ("T1", "online")
    assert rec.store.tables()["T1"]["presence"] == "online"


def test_a_retained_presence_does_not_refresh_a_table_already_heard(tmp_path):
    rec, said = _recorder(tmp_path)
    rec.handle(topics.table(FLOOR, "T1", "heartbeat"), topics.heartbeat_payload("T1", 4, True))
    rec.clock.now += 5.0
    assert rec.handle(topics.table(FLOOR, "T1", "presence"), b"online", retained=True) == "presence"
    rec.clock.now += 1.05  # 6.05 s after the beat: the retained word, older news, did not count
    rec.tick()
    assert _verdicts(said) == [("T1", "offline")]


def test_bad_heartbeats_are_refused_with_an_alert_and_change_nothing(tmp_path):
    rec, said = _recorder(tmp_path)
    topic = topics.table(FLOOR, "T1", "heartbeat")
    for payload in (
        b"online",
        topics.heartbeat_payload("T2", 4, True),  # another table's, on T1's topic
        topics.encode({"table": "T1", "keepalive": 0, "presence": "online"}),
        topics.encode({"table": "T1", "keepalive": 4, "presence": "maybe"}),
        topics.encode({"table": "T1", "keepalive": True, "presence": "online"}),
    ):
        assert rec.handle(topic, payload) == "rejected", payload
    rec.tick()
    assert _verdicts(said) == []
    assert [a["kind"] for a in rec.store.alerts()] == ["bad message"] * 5


# ---- real processes ----------------------------------------------------------------------


pytestmark_real = pytest.mark.skipif(
    not localfloor.have_mosquitto(), reason="mosquitto is not installed (make test installs it as root)"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return localfloor.shared_template(tmp_path_factory)


def _wait(what, predicate, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = predicate()
        if got is not None:
            return got
        time.sleep(0.01)
    raise AssertionError("no %s within %g s" % (what, timeout))


def _first(messages, word, after):
    """The arrival time of the first `word` that came after monotonic `after`."""
    for when, text in list(messages):
        if when > after and text == word:
            return when
    return None


def _floor(tmp_path, template, netns=None):
    rig = Rig(str(tmp_path), ["T1"], template, keepalive=KEEPALIVE, bind=(netns.host_ip,) if netns else ())
    rig.start_broker()
    rig.start_board("T1")
    rig.start_recorder()
    rig.wait_log("recorder", "connected to the broker")
    if netns:
        rig.start_gateway("T1", prefix=netns.prefix, broker="mqtt://%s:%d" % (netns.host_ip, rig.floor["port"]))
    else:
        rig.start_gateway("T1")
    rig.wait_log("gateway-T1", "broker connection")
    verdicts, wills = [], []
    watchers = [
        localfloor.watch_stamped(rig, topics.table(rig.floor["floor"], "T1", "availability"), verdicts),
        localfloor.watch_stamped(rig, topics.table(rig.floor["floor"], "T1", "presence"), wills),
    ]
    _wait("online verdict", lambda: _status(rig) == ("online", "recorder") or None, 30)
    return rig, verdicts, wills, watchers


def _status(rig):
    (row,) = cli.status(rig.dir, rig.url, 0.3)
    return row["presence"], row["judged_by"]


def _measure(rig, verdicts, wills, fault, heal, wait_for_will):
    t0 = time.monotonic()
    fault()
    off = _wait("offline verdict", lambda: _first(verdicts, "offline", t0), 30)
    will = _wait("the broker's will", lambda: _first(wills, "offline", t0), 30) if wait_for_will else None
    assert _status(rig) == ("offline", "recorder")  # floor status reads the verdict
    t1 = time.monotonic()
    heal()
    on = _wait("online verdict", lambda: _first(verdicts, "online", t1), 30)
    return off - t0, (will - t0) if will else None, on - t1


@pytestmark_real
def test_a_frozen_gateway_is_judged_offline_and_back_online_within_one_and_a_half_keepalives(tmp_path, template):
    rig, verdicts, wills, watchers = _floor(tmp_path, template)
    try:
        gw = rig.gateways["T1"]
        # thawed only after the broker's will too: the gateway must reconnect, its worst case
        off, will, on = _measure(
            rig,
            verdicts,
            wills,
            lambda: gw.send_signal(signal.SIGSTOP),
            lambda: gw.send_signal(signal.SIGCONT),
            wait_for_will=True,
        )
        print(
            "keepalive %d s: offline verdict %.2f s, broker's will %.2f s, online again %.2f s"
            % (KEEPALIVE, off, will, on)
        )
        limit = presence.DEADLINE_FACTOR * KEEPALIVE + MARGIN_S
        assert limit == 6.5
        # not before the silence is a keepalive old at least less the beat's period: the heartbeat's verdict
        assert KEEPALIVE * (1 - presence.HEARTBEAT_FRACTION) <= off <= limit
        assert on <= limit
        assert _status(rig) == ("online", "recorder")
    finally:
        for w in watchers:
            w.stop()
        rig.stop()


@pytestmark_real
def test_a_gateway_cut_off_by_a_partition_is_judged_offline_and_back_online_within_the_limit(tmp_path, template):
    netns, why = netns_or_reason("q")
    if netns is None:
        pytest.skip(why)
    rig = None
    try:
        rig, verdicts, wills, watchers = _floor(tmp_path, template, netns)
        off, will, on = _measure(
            rig, verdicts, wills, lambda: netns.cut(True), lambda: netns.cut(False), wait_for_will=True
        )
        print(
            "keepalive %d s: offline verdict %.2f s, broker's will %.2f s, online again %.2f s"
            % (KEEPALIVE, off, will, on)
        )
        limit = presence.DEADLINE_FACTOR * KEEPALIVE + MARGIN_S
        assert KEEPALIVE * (1 - presence.HEARTBEAT_FRACTION) <= off <= limit
        assert on <= limit
        for w in watchers:
            w.stop()
    finally:
        if rig is not None:
            rig.stop()
        netns.remove()
