"""scale_bench's store rates run end to end on SQLite, small: every record
stored with its MAC verified under its table's journal key (a recorder with
no keys refuses them all, as the floor's does), and the MAC check taken out
only for the run that measures without it."""

import itertools
import os

from bench.floor import scale_bench
from host_tools.floor.base import floorkeys
from host_tools.floor.recorder import service
from host_tools.floor.recorder.store import Store


def test_the_rates_store_every_record_with_and_without_the_mac_check(tmp_path):
    names = itertools.count()
    check = floorkeys.record_mac_ok

    def fresh():
        return Store(os.path.join(str(tmp_path), "r%d.sqlite" % next(names)))

    out = scale_bench.rates(fresh, rounds=1, tables=2, per_table=5)
    assert [r["records"] for r in out["mac_verified"] + out["mac_not_verified"]] == [10, 10]
    assert all(r["per_cpu_second"] > 0 and r["per_wall_second"] > 0 for r in out["mac_verified"])
    assert floorkeys.record_mac_ok is check and service.floorkeys.record_mac_ok is check  # put back


def test_a_recorder_without_the_tables_keys_stores_none_of_the_feed(tmp_path):
    from bench.floor import record_feed

    store = Store(str(tmp_path / "r.sqlite"))
    try:
        r = service.Recorder(store, "bench")  # no journal keys: the board's MAC cannot be checked
        payload = record_feed.journal("B0", 1)[0]
        assert r.handle("crapsfloor/v1/bench/table/B0/event", payload) == "rejected"
    finally:
        store.close()


def test_the_busy_rate_stores_every_record_and_says_each_table(tmp_path):
    store = Store(str(tmp_path / "busy.sqlite"))
    try:
        out = scale_bench.busy_rate(store, tables=3, held=2, rounds=2, batch=2)
        assert (out["records"], out["batch"]) == (6, 2) and out["per_cpu_second"] > 0
        assert [r[0] for r in store.db.execute("select count(*) from events group by tbl")] == [4, 4, 4]
    finally:
        store.close()
