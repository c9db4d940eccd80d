"""The progressive controller checks itself before it opens a meter
(host_tools/floor/progressive/integrity.py, docs/progressive.md "Self-check"):
its code against the installed record, its ledger against the ledger's own
replay. Damaged code and damaged ledgers are refused; with real parts the
refusal closes the progressive (presence `refused`), `floor meter` says why
and the pit page raises an alert for the shift manager and surveillance."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys

import pytest
from progressive_floor import PARAMS, ROOT, Floor

from bench.floor import localfloor
from host_tools.floor.base import topics
from host_tools.floor.page.floorview import FloorView
from host_tools.floor.progressive import integrity, messages, params
from host_tools.floor.progressive.controller import Controller

GAMES = {g: params.check_game(g, PARAMS[g]) for g in PARAMS}


# ---- the code --------------------------------------------------------------------------------


def copy_of_the_code(tmp_path):
    root = tmp_path / "code"
    for package in integrity._PACKAGES:
        shutil.copytree(os.path.join(ROOT, package), root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return str(root)


def test_code_as_installed_passes_and_a_changed_module_is_named(tmp_path):
    root, floor_dir = copy_of_the_code(tmp_path), str(tmp_path / "floor")
    os.makedirs(floor_dir)
    missing = integrity.check_code(floor_dir, root)
    assert missing["ok"] is False and "no record of the controller's code" in missing["reason"]
    digest = integrity.install(floor_dir, root)
    good = integrity.check_code(floor_dir, root)
    assert good["ok"] is True and good["digest"] == digest and good["reason"] == "code %s as installed" % digest[:12]
    # the installed record is this repository's code, file by file
    assert good["digest"] == integrity.code_digest(integrity.code_files())
    meter = os.path.join(root, "host_tools/floor/progressive/meter.py")
    with open(meter, "a") as f:
        f.write("\n# a change nobody installed\n")
    bad = integrity.check_code(floor_dir, root)
    assert bad["ok"] is False and bad["changed"] == ["host_tools/floor/progressive/meter.py"]
    assert bad["reason"] == (
        "the controller's code differs from the installed record (host_tools/floor/progressive/meter.py)"
    )
    os.remove(os.path.join(root, "host_tools/floor/base/words.py"))  # a module gone
    assert "host_tools/floor/base/words.py" in integrity.check_code(floor_dir, root)["changed"]


# ---- the ledger ------------------------------------------------------------------------------


def played_ledger(tmp_path):
    return played_ledger_at(str(tmp_path / "progressive.sqlite"))


def played_ledger_at(path):
    c = Controller(path, GAMES)
    c.take(messages.Input(messages.PROG_WAGER, "MEA", 5, "T1", "bT1", 1, 1))
    c.take(messages.Input(messages.PROG_HIT, "MEA", 2, "T1", "bT1", 1, 2))
    c.acknowledge("prog-MEA-1", "sam", "shift_manager")
    c.take(messages.Input(messages.PROG_WAGER, "MEA", 3, "T2", "bT2", 1, 1))
    c.close()
    return path


def damage(path, sql, *args):
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def stored_meter(path, game="MEA"):
    db = sqlite3.connect(path)
    body = json.loads(db.execute("select body from meters where game=?", (game,)).fetchone()[0])
    db.close()
    return body


def test_a_clean_ledger_passes_and_the_first_start_has_none(tmp_path):
    path = played_ledger(tmp_path)
    got = integrity.check(str(tmp_path), path)
    # two parameter rows, a wager, the hit, its settlement, the acknowledgement, a wager
    assert got["ledger"] == {"ok": True, "rows": 7, "reason": "ledger replay matches (7 log rows)"}
    fresh = integrity.check(str(tmp_path), str(tmp_path / "none.sqlite"))
    assert fresh["ledger"]["ok"] is True and fresh["ledger"]["reason"] == "no ledger yet: the first start"


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("amount", 100_031, "the ledger's stored MEA amount differs from its log's replay (100031, replay 100030)"),
        ("reserve", 7, "the ledger's stored MEA reserve differs from its log's replay (7, replay 6)"),
        ("overflow", 1, "the ledger's stored MEA overflow differs from its log's replay (1, replay 0)"),
        ("paid", 1, "the ledger's stored MEA paid differs from its log's replay (1, replay 100050)"),
    ],
)
def test_a_stored_figure_that_is_not_the_replay_is_refused(tmp_path, field, value, reason):
    path = played_ledger(tmp_path)
    # by hand: 5 wagers (50 cents, 10 hidden) on $1,000: 100,050; 2 winners 50,025 each; the reset takes
    # the 10 hidden cents and 99,990 from the house; then 3 wagers: 100,030, reserve 6
    body = stored_meter(path)
    assert (body["amount"], body["reserve"], body["overflow"], body["paid"]) == (100_030, 6, 0, 100_050)
    body[field] = value
    damage(path, "update meters set body=? where game='MEA'", json.dumps(body))
    got = integrity.check(str(tmp_path), path)
    assert got["ok"] is False and got["ledger"]["reason"] == reason


def test_a_log_row_removed_or_unreadable_is_refused(tmp_path):
    path = played_ledger(tmp_path)
    damage(path, "delete from log where n = (select max(n) from log)")  # the last wager's row gone
    got = integrity.check(str(tmp_path), path)["ledger"]
    assert got["ok"] is False and got["reason"].startswith("the ledger's stored MEA amount differs")
    (tmp_path / "again").mkdir()
    path = played_ledger(tmp_path / "again")
    damage(path, "update log set body='{not json' where n = 2")
    got = integrity.check(str(tmp_path), path)["ledger"]
    assert got["ok"] is False and got["reason"].startswith("the ledger cannot be read or replayed: ")


def test_a_ledger_that_is_not_sqlite_is_refused(tmp_path):
    path = str(tmp_path / "progressive.sqlite")
    with open(path, "wb") as f:
        f.write(b"this is not a database" * 200)
    got = integrity.check(str(tmp_path), path)["ledger"]
    assert got["ok"] is False and "not a database" in got["reason"]


def test_a_parameter_change_is_refused_on_a_damaged_ledger(tmp_path):
    from host_tools import HostToolError
    from host_tools.floor.base import floordir
    from host_tools.floor.progressive import maintenance

    directory = str(tmp_path / "floor")
    floordir.new_floor(directory, tables=["T1"], port=18999, ws_port=18998)
    path = played_ledger_at(params.ledger_path(directory))
    body = stored_meter(path)
    body["reserve"] += 1
    damage(path, "update meters set body=? where game='MEA'", json.dumps(body))
    with pytest.raises(HostToolError) as e:
        maintenance.change(directory, "MEA", ["cap=6000000"], "tom", "sam", ("x", "y"))
    assert str(e.value) == (
        "the ledger's stored MEA reserve differs from its log's replay (7, replay 6); nothing changed"
    )
    with open(path, "wb") as f:  # not a database at all: one line too, no traceback
        f.write(b"not a database" * 300)
    with pytest.raises(HostToolError, match="^the ledger's SQLite|^the ledger cannot be"):
        maintenance.checked_change(directory, "MEA", ["cap=6000000"])


# ---- the page ------------------------------------------------------------------------------


def test_a_refusal_is_an_alert_for_the_shift_manager_and_surveillance():
    view = FloorView("main", ["T1"], clock=lambda: 100.0)
    ok = {"v": 1, "ok": True, "reason": "code abc as installed; ledger replay matches (3 log rows)"}
    view.message(topics.floor_root("main") + "/progressive/check", json.dumps(ok).encode())
    assert "prog-check" not in view.book.alerts
    refused = {"v": 1, "ok": False, "reason": "the ledger's stored MEA amount differs from its log's replay"}
    view.message(topics.floor_root("main") + "/progressive/check", json.dumps(refused).encode())
    alert = view.book.alerts["prog-check"]
    assert alert.kind == "progressive_refused" and set(alert.required) == {"shift_manager", "surveillance"}
    assert "refused to open: the ledger's stored MEA amount differs" in alert.detail


# ---- with real parts -----------------------------------------------------------------------

pytestmark_floor = pytest.mark.skipif(not localfloor.have_mosquitto(), reason="needs mosquitto")


def host_tools(floor, *argv):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", "floor", *argv, "--dir", floor.dir],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
    )


def check_report(floor):
    topic = messages.check_topic("main")
    with floor.cond:
        got = [p for t, p in floor.seen if t == topic]
    return json.loads(got[-1]) if got else None


@pytestmark_floor
@pytest.mark.timeout(180)
def test_the_controller_refuses_to_open_on_a_damaged_ledger_or_code_record(tmp_path):
    floor = Floor(tmp_path / "floor")
    try:
        floor.start_controller()
        assert floor.wait(lambda: (check_report(floor) or {}).get("ok") is True)
        assert floor.wait(lambda: floor.presence_words()[-1:] == ["online"])  # subscribed by then
        floor.send("T1", messages.PROG_WAGER, 5)
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_050)
        done = host_tools(floor, "meter")
        assert done.returncode == 0, done.stderr
        last = done.stdout.splitlines()[-1]
        assert last.startswith("controller online; self-check: code ") and "no ledger yet: the first start" in last
        floor.kill_controller(signal.SIGTERM)
        floor.start_controller()  # two parameter rows and the wager, replayed and compared
        assert floor.wait(lambda: "ledger replay matches (3 log rows)" in (check_report(floor) or {}).get("reason", ""))
        assert floor.wait(lambda: floor.presence_words()[-1] == "online")
        last = host_tools(floor, "meter").stdout.splitlines()[-1]
        assert last.endswith(" as installed; ledger replay matches (3 log rows)")

        # The ledger damaged while the controller is away: its stored meter no longer the log's.
        floor.kill_controller(signal.SIGKILL)
        path = os.path.join(floor.dir, "progressive.sqlite")
        body = stored_meter(path)
        body["amount"] += 100_000
        damage(path, "update meters set body=? where game='MEA'", json.dumps(body))
        floor.start_controller()
        assert floor.wait(lambda: floor.presence_words()[-1] == "refused")
        report = check_report(floor)
        assert report["ok"] is False and report["code"]["ok"] is True
        want = "the ledger's stored MEA amount differs from its log's replay (200050, replay 100050)"
        assert report["reason"] == want
        floor.send("T1", messages.PROG_WAGER, 5)  # not taken: the ledger is not touched
        rows = json.loads(host_tools(floor, "meter", "--json").stdout)
        assert {r["state"] for r in rows} == {"closed"}
        assert rows[0]["controller"]["self_check_ok"] is False
        text = host_tools(floor, "meter").stdout.splitlines()[-1]
        assert text == "controller REFUSED to open (every table closed): " + report["reason"]
        assert stored_meter(path)["amount"] == 200_050

        # The ledger put right; the code record no longer the code's (as code changed after installing).
        floor.kill_controller(signal.SIGTERM)
        body["amount"] -= 100_000
        damage(path, "update meters set body=? where game='MEA'", json.dumps(body))
        record = integrity.record_path(floor.dir)
        with open(record) as f:
            rec = json.load(f)
        rec["files"]["host_tools/floor/progressive/meter.py"] = "0" * 64
        with open(record, "w") as f:
            json.dump(rec, f)
        floor.start_controller()
        assert floor.wait(lambda: (check_report(floor) or {}).get("code", {}).get("ok") is False)
        assert floor.wait(lambda: floor.presence_words()[-1] == "refused")
        assert check_report(floor)["reason"] == (
            "the controller's code differs from the installed record (host_tools/floor/progressive/meter.py)"
        )

        # Installed again (the installation step), it opens and takes the wager the bus kept for it.
        floor.kill_controller(signal.SIGTERM)
        done = host_tools(floor, "progressive-install")
        assert done.returncode == 0 and "recorded as installed" in done.stdout
        floor.start_controller()
        assert floor.wait(lambda: floor.presence_words()[-1] == "online")
        assert floor.wait(lambda: floor.meters["MEA"]["amount"] == 100_100)
    finally:
        floor.close()
