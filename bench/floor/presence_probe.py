"""How fast the floor notices a table's gateway gone and back: a one-table
floor of real processes (localfloor.Rig: mosquitto, a virtual board, the
gateway, the recorder) whose gateway is frozen (SIGSTOP: silent, its TCP
connection open) or cut off from the broker (a network namespace: netns.py),
then thawed or reconnected. Times are the test's arrival times, on one
monotonic clock, of the recorder's verdict (`availability`, presence.py) and
of the broker's will (`presence`). Used by tests/test_floor_presence.py and
`make bench-floor` (bench.py).
"""

import signal
import time

from bench.floor import localfloor
from bench.floor.localfloor import Rig
from host_tools.floor import cli
from host_tools.floor.base import presence, topics

TABLE = "T1"


def _first(messages, word, after):
    """The arrival time of the first `word` that came after monotonic `after`."""
    for when, text in list(messages):
        if when > after and text == word:
            return when
    return None


def _wait(what, predicate, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = predicate()
        if got is not None:
            return got
        time.sleep(0.01)
    raise RuntimeError("no %s within %g s" % (what, timeout))


class Probe:
    """A one-table floor in `folder`, its gateway in `netns` when given (the
    broker then listens on the namespace's host end too)."""

    def __init__(self, folder, template, keepalive, netns=None):
        self.keepalive, self.netns = keepalive, netns
        self.rig = Rig(folder, [TABLE], template, keepalive=keepalive, bind=(netns.host_ip,) if netns else ())
        self.verdicts, self.wills, self.watchers = [], [], []
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        rig = self.rig
        rig.start_broker()
        rig.start_board(TABLE)
        rig.start_recorder()
        rig.wait_log("recorder", "connected to the broker")
        if self.netns:
            url = "mqtt://%s:%d" % (self.netns.host_ip, rig.floor["port"])
            rig.start_gateway(TABLE, prefix=self.netns.prefix, broker=url)
        else:
            rig.start_gateway(TABLE)
        rig.wait_log("gateway-" + TABLE, "broker connection")
        for leaf, into in (("availability", self.verdicts), ("presence", self.wills)):
            self.watchers.append(localfloor.watch_stamped(rig, topics.table(rig.floor["floor"], TABLE, leaf), into))
        _wait("online verdict", lambda: self.status() == ("online", "recorder") or None, 30)

    def status(self):
        """(presence, judged_by) as `floor status` shows the table."""
        (row,) = cli.status(self.rig.dir, self.rig.url, 0.3)
        return row["presence"], row["judged_by"]

    def _once(self, fault, heal):
        """One fault until both the verdict and the will said `offline`, then
        healed until the verdict and the gateway say `online` again (the floor
        shows online when both do): seconds from each."""
        # from a settled table: the verdict online, and the gateway's own word again after a reconnect
        _wait("a settled table", lambda: (self.status() == ("online", "recorder") and self._will_online()) or None, 30)
        t0 = time.monotonic()
        fault()
        off = _wait("offline verdict", lambda: _first(self.verdicts, "offline", t0), 60)
        will = _wait("the broker's will", lambda: _first(self.wills, "offline", t0), 60)
        status_off = self.status()
        t1 = time.monotonic()
        heal()
        on = _wait("online verdict", lambda: _first(self.verdicts, "online", t1), 60)
        # the floor shows online when both say so (presence.shown): the gateway's word too, after its will
        word = _wait("the gateway's online", lambda: _first(self.wills, "online", t1), 60)
        return {
            "offline_s": round(off - t0, 2),
            "will_s": round(will - t0, 2),
            "online_again_s": round(max(on, word) - t1, 2),
            "verdict_online_s": round(on - t1, 2),
            "status_while_off": list(status_off),
        }

    def _will_online(self):
        wills = list(self.wills)
        return not wills or wills[-1][1] == topics.ONLINE

    def freeze(self):
        """The gateway SIGSTOPped, SIGCONTed after the will: it must reconnect (its worst case)."""
        gw = self.rig.gateways[TABLE]
        return self._once(lambda: gw.send_signal(signal.SIGSTOP), lambda: gw.send_signal(signal.SIGCONT))

    def partition(self):
        """The gateway's network cut until the will, then joined again."""
        return self._once(lambda: self.netns.cut(True), lambda: self.netns.cut(False))

    def stop(self):
        for w in self.watchers:
            w.stop()
        self.rig.stop()


def figures(folder, template, keepalive, samples, netns=None, why=None):
    """The bench's figures: `samples` freezes, and as many partitions when `netns` (else `why` not)."""
    out = {"keepalive_s": keepalive, "limit_s": presence.DEADLINE_FACTOR * keepalive}
    probe = Probe(folder + "/freeze", template, keepalive)
    try:
        out["freeze"] = [probe.freeze() for _ in range(samples)]
    finally:
        probe.stop()
    if netns is None:
        out["partition"] = why
        return out
    probe = Probe(folder + "/partition", template, keepalive, netns)
    try:
        out["partition"] = [probe.partition() for _ in range(samples)]
    finally:
        probe.stop()
    return out
