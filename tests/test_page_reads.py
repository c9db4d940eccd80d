"""The pit page's reads that must not stop it: the recorder's SQLite copy
refusing a read (host_tools/floor/page/recorded.py) and a message the view
cannot take (host_tools/floor/page/bus.py). The fold reading again at the
next tick is in tests/test_floor_page.py."""

import sqlite3
from types import SimpleNamespace

from host_tools.floor.page.bus import ServiceBus
from host_tools.floor.page.recorded import RecordedCopy

ROW = ('{"seq": 1, "kind": "journal_start"}', 1_800_000_000.5)


def recorder_file(path):
    db = sqlite3.connect(path)
    db.execute("create table events (tbl, board, journal, seq, record, received)")
    db.execute("insert into events values ('T1', 'b', 1, 1, ?, ?)", ROW)
    db.commit()
    db.close()


def test_a_file_sqlite_refuses_reads_as_nothing_said_once_then_reads_again(tmp_path, capsys):
    path = str(tmp_path / "recorder.sqlite")
    copy = RecordedCopy(path)
    assert copy.records("T1", "b", 1, 0, 5) == []  # not made yet: nothing, and nothing said
    assert capsys.readouterr().err == ""
    with open(path, "wb") as f:
        f.write(b"not a database, and longer than a header" * 40)
    assert copy.records("T1", "b", 1, 0, 5) == []
    assert copy.table_records("T1") == []
    assert capsys.readouterr().err == "page: cannot read %s: file is not a database\n" % path
    (tmp_path / "recorder.sqlite").unlink()
    recorder_file(path)
    assert copy.records("T1", "b", 1, 0, 5) == [({"seq": 1, "kind": "journal_start"}, 1_800_000_000.5)]
    assert capsys.readouterr().err == "page: reads %s again\n" % path
    assert copy.table_records("T1") == [({"seq": 1, "kind": "journal_start"}, 1_800_000_000.5)]
    assert capsys.readouterr().err == ""
    copy.close()


class View:
    """A view that cannot take its first message: what the page's connection does next."""

    def __init__(self):
        self.taken = []
        self.listeners = []

    def message(self, topic, payload):
        if not self.taken:
            self.taken.append(None)
            raise sqlite3.OperationalError("database is locked")
        self.taken.append((topic, payload))


def test_a_message_the_view_cannot_take_is_said_and_the_next_is_taken(capsys):
    first = "main/table/T1/recorded"
    view = View()
    bus = ServiceBus({"floor": "main", "port": 1}, "pw", view)
    bus._on_message(None, None, SimpleNamespace(topic=first, payload=b"{}"))
    assert capsys.readouterr().err == "page: %s not taken: OperationalError: database is locked\n" % first
    bus._on_message(None, None, SimpleNamespace(topic="main/table/T1/event", payload=b"{}"))
    assert view.taken == [None, ("main/table/T1/event", b"{}")]


def test_a_database_the_page_cannot_reach_reads_as_nothing_said_once(capsys):
    from host_tools.floor.bus import broker
    from host_tools.floor.pg.copy import PgRecordedCopy

    copy = PgRecordedCopy("postgresql://page@127.0.0.1:%d/floor" % broker.free_port())  # nothing listens there
    assert [copy.records("T1", "b", 1, 0, 5) for _ in range(3)] == [[], [], []]
    assert copy.table_records("T1") == []
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and " database: page cannot read the recorder's events: " in err[0], err
    copy.close()
