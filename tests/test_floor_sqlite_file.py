"""The floor's SQLite files appear whole: a reader that finds the recorder's
database or the progressive's ledger finds its tables (a `floor events` run
while the floor came up once found the file and no `events` table)."""

import os
import sqlite3

import pytest
from test_floor_make import host_tools

from host_tools.floor.base import sqlite_file
from host_tools.floor.progressive import ledger
from host_tools.floor.recorder import store


def tables_in(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return {name for (name,) in db.execute("select name from sqlite_master where type = 'table'")}
    finally:
        db.close()


@pytest.mark.parametrize(
    "make, needed",
    [
        (store.Store, {"events", "waiting", "tables", "alerts", "erased", "archived_events"}),
        (ledger.Ledger, {"log", "seen", "meters", "params", "tables", "epochs"}),
    ],
)
def test_the_file_takes_its_name_only_with_every_table_in_it(tmp_path, monkeypatch, make, needed):
    path = str(tmp_path / "floor.sqlite")
    seen_at_rename = []
    real_replace = os.replace

    def replace(src, dst):
        seen_at_rename.append((os.path.exists(dst), tables_in(src)))
        real_replace(src, dst)

    monkeypatch.setattr(sqlite_file.os, "replace", replace)
    made = make(path)
    made.close()
    assert len(seen_at_rename) == 1
    existed, tables = seen_at_rename[0]
    assert not existed and needed <= tables
    assert "floor.sqlite.partial" not in os.listdir(tmp_path)


def test_a_file_that_exists_is_opened_as_it_is_never_made_again(tmp_path, monkeypatch):
    path = str(tmp_path / "recorder.sqlite")
    first = store.Store(path)
    first.add_alert("T1", "note", "kept", key="k1")
    first.close()
    monkeypatch.setattr(sqlite_file.os, "replace", lambda *a: pytest.fail("an existing file made again"))
    again = store.Store(path)
    assert [a["text"] for a in again.alerts("T1")] == ["kept"]
    again.close()


def test_a_partial_file_left_by_a_cut_is_made_again_from_nothing(tmp_path):
    path = str(tmp_path / "progressive.sqlite")
    with open(path + ".partial", "wb") as f:
        f.write(b"SQLite format 3\x00 cut short")
    ledger.Ledger(path).close()
    assert not os.path.exists(path + ".partial")
    assert {"log", "meters"} <= tables_in(path)


def test_a_schema_that_fails_leaves_no_file_of_that_name(tmp_path):
    path = str(tmp_path / "r.sqlite")
    with pytest.raises(sqlite3.OperationalError):
        sqlite_file.create_whole(path, "create table a (x); create tabel b (y);")
    assert not os.path.exists(path)


def floor_events(folder):
    return host_tools("floor", "events", "--dir", str(folder), "--table", "T1")


def test_floor_events_on_a_floor_whose_recorder_made_its_file_lists_nothing_and_exits_0(tmp_path):
    store.Store(str(tmp_path / "recorder.sqlite")).close()
    done = floor_events(tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize(
    "content, why", [(b"", "no such table: events"), (b"not sqlite at all\n" * 100, "file is not a database")]
)
def test_floor_events_on_a_file_that_is_not_the_recorders_fails_in_one_line(tmp_path, content, why):
    path = tmp_path / "recorder.sqlite"
    path.write_bytes(content)
    done = floor_events(tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "host_tools floor: %s is not a recorder's database (%s)\n" % (path, why)
    assert path.read_bytes() == content  # read, never written
