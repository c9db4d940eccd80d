"""A linked table's board erased, on a real floor (mosquitto, the recorder and the
controller as processes, bench/floor/progressive_feed.py writing the board's
records): the new journal starts again at record 1, its wagers and its hit at
numbers the old journal used and one past them. Before the technician's step
nothing of it moves a meter (each record waits for the recorder's copy); after
it, every record is taken once, however often it is published, the old
journal's rows stay as they were, the meters equal an independent calculation
to the cent, and a restarted controller's self-check replays the ledger to the
same figures (docs/progressive.md, "A linked table's board erased")."""

import os
import signal
import sqlite3
import time

import pytest
from progressive_floor import PARAMS, Floor, read_ledger

from bench.floor.progressive_feed import TableJournal, feed_link_key
from host_tools.floor.base import erasure, floorkeys, topics
from host_tools.floor.progressive import ledger, messages

pytestmark = pytest.mark.timeout(240)
WAGER, HIT = messages.PROG_WAGER, messages.PROG_HIT


def expected(records, p=PARAMS["MEA"]):
    """The MEA meter after `records` [(kind, count)], computed here from the parameters
    alone (a shared pay rule, no cap or ceiling reached, whole cents per wager)."""
    unit = p["base_unit"]
    to_meter, to_reserve = unit * p["increment_ppm"] // 10**6, unit * p["reserve_ppm"] // 10**6
    out = {"amount": p["base"], "reserve": 0, "paid": 0, "wagers": 0, "house": p["base"], "pays": []}
    for kind, count in records:
        if kind == WAGER:
            out["amount"] += count * to_meter
            out["reserve"] += count * to_reserve
            out["wagers"] += count
            continue
        each = out["amount"] // count
        out["pays"].append([each] * count)
        out["paid"] += each * count
        out["amount"] -= each * count
        short = p["reset"] - out["amount"]
        from_reserve = min(short, out["reserve"])
        out["reserve"] -= from_reserve
        out["house"] += short - from_reserve
        out["amount"] = p["reset"]
    return out


def figures(meter):
    return {
        "amount": meter.amount,
        "reserve": meter.reserve,
        "paid": meter.paid,
        "wagers": meter.wagers,
        "house": meter.house,
        "pays": [h["pays"] for h in meter.hits],
    }


def recorder_rows(floor, sql):
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(floor.dir, "recorder.sqlite"), uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def wait_until(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, what
        time.sleep(0.1)


def seen_rows(floor):
    book = ledger.Ledger(os.path.join(floor.dir, "progressive.sqlite"), readonly=True)
    try:
        return book.db.execute("select tbl, board, journal, seq, epoch, n from seen order by n").fetchall()
    finally:
        book.close()


def test_an_erased_tables_new_journal_moves_the_meter_only_after_the_step_and_once(tmp_path):
    floor = Floor(tmp_path / "floor", tables=("T1",), game_params={"MEA": PARAMS["MEA"]})
    try:
        floor.start_recorder()
        floor.start_controller()
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)

        old = [(WAGER, 3), (WAGER, 2), (HIT, 1)]
        for kind, count in old:
            floor.send("T1", kind, count)
        wait_until(lambda: len(seen_rows(floor)) == 3, 30, "the old journal's three records taken")
        wait_until(lambda: len(recorder_rows(floor, "select seq from events")) == 3, 30, "the recorder's copy")
        _, meters, log_before = read_ledger(floor)
        assert figures(meters["MEA"]) == expected(old)
        old_seen = seen_rows(floor)
        assert [r[4] for r in old_seen] == [0, 0, 0]

        # The board erased: the same chip id starts journal 1 again; its records 1-3 carry
        # numbers the floor holds for other records, record 4 continues none of the floor's.
        erased = TableJournal("T1")
        new = [(WAGER, 5), (HIT, 2), (WAGER, 1), (WAGER, 4)]
        payloads = [erased.record(kind, count, "MEA")[0] for kind, count in new]
        assert erased.board == floor.journals["T1"].board and erased.journal_id == 1
        for payload in payloads:
            floor.republish("T1", payload)
        floor.after_handling(
            *("waits for the recorder's copy: record %d of journal 1 of table T1" % s for s in (1, 2, 3, 4))
        )
        assert seen_rows(floor) == old_seen
        _, meters, log_rows = read_ledger(floor)
        assert log_rows == log_before and figures(meters["MEA"]) == expected(old)
        assert floor.meters["MEA"]["amount"] == expected(old)["amount"]

        # The technician's step, as `floor board-erased` publishes it.
        journal_key = floorkeys.derive(feed_link_key("T1"), "journal")
        step = erasure.sign(journal_key, "T1", erased.board, "T. Tech", time.time())
        floorctl = floor.client("floorctl")
        floorctl.publish(topics.table("main", "T1", "erased"), topics.encode(step), qos=1).wait_for_publish(5)
        wait_until(lambda: recorder_rows(floor, "select id from erased") == [(1,)], 30, "the recorder taking the step")
        floor.after_handling("table T1: board-erased step 1")

        # The gateway fetches the board's journal again from record 1; copies come too.
        for _ in range(2):
            for payload in payloads:
                floor.republish("T1", payload)
        wait_until(lambda: len(seen_rows(floor)) == 7, 30, "the new journal's four records taken")
        seen = seen_rows(floor)
        assert seen[:3] == old_seen
        assert [(r[3], r[4]) for r in seen[3:]] == [(1, 1), (2, 1), (3, 1), (4, 1)]
        _, meters, log_rows = read_ledger(floor)
        want = expected(old + new)
        assert figures(meters["MEA"]) == want
        assert want["paid"] == 100_050 + 2 * 50_025 and want["amount"] == 100_050  # the sums by hand
        assert floor.wait(lambda: floor.meters["MEA"]["amount"] == want["amount"])  # published after the commit
        assert log_rows[: len(log_before)] == log_before  # the old journal's money is final
        assert "refused" not in [r[5][:7] for r in log_rows]

        # A restart: the self-check replays the ledger to the same figures; copies stay copies.
        floor.kill_controller(signal.SIGTERM)
        log_length = len(floor.controller_log())
        floor.start_controller()
        wait_until(lambda: "self-check:" in floor.controller_log()[log_length:], 30, "the restarted self-check")
        assert "ledger replay matches" in floor.controller_log()[log_length:]
        assert figures(ledger.replay(read_ledger(floor)[2])["MEA"]) == want
        for payload in payloads:
            floor.republish("T1", payload)
        floor.after_handling("connected to the broker")
        assert len(seen_rows(floor)) == 7
        assert figures(read_ledger(floor)[1]["MEA"]) == want
    finally:
        floor.close()
