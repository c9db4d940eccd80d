"""The controller through faults on a real floor: three tables' gateway accounts
publish random contributions and hits while the controller is SIGKILLed and
restarted, the broker is SIGKILLed and restarted (the gateways publish their
records again, as a gateway does from the recorder's `recorded`), and both at
once. Then every record the tables sent was taken exactly once, the meters
equal the replay of the ledger's log, every contributed wager is in them to
the micro-cent, and no cent was made or lost. PROGRESSIVE_STEPS=N and
FLOOR_SEED=S run longer or other fault points."""

import os
import random
import signal
import time

import pytest
from progressive_floor import PARAMS, Floor, read_ledger

from host_tools.floor.progressive import catch_up, ledger, messages, params

pytestmark = pytest.mark.timeout(300)
STEPS = int(os.environ.get("PROGRESSIVE_STEPS", "60"))
SEED = int(os.environ.get("FLOOR_SEED", "22"))


def wait_for(predicate, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_every_record_once_and_the_meter_to_the_cent_through_faults(tmp_path):
    floor = Floor(tmp_path / "floor", with_people=False)
    try:
        floor.start_recorder()
        floor.start_controller()
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
        rng = random.Random(SEED)
        sent = {t: [] for t in floor.journals}  # each table's payloads, in its journal's order
        wagers = {"MEA": 0, "FUP": 0}
        hits = 0
        faults = {STEPS // 4: "controller", STEPS // 2: "broker", 3 * STEPS // 4: "both"}
        for step in range(STEPS):
            table = rng.choice(sorted(sent))
            game = rng.choice(["MEA", "FUP"])
            if rng.random() < 0.15:
                payload, _ = floor.send(table, messages.PROG_HIT, rng.randint(1, 3), game)
                hits += 1
            else:
                count = rng.randint(1, 6)
                payload, _ = floor.send(table, messages.PROG_WAGER, count, game)
                wagers[game] += count
            sent[table].append(payload)
            fault = faults.get(step)
            if fault in ("controller", "both"):
                floor.kill_controller(signal.SIGKILL)
            if fault in ("broker", "both"):
                floor.broker.kill()
                floor.broker.start()
                assert floor.wait(lambda: all(c.is_connected() for c in floor.clients.values()), 15)
                for t, payloads in sent.items():  # as a gateway does after a reconnect
                    for p in payloads:
                        floor.republish(t, p)
            if fault in ("controller", "both"):
                floor.start_controller()
        total = sum(len(p) for p in sent.values())
        assert wait_for(lambda: len(read_ledger(floor)[0]) == total, 60), "taken %d of %d" % (
            len(read_ledger(floor)[0]),
            total,
        )
        seen, meters, rows = read_ledger(floor)
        assert sorted((row[0], row[3]) for row in seen) == sorted(
            (t, seq) for t, p in sent.items() for seq in range(1, len(p) + 1)
        )
        assert {g: m.dump() for g, m in meters.items()} == {g: m.dump() for g, m in ledger.replay(rows).items()}
        checked = {g: params.check_game(g, PARAMS[g]) for g in PARAMS}
        for game, m in meters.items():
            p = checked[game]
            assert m.wagers == wagers[game]
            assert m.contributed == wagers[game] * p.base_unit * (p.increment_ppm + p.reserve_ppm)
            money_in, held = m.balance()
            assert money_in == held
        assert sum(len(m.hits) for m in meters.values()) == hits
        assert all(h["paid"] is not None for m in meters.values() for h in m.hits)
        # The meter the floor sees is the ledger's.
        assert floor.wait(lambda: all(floor.meters[g]["amount"] == meters[g].amount for g in meters))
        assert floor.wait(lambda: all(floor.meters[g]["rev"] == meters[g].rev for g in meters))
    finally:
        floor.close()


def test_records_the_broker_forgot_are_taken_from_the_recorders_copy(tmp_path):
    floor = Floor(tmp_path / "floor", with_people=False)
    try:
        floor.start_recorder()
        floor.start_controller()
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
        floor.kill_controller(signal.SIGKILL)
        floor.send("T1", messages.PROG_WAGER, 5)
        floor.send("T2", messages.PROG_HIT, 1)
        # The recorder holds them: a gateway would not publish them again.
        recorder_db = os.path.join(floor.dir, "recorder.sqlite")
        assert wait_for(lambda: len(catch_up.missed(recorder_db, lambda key: False)) == 2, 10)
        # The broker dies and what it queued for the controller is gone (as when it is
        # killed between two saves; here its whole store, so it is gone for certain).
        floor.broker.kill()
        saved = os.path.join(floor.dir, "data", "mosquitto.db")
        if os.path.exists(saved):  # (none yet when it has not reached its first save)
            os.unlink(saved)
        floor.broker.start()
        floor.start_controller()
        assert wait_for(lambda: len(read_ledger(floor)[0]) == 2, 30)
        assert floor.wait(lambda: floor.meters["MEA"]["pending"] == [1])
        assert floor.meters["MEA"]["last_hit"]["pays"] == [100_050]
        assert "took 2 record(s) from the recorder's copy" in floor.controller_log()
    finally:
        floor.close()
