"""The app collects garbage when the table is idle, once after each burst of
events (hardware/README.md, "Why a module with PSRAM": a collection over a PSRAM
heap pauses for tens of ms, so it must never fall between a key and its frame)."""

import os

from conftest import ROOT

from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, App
from sim.portable.simboard import SimBoard

BOARD_JSON = os.path.join(ROOT, "hardware", "board.json")


class Table:
    def __init__(self):
        self.layout = lay.load(BOARD_JSON)
        self.board = SimBoard(self.layout)
        self.app = App(self.board, self.layout)
        self.t = 0
        self.board.down = KEYSWITCH_NC_BIT  # the key off

    def run(self, ms, down=0):
        """Scan every 10 ms, render every 50 ms, as the board's tasks do; the
        idle collections made on the way."""
        collected = []
        self.board.down = KEYSWITCH_NC_BIT | down
        for _ in range(ms // 10):
            self.t += 10
            self.app.step(self.t)
            if self.t % 50 == 0:
                self.app.render(self.t)
            if self.app.collect_when_idle():
                collected.append(self.t)
        return collected

    def key(self, label):
        return 1 << self.layout.key_index(label)


def test_no_event_no_collection():
    table = Table()
    assert table.run(2000) == []


def test_one_collection_after_a_roll_once_the_table_is_idle_again(monkeypatch):
    import crapsboard.table.app

    class Gc:
        collections = 0

        def collect(self):
            self.collections += 1

    gc = Gc()
    monkeypatch.setattr(crapsboard.table.app, "gc", gc)  # the collector the app calls, counted
    table = Table()
    assert table.run(100, table.key("3")) == []  # first die: half-entered, no collection
    assert table.run(200) == []
    assert table.run(100, table.key("4")) == []  # the roll is taken while "4" is still down
    collected = table.run(1000)
    assert len(collected) == 1  # once, after the key is released and the frame shown
    assert gc.collections == 1 and table.app.table.rolls == 1
    assert table.run(1000) == []  # nothing new: nothing more
    assert gc.collections == 1


def test_with_a_journal_its_slow_part_runs_once_after_a_roll_and_one_collection_follows(tmp_path):
    # docs/journal.md: the journal's slow part (maintain) runs once the event's frame is shown
    # and the keys are up, once per event; the idle collection then comes once, as without one.
    from test_journal_restore import started

    table = Table()
    journal = started(tmp_path)
    table.app.journal = journal
    maintained = []
    maintain = journal.maintain
    journal.maintain = lambda rules, now: maintained.append(table.t) or maintain(rules, now)
    table.run(100, table.key("3"))
    table.run(200)
    table.run(100, table.key("4"))
    collected = table.run(1000)
    assert (table.app.table.rolls, len(maintained), len(collected)) == (1, 1, 1)
    assert collected[0] >= maintained[0]
