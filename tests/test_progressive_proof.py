"""The linked progressive's long proof (docs/progressive.md, "Proof"): hands of random dice
at three tables, with forced near-simultaneous top awards, through controller
SIGKILLs, broker restarts and gateway restarts; then the meters are to the
micro-cent an independent replay of the tables' own records in the hit order
the controller recorded, every record was taken exactly once, and the hit
order recorded before each controller restart is the one after it.

Each table's hands are the firmware's own logic under CPython
(crapsboard.rules.engine.Table and crapsboard.table.progressive): the dealer
keys 1-5 progressive wagers at random where seed 003 takes them (the board's
`prog_window` check, Table.is_open), and a roll paying a top award with
wagers in action journals a hit (progressive.hits). The records are the
board's, chained by the firmware's codec (feed.TableJournal), with the
board's payload bytes; each table's gateway (progressive_floor.TableGateway:
the gateway's real outbox and MQTT client) carries them to a real mosquitto,
where the controller and the recorder run as processes. Not played here: the
board refusing a count while the floor says closed or PENDING
(tests/test_progressive_board*.py), so counts also arrive while the meter is
PENDING or the controller is away, as records keyed before a loss do.

Forced near-simultaneous hits: each round two or three tables play a top
award's dice (the same game at every table half the time) and their gateways
publish the hit records within a few ms of each other, once every gateway
has published all it had.

HANDS=N hands in all (`make test`: 300; `make proof-progressive`: 10,000),
FLOOR_SEED=S other dice and fault points. A line per fault round."""

import collections
import json
import os
import random
import signal
import time

import pytest
from progressive_floor import PEOPLE, Floor, TableGateway, read_ledger

from bench.floor.localfloor import have_mosquitto
from crapsboard.rules.engine import Table
from crapsboard.table import progressive as pg
from host_tools.floor.progressive import ledger, maintenance, messages

HANDS = int(os.environ.get("HANDS", "300"))
SEED = int(os.environ.get("FLOOR_SEED", "22"))
LONG = HANDS > 1000
pytestmark = [
    pytest.mark.skipif(not have_mosquitto(), reason="needs mosquitto"),
    pytest.mark.timeout(3600 if LONG else 120),
]

TABLES = ("T1", "T2", "T3")
HANDS_PER_ROUND = 250  # across the tables; at least one round per fault kind
FAULTS = ("broker", "gateway", "controller")  # the first SIGKILL finds two rounds' hits recorded
VOID_CHANCE = 0.3  # after a round's forced hits, one of them voided at its table
KEY_CHANCE = 0.1  # before each roll, per game, where seed 003 takes the wager
PPM = 1_000_000
# Rates that leave fractions of a cent (12.3457% and 1.7777% of a $1 unit) and
# caps a round's contributions pass, so carried fractions, the overflow past
# the cap and its return to the meter at each reset are in the replay; MEA
# shares a hit, Fired Up pays each winning wager the whole meter with a reset
# between.
PARAMS = {
    "MEA": {
        "paytable": "PT-BJS-MEA-01",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 123_457,
        "reserve_ppm": 17_777,
        "reserve_ceiling": 200_000,
        "cap": 102_000,
        "pay_rule": "shared",
    },
    "FUP": {
        "paytable": "PT-BJS-FUP-01",
        "base_unit": 500,
        "base": 500_000,
        "reset": 500_000,
        "increment_ppm": 50_000,
        "reserve_ppm": 10_000,
        "reserve_ceiling": 1_000_000,
        "cap": 505_000,
        "pay_rule": "positional",
    },
}
# The top awards as dice: MEA the ten numbers once each and no 7 (2 3 4 5 6 8 9
# 10 11 12); Fired Up PT-BJS-FUP-01 (the boards' default) a whole sequence, 6-5-4-3-2 or 8-9-10-11-12.
TOP_AWARDS = {
    pg.MEA: [((1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6))],
    pg.FUP: [((3, 3), (2, 3), (2, 2), (1, 2), (1, 1)), ((4, 4), (4, 5), (5, 5), (5, 6), (6, 6))],
}


