"""A whole floor for the pit page's browser test and bench: the floor's own
rig (bench/floor/localfloor.py: a real mosquitto, virtual boards from a
deployed template, each with its live key feed (`sim device --key-feed`,
what `floor keys` writes to), gateway and recorder processes), the people
added as `floor user add` adds them, and the page itself
(`python -m host_tools floor page`)."""

import json
import os
import time

from browser import PageProcess
from floor_harness import PEOPLE

from bench.floor.localfloor import Rig
from host_tools.floor import supervise
from host_tools.floor.bus import broker
from host_tools.floor.people import accounts as people

# The dice of a shooter who makes the points 4, 5, 6, 8 (the 4th) as key
# presses: one key per die (docs/keys.md).
TO_FOURTH_POINT = "2 2 3 1 2 3 4 1 3 3 5 1 4 4 6 2"
FIFTH_AND_SIXTH = "5 4 6 3 5 5 6 4"  # 9 set and made (5th), 10 set and made (6th: HOLD)
SEVEN_OUT = "2 2 3 4"  # a point of 4, then the seven-out: the next shooter


class PitFloor:
    def __init__(self, folder, template, tables=("T1", "T2"), idle=20, page_options=()):
        self.rig = Rig(folder, tables, template)
        self.dir = self.rig.dir
        for name, (role, password) in PEOPLE.items():
            people.add_person(self.dir, name, role, password)
        self.rig.start_broker()
        for t in tables:
            self.rig.start_board(t)
        self.rig.start_recorder()
        for t in tables:
            self.rig.start_gateway(t)
        self.page = PageProcess(self.dir, broker.free_port(), "--idle", str(idle), *page_options)
        self.url = self.page.url

    def press(self, table, script):
        """The dealer keys `script` on the table's board; the time the keys were handed over."""
        at = time.time()
        supervise.press(self.dir, table, script)
        return at

    def rolls(self, table, where="recorder"):
        """[(seq, [d1, d2])] of the rolls the recorder holds for `table`, or (`where="outbox"`)
        the table's gateway has read from the board (its SQLite outbox: while the broker is down too)."""
        if where == "outbox":
            import sqlite3

            db = sqlite3.connect(os.path.join(self.dir, "gateways", table + ".sqlite"), timeout=10)
            try:
                rows = [json.loads(bytes(p))["record"] for (p,) in db.execute("select payload from records")]
            finally:
                db.close()
            return sorted((r["seq"], r["dice"]) for r in rows if r.get("kind") == "roll")
        path = os.path.join(self.dir, "recorder.sqlite")
        if not os.path.exists(path):
            return []
        s = self.rig.store()
        try:
            rows = s.db.execute("select seq, record from events where tbl=? and kind='roll' order by seq", (table,))
            return [(seq, json.loads(r)["dice"]) for seq, r in rows]
        finally:
            s.close()

    def roll(self, table, dice, timeout=30.0, tries=3, where="recorder"):
        """Key the rolls in `dice` ("2 2 3 1 …") one at a time, each until the recorder holds it.
        Should the board have missed a key press (none is known since the virtual board sends
        every change, however late), `*` drops the half roll and the roll is keyed again: only
        after `timeout`, far longer than a loaded machine takes to record a roll, since keying
        again a roll that was only slow would add a roll to the hand.
        The time the last roll's second die was handed over."""
        values = dice.split()
        pairs = list(zip(values[0::2], values[1::2]))
        last = 0.0
        for d1, d2 in pairs:
            for _ in range(tries):
                before = len(self.rolls(table, where))
                self.press(table, d1)
                time.sleep(0.3)
                last = self.press(table, d2)
                end = time.monotonic() + timeout
                while time.monotonic() < end and len(self.rolls(table, where)) == before:
                    time.sleep(0.05)
                got = self.rolls(table, where)
                if len(got) > before:
                    assert got[-1][1] == [int(d1), int(d2)], "table %s rolled %s, not %s %s" % (table, got[-1], d1, d2)
                    break
                self.press(table, "*")
                time.sleep(0.5)
            else:
                raise AssertionError("table %s's board did not take the roll %s %s" % (table, d1, d2))
        return last

    def recorded_seq(self, table):
        rows = self.rig.recorded(table) if os.path.exists(os.path.join(self.dir, "recorder.sqlite")) else []
        return rows[-1][1] if rows else 0

    def wait_recorded(self, table, more_than, timeout=60.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            seq = self.recorded_seq(table)
            if seq > more_than:
                return seq
            time.sleep(0.1)
        raise AssertionError("table %s recorded nothing past %d" % (table, more_than))

    def stop(self):
        self.page.stop()
        self.rig.stop()