class BoardTable:
    """One table's hands as its board plays them, its records handed to its gateway."""

    def __init__(self, gateway, rng):
        self.gateway = gateway
        self.rng = rng
        self.table = Table()
        self.prog = pg.Progressive()
        self.records = {}  # seq -> (kind, game, count), as journalled
        self.hands = 0  # shooters' hands ended (a seven-out)

    def key(self, game, count):
        """The dealer keys `count` wagers: journalled if the board takes them."""
        if not self.table.is_open(pg.WAGERS[game]) or not self.prog.add(self.table, game, count):
            return False
        self._journal(messages.PROG_WAGER, game, count, pg.payload(game, b"roll", self.table.rolls))
        return True

    def roll(self, die1, die2):
        """One roll; the hits it journalled, [(game, winning wagers)]."""
        table = self.table
        before = (self.prog.wagers(table, pg.MEA), self.prog.wagers(table, pg.FUP))
        shooter = table.shooter
        table.roll(die1, die2)
        if table.shooter != shooter:
            self.hands += 1
        found = pg.hits(table, before)
        for game, wagers in found:
            self._journal(messages.PROG_HIT, game, wagers, pg.payload(game))
        return found

    def random_roll(self):
        return self.roll(self.rng.randint(1, 6), self.rng.randint(1, 6))

    def play_hands(self, n):
        end = self.hands + n
        while self.hands < end:
            for game in (pg.MEA, pg.FUP):
                if self.rng.random() < KEY_CHANCE:
                    self.key(game, self.rng.randint(1, 5))
            self.random_roll()

    def force_top_award(self, game):
        """Random rolls until the game takes wagers, 1-5 keyed, then its top
        award's dice; returns the count keyed (the firmware's hit must say it)."""
        while not self.table.is_open(pg.WAGERS[game]):
            self.random_roll()
        count = self.rng.randint(1, 5)
        assert self.key(game, count)
        found = []
        for dice in self.rng.choice(TOP_AWARDS[game]):
            found += self.roll(*dice)
        assert found == [(game, count)], found
        return count

    def void_last_hit(self):
        """The board's prog_void of its last hit, as a supervisor's undo of that roll journals it
        (the record only: the hands played on are the proof's, not an undone table's)."""
        seq = max(s for s, r in self.records.items() if r[0] == messages.PROG_HIT)
        _, name, count = self.records[seq][:3]
        rec = self.gateway.append(messages.PROG_VOID, count, name, pg.payload(pg.GAMES.index(name), b"hit", seq))
        self.records[rec["seq"]] = (messages.PROG_VOID, name, count, seq)
        return name, seq

    def _journal(self, kind, game, count, payload):
        rec = self.gateway.append(kind, count, pg.GAMES[game], payload)
        self.records[rec["seq"]] = (kind, pg.GAMES[game], count)


def replay_tables(records, game_params, changes=(), acks=()):
    """Each game's meter folded from the tables' records [(key, kind, game,
    count)] in the controller's order, by docs/progressive.md's rules written
    out apart from meter.py, in micro-cents: a wager of W adds W x unit x
    increment to the meter and W x unit x reserve rate to the reserve, the
    meter's part past the cap and the reserve's past its ceiling going to the
    overflow; a hit pays from the meter's whole cents (shared: an equal share
    each, the remainder staying; positional: the whole meter to each winning
    wager in turn) and each reset brings the meter's cents up to the reset
    amount from the reserve's whole cents first, then from the house, then
    adds the overflow up to the cap. `changes`: [(i, game, new parameters)],
    a maintenance taken before the i-th record: a meter below the new reset
    raised to it by the house (its fraction kept), a reserve above the new
    ceiling giving the excess to the overflow. `acks`: [(i, game, hit number)],
    the shift manager's acknowledgement before the i-th record. A void (a
    record (key, PROG_VOID, game, count, hit seq)) of a hit still PENDING on
    which no later hit rests unless it was itself reversed puts the money
    back as it was at the hit and adds again, as one contribution, the wagers
    counted since; otherwise no money moves."""
    game_params = {g: dict(p) for g, p in game_params.items()}
    money = ("meter", "reserve", "overflow", "house", "paid")
    out = {
        g: {"meter": p["base"] * PPM, "reserve": 0, "overflow": 0, "house": p["base"], "paid": 0, "wagers": 0}
        for g, p in game_params.items()
    }
    for m in out.values():
        m["hits"] = []
        m["book"] = []  # per hit: its key, what it was at the lock, acknowledged, reversed

    def contribute(m, p, count):
        stake = count * p["base_unit"]
        m["meter"] += stake * p["increment_ppm"]
        m["reserve"] += stake * p["reserve_ppm"]
        for part, ceiling in (("meter", p["cap"]), ("reserve", p["reserve_ceiling"])):
            over = m[part] - ceiling * PPM
            if over > 0:
                m[part] -= over
                m["overflow"] += over

    def reseed(m, p):
        short = p["reset"] - m["meter"] // PPM
        if short > 0:
            from_reserve = min(short, m["reserve"] // PPM)
            m["reserve"] -= from_reserve * PPM
            m["house"] += short - from_reserve
            m["meter"] += short * PPM
        back = min(m["overflow"], p["cap"] * PPM - m["meter"])
        if back > 0:
            m["overflow"] -= back
            m["meter"] += back

    pending = sorted(changes, key=lambda c: c[0])
    acked = sorted(acks, key=lambda a: a[0])
    for i, (key, kind, game, count, *hit_seq) in enumerate(records + [(None, None, None, None)]):
        while acked and acked[0][0] == i:
            _, g, n = acked.pop(0)
            out[g]["book"][n - 1]["acked"] = True
        while pending and pending[0][0] == i:
            _, changed, new = pending.pop(0)
            game_params[changed] = dict(new)
            m = out[changed]
            if m["meter"] // PPM < new["reset"]:
                m["house"] += new["reset"] - m["meter"] // PPM
                m["meter"] = new["reset"] * PPM + m["meter"] % PPM
            excess = m["reserve"] - new["reserve_ceiling"] * PPM
            if excess > 0:
                m["reserve"] -= excess
                m["overflow"] += excess
        if key is None:
            break
        m, p = out[game], game_params[game]
        if kind == messages.PROG_WAGER:
            contribute(m, p, count)
            m["wagers"] += count
            continue
        if kind == messages.PROG_VOID:
            target = list(key[:3]) + [hit_seq[0]]
            n = next(j for j, b in enumerate(m["book"]) if b["key"] == target)
            hit, later = m["book"][n], m["book"][n + 1 :]
            if not hit["acked"] and all(b["reversed"] for b in later):
                m.update(hit["at_lock"])
                since = m["wagers"] - hit["wagers_at_lock"]
                if since:
                    contribute(m, p, since)
                hit["reversed"] = True
            continue
        m["book"].append(
            {
                "key": list(key),
                "at_lock": {k: m[k] for k in money},
                "wagers_at_lock": m["wagers"],
                "acked": False,
                "reversed": False,
            }
        )
        at_hit = m["meter"] // PPM
        if p["pay_rule"] == "shared":
            pays = [at_hit // count] * count
            m["meter"] -= sum(pays) * PPM
            reseed(m, p)
        else:
            pays = []
            for _ in range(count):
                pays.append(m["meter"] // PPM)
                m["meter"] -= pays[-1] * PPM
                reseed(m, p)
        m["paid"] += sum(pays)
        m["hits"].append((list(key), count, pays, at_hit))
    return out


def test_the_replay_by_hand():
    """The judge itself, on a sequence worked by hand with PARAMS (cents, µ¢ = micro-cents)."""
    t1, t2 = ("T1", "b", 1, 1), ("T2", "b", 1, 1)
    got = replay_tables(
        [
            # 5 x 100 ¢ x 12.3457% = 61.7285 ¢ to the meter, x 1.7777% = 8.8885 ¢ to the reserve
            (t1, messages.PROG_WAGER, "MEA", 5),
            # + 37.0371 ¢ and + 5.3331 ¢: the meter 100,098 ¢ + 765,600 µ¢, the reserve 14 ¢ + 221,600 µ¢
            (t2, messages.PROG_WAGER, "MEA", 3),
            # 3 winners share 100,098 ¢: 33,366 each; the reset takes 14 ¢ from the reserve, 99,986 from the house
            (t1, messages.PROG_HIT, "MEA", 3),
            # 99 x 100 ¢: + 1,222.2243 ¢ and + 175.9923 ¢ twice; the second passes the cap by 445,214,200 µ¢,
            # the overflow; the reserve 352 ¢ + 206,200 µ¢
            (t2, messages.PROG_WAGER, "MEA", 99),
            (t2, messages.PROG_WAGER, "MEA", 99),
            # one winner, 102,000 ¢; the reset takes the reserve's 352 ¢, 99,648 from the house, then
            # the whole overflow (445.2142 ¢ fits under the cap): 100,445 ¢ + 214,200 µ¢
            (t1, messages.PROG_HIT, "MEA", 1),
            # Fired Up: 2 x 500 ¢ x 5% = 50 ¢ (1% = 10 ¢ reserved); positional: 500,050 ¢, a reseed
            # (10 ¢ from the reserve, 499,990 from the house), then 500,000 ¢ and a reseed of 500,000
            (t1, messages.PROG_WAGER, "FUP", 2),
            (t2, messages.PROG_HIT, "FUP", 2),
        ],
        PARAMS,
    )
    mea, fup = got["MEA"], got["FUP"]
    assert mea["hits"] == [(list(t1), 3, [33_366] * 3, 100_098), (list(t1), 1, [102_000], 102_000)]
    assert divmod(mea["meter"], PPM) == (100_445, 214_200)
    assert (mea["reserve"], mea["overflow"]) == (206_200, 0)
    assert (mea["house"], mea["paid"], mea["wagers"]) == (299_634, 202_098, 206)
    # every micro-cent: 206 wagers x 100 ¢ x (12.3457% + 1.7777%) + the house = meter + reserve + paid
    assert 206 * 100 * 141_234 + 299_634 * PPM == mea["meter"] + mea["reserve"] + 202_098 * PPM
    assert fup["hits"] == [(list(t2), 2, [500_050, 500_000], 500_050)]
    # A maintenance after the MEA records: reset $1,010, above the meter's 100,445 ¢ + 214,200 µ¢:
    # the house adds 555 ¢, the fraction kept; then 1 wager: + 12.3457 ¢ and + 1.7777 ¢.
    new = dict(PARAMS["MEA"], reset=101_000, reserve_ceiling=101_000)
    mea_records = [
        (t1, messages.PROG_WAGER, "MEA", 5),
        (t2, messages.PROG_WAGER, "MEA", 3),
        (t1, messages.PROG_HIT, "MEA", 3),
        (t2, messages.PROG_WAGER, "MEA", 99),
        (t2, messages.PROG_WAGER, "MEA", 99),
        (t1, messages.PROG_HIT, "MEA", 1),
    ]
    changed = replay_tables(mea_records + [(t2, messages.PROG_WAGER, "MEA", 1)], PARAMS, [(6, "MEA", new)])["MEA"]
    assert divmod(changed["meter"], PPM) == (101_012, 559_900)  # 101,000 + 0.2142 + 12.3457
    assert (changed["reserve"], changed["house"]) == (206_200 + 1_777_700, 299_634 + 555)

    # A void: FUP, 4 wagers (100 ¢, 20 ¢ hidden) on $5,000; a hit of 2 (positional: 500,100 ¢, a
    # reset of 20 ¢ from the reserve and 499,980 from the house, then 500,000 ¢ and a reset of
    # 500,000); 3 wagers (75 ¢, 15 ¢); the hit voided while PENDING: as if 7 wagers on the base.
    k = [("T1", "b", 1, s) for s in range(1, 5)]
    voided = [
        (k[0], messages.PROG_WAGER, "FUP", 4),
        (k[1], messages.PROG_HIT, "FUP", 2),
        (k[2], messages.PROG_WAGER, "FUP", 3),
        (k[3], messages.PROG_VOID, "FUP", 2, 2),
    ]
    back = replay_tables(voided, PARAMS)["FUP"]
    assert back["hits"] == [(list(k[1]), 2, [500_100, 500_000], 500_100)]
    assert (back["meter"], back["reserve"], back["house"], back["paid"]) == (500_175 * PPM, 35 * PPM, 500_000, 0)
    # acknowledged before the void (the pay-out): no money moves
    kept = replay_tables(voided, PARAMS, acks=[(3, "FUP", 1)])["FUP"]
    assert (kept["meter"], kept["reserve"], kept["house"], kept["paid"]) == (
        500_075 * PPM,
        15 * PPM,
        1_499_980,
        1_000_100,
    )
    assert (fup["meter"], fup["reserve"], fup["house"], fup["paid"]) == (500_000 * PPM, 0, 1_499_990, 1_000_050)


# ---- the floor --------------------------------------------------------------------------


def hit_order(meters):
    """Each game's hits as the controller recorded them: [(n, table record, arrival)]."""
    return {g: [(h["n"], h["key"], h["arrival"]) for h in m.hits] for g, m in meters.items()}


def wait_for(predicate, timeout, what):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "no %s in %.0f s" % (what, timeout)
        time.sleep(0.2)


class Proof:
    def __init__(self, floor, rng):
        self.floor = floor
        self.rng = rng
        self.gateways = {t: TableGateway(floor, t) for t in TABLES}
        self.boards = {t: BoardTable(self.gateways[t], random.Random(rng.random())) for t in TABLES}
        self.orders = []  # the hit order the ledger held at each controller SIGKILL
        self.spreads = []  # ms between the first and the last hit of a forced round published by its gateway
        self.faults = collections.Counter()
        self.voids = []  # (table, game, the hit's seq) voided at the table

    def total(self):
        return sum(len(b.records) for b in self.boards.values())

    def taken(self):
        return len(read_ledger(self.floor)[0])

    def send(self, tables):
        for t in tables:
            self.gateways[t].send()

    def forced_hits(self):
        """Two or three tables' top awards, their hits published together."""
        wait_for(lambda: all(g.drained() for g in self.gateways.values()), 120, "gateway publishing all it had")
        chosen = self.rng.sample(TABLES, self.rng.choice((2, 3)))
        same = self.rng.choice((pg.MEA, pg.FUP)) if self.rng.random() < 0.5 else None
        seqs = {}
        for t in chosen:
            self.boards[t].force_top_award(same if same is not None else self.rng.choice((pg.MEA, pg.FUP)))
            seqs[t] = len(self.boards[t].records)  # the hit is the table's last record
        self.send(chosen)
        gateways = self.gateways
        wait_for(lambda: all(seqs[t] in gateways[t].handed for t in chosen), 30, "hit published")
        times = [gateways[t].handed[seqs[t]] for t in chosen]
        self.spreads.append((max(times) - min(times)) * 1000)
        return chosen

    def fault(self, kind):
        floor = self.floor
        self.faults[kind] += 1
        if kind == "controller":
            floor.kill_controller(signal.SIGKILL)
            self.orders.append(hit_order(read_ledger(floor)[1]))
            floor.start_controller()
        elif kind == "broker":
            floor.broker.kill()
            time.sleep(self.rng.uniform(0.1, 1.0))
            floor.broker.start()
        else:
            gateway = self.gateways[self.rng.choice(TABLES)]
            gateway.kill()
            time.sleep(self.rng.uniform(0.0, 1.0))
            gateway.start()

    def change_params(self):
        """A technician and the shift manager change MEA's reset and cap while every table is
        offline (the tables' presence says so), with every hit acknowledged (the meter open)."""
        end = time.monotonic() + 60
        while not all(h["acked_by"] for m in read_ledger(self.floor)[1].values() for h in m.hits):
            assert time.monotonic() < end, "hits not acknowledged in 60 s"
            self.acknowledge()
            time.sleep(0.5)
        for t in TABLES:
            self.floor.presence(t, "offline")
        passwords = (PEOPLE["tom"][1], PEOPLE["sam"][1])
        settings = ["reset=100500", "cap=103000"]
        return maintenance.change(self.floor.dir, "MEA", settings, "tom", "sam", passwords)

    def acknowledge(self):
        """The shift manager acknowledges every hit paid and pending."""
        _, meters, _ = read_ledger(self.floor)
        manager = self.floor.client("sam", PEOPLE["sam"][1])
        wait_for(manager.is_connected, 30, "shift manager's connection")  # a broker restarted: she reconnects
        for game, m in meters.items():
            for n in m.pending():
                self.floor.ack("sam", "prog-%s-%d" % (game, n), "paid")


def test_the_meters_are_the_replay_of_the_tables_records_through_faults(tmp_path):
    rng = random.Random(SEED)
    floor = Floor(tmp_path / "floor", tables=TABLES, game_params=PARAMS)
    proof = None
    started = time.monotonic()
    try:
        floor.start_recorder()
        floor.start_controller()
        assert floor.wait(lambda: floor.meters.get("MEA", {}).get("amount") == 100_000)
        proof = Proof(floor, rng)
        rounds = max(len(FAULTS), -(-HANDS // HANDS_PER_ROUND))
        per_table = -(-HANDS // (rounds * len(TABLES)))
        for r in range(rounds):
            for board in proof.boards.values():
                board.play_hands(per_table)
            proof.send(TABLES)
            hit_tables = proof.forced_hits()
            if rng.random() < VOID_CHANCE:  # its PENDING hit voided; reversed unless a later hit rests on it
                voided = rng.choice(hit_tables)
                proof.voids.append((voided, *proof.boards[voided].void_last_hit()))
                proof.send([voided])
            kind = FAULTS[r % len(FAULTS)]
            time.sleep(rng.uniform(0.0, 0.3))  # while the round's records are on their way
            proof.fault(kind)
            wait_for(lambda: proof.taken() == proof.total(), 300, "controller taking every record")
            proof.acknowledge()
            if r == rounds // 2:
                print(proof.change_params(), flush=True)
            print(
                "round %d/%d: %s; hits at %s published within %.1f ms; %d hands, %d records taken, %.0f s"
                % (
                    r + 1,
                    rounds,
                    kind,
                    "+".join(hit_tables),
                    proof.spreads[-1],
                    sum(b.hands for b in proof.boards.values()),
                    proof.total(),
                    time.monotonic() - started,
                ),
                flush=True,
            )
        end = time.monotonic() + 60
        while not all(h["acked_by"] for m in read_ledger(floor)[1].values() for h in m.hits):
            assert time.monotonic() < end, "hits not acknowledged in 60 s"
            proof.acknowledge()  # a hit paid only at a restart was not pending at its round's end
            time.sleep(1)
        seen, meters, rows = read_ledger(floor)

        # Every record the tables journalled taken exactly once, none refused.
        sent = {(t, "b0a4d0" + t, 1, seq) for t, b in proof.boards.items() for seq in b.records}
        assert {tuple(s[:4]) for s in seen} == sent
        inputs = [json.loads(body) for _, _, what, _, body, _ in rows if what == "input"]
        assert all(outcome == "applied" for _, _, what, _, _, outcome in rows if what == "input")
        keys = collections.Counter((i["table"], i["board"], i["journal"], i["seq"]) for i in inputs)
        assert set(keys) == sent and set(keys.values()) == {1}

        # The ledger's meters are its log's replay, and the tables' records'
        # independent replay in the controller's order, to the micro-cent.
        assert {g: m.dump() for g, m in meters.items()} == {g: m.dump() for g, m in ledger.replay(rows).items()}
        order = sorted(seen, key=lambda s: s[4])
        records = [(s[:4], *proof.boards[s[0]].records[s[3]]) for s in order]
        acks = [
            (sum(1 for s in order if s[4] < n), game, json.loads(body)["hit"])
            for n, _, what, game, body, outcome in rows
            if what == "ack" and outcome == "applied"
        ]
        # the maintenance, before the first record the controller took after it
        changes = [
            (sum(1 for s in order if s[4] < n), game, json.loads(body)["params"])
            for n, _, what, game, body, outcome in rows[len(PARAMS) :]
            if what == "params" and outcome == "applied"
        ]
        assert [(g, p["reset"], p["cap"]) for _, g, p in changes] == [("MEA", 100_500, 103_000)]
        want = replay_tables(records, PARAMS, changes, acks)
        for game, m in meters.items():
            w = want[game]
            assert m.amount * PPM + m.amount_frac == w["meter"]
            assert m.reserve * PPM + m.reserve_frac == w["reserve"]
            assert m.overflow * PPM + m.overflow_frac == w["overflow"]
            assert (m.house, m.paid, m.wagers) == (w["house"], w["paid"], w["wagers"])
            assert [(h["key"], h["wagers"], h["pays"], h["meter_at_hit"]) for h in m.hits] == w["hits"]
            assert all(h["acked_by"] == "sam" for h in m.hits)

        # The hit order recorded before each controller restart is the one after it.
        final = hit_order(meters)
        assert len(proof.orders) == proof.faults["controller"] >= 1
        for before in proof.orders:
            assert sum(len(h) for h in before.values()) >= 4  # two rounds' forced hits at least
            for game, hits in before.items():
                assert final[game][: len(hits)] == hits
        # Every hit the floor saw on the meter topic is the ledger's hit of that number.
        hits = {(g, h["n"]): h for g, m in meters.items() for h in m.hits}
        shown = 0
        for topic, payload in list(floor.seen):
            last = json.loads(payload).get("last_hit") if topic.endswith("/meter") else None
            if last and last["pays"] is not None:
                h = hits[(json.loads(payload)["game"], last["n"])]
                assert [last[k] for k in ("table", "wagers", "pays", "meter_at_hit")] == [
                    h[k] for k in ("table", "wagers", "pays", "meter_at_hit")
                ]
                shown += 1
        assert shown > 0
        # And the meter the floor sees is the ledger's.
        assert floor.wait(lambda: all(floor.meters[g]["amount"] == meters[g].amount for g in meters))

        forced = sum(len(m.hits) for m in meters.values())
        # the caps are passed: over the long proof both meters' overflow went back to the players at resets
        assert not LONG or all(m.overflow_out > 0 for m in meters.values())
        # every void the tables journalled is on its hit; over the long proof, some reversed and some not
        voided = {(g, h["key"][0], h["key"][3]): h["void"] for g, m in meters.items() for h in m.hits if h["void"]}
        assert set(voided) == {(g, t, seq) for t, g, seq in proof.voids}
        reversed_ = sum(1 for v in voided.values() if v["reversed"])
        assert not LONG or 0 < reversed_ < len(voided)
        assert sum(b.hands for b in proof.boards.values()) >= HANDS
        assert forced >= 2 * rounds and set(proof.faults) == set(FAULTS)
        print(
            "%d hands, %d records, %d hits (%s); faults %s; forced hits published within %.1f ms at most; "
            "the controller took records from the recorder's copy %d times; overflow paid back at resets %s; "
            "%d voids (%d reversed); %.0f s"
            % (
                sum(b.hands for b in proof.boards.values()),
                len(sent),
                forced,
                ", ".join("%s %d" % (g, len(m.hits)) for g, m in sorted(meters.items())),
                dict(proof.faults),
                max(proof.spreads),
                floor.controller_log().count("from the recorder's copy"),
                ", ".join("%s %.6f cents" % (g, m.overflow_out / PPM) for g, m in sorted(meters.items())),
                len(voided),
                reversed_,
                time.monotonic() - started,
            )
        )
    finally:
        if proof is not None:
            for gateway in proof.gateways.values():
                if gateway.thread.is_alive():
                    gateway.kill()
        floor.close()
