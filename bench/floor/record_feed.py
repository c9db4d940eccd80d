"""Tables' journals without boards, for the recorder's tests and benches:
valid hash-chained records built with the firmware's own codec (as a board
writes them, each with its MAC under the table's journal key), published at QoS 1 on each table's `event` topic by that
table's own gateway account, as its gateway would. What the recorder does
with them is then read back from its store and checked: every record once,
each journal contiguous from 1, each continuing the chain before it.
"""

import json
import os
import threading
import time

from bench.floor.progressive_feed import journal_mac, provision
from crapsboard.journal import journal_record as jr
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus.mqtt import Client


def free_pit_ports(directory, floor):
    """Each pit's broker moved to free loopback ports (floor init puts them at the floor
    broker's port + 100, which another test's broker may hold); floor.json and the
    brokers' files written again. Returns the floor."""
    from host_tools.floor.bus import bridge, broker

    for p in floor.get("pits") or []:
        p["port"], p["ws_port"] = broker.free_port(), broker.free_port()
    floordir.write_json(os.path.join(directory, "floor.json"), floor)
    broker.write_config(directory, floor)
    bridge.write_pits(directory, floor)
    return floor


def board_id(table):
    return "b0a4%08x" % (sum(ord(c) << (8 * i) for i, c in enumerate(table)) & 0xFFFFFFFF)


def journal(table, n, journal_id=1, t0=0):
    """[payload] of records 1..n of one journal of `table`."""
    board = board_id(table)
    mac = journal_mac(table)  # the board's journal key: the recorder takes only what the board wrote
    head = jr.encode_head(bytes.fromhex(board), journal_id, 7, mac.key_id())
    prev = jr.genesis(head)
    out = []
    for seq in range(1, n + 1):
        dice = [1 + seq % 6, 1 + (seq * 5 + len(table)) % 6]
        t = t0 + 400 * seq
        _, digest = jr.encode(prev, seq, t, 1, dice[0] * 8 + dice[1], mac=mac)
        record = {
            "seq": seq,
            "t": t,
            "kind": "roll",
            "arg": dice[0] * 8 + dice[1],
            "dice": dice,
            "link": digest[:8].hex(),
            "mac": mac.tag(digest).hex(),
        }
        out.append(topics.event_payload(table, board, journal_id, record, prev.hex(), head.hex() if seq == 1 else None))
        prev = digest
    return out


class Feed:
    """One gateway connection per table, publishing its journal's records in order."""

    def __init__(self, directory, floor, url):
        """`url`: the broker's, or {table: its broker's} (a pit's). Each table's role keys are
        provisioned in `directory` first (the recorder verifies every record's MAC)."""
        provision(directory, floor["tables"])
        self.floor = floor
        self.clients = {}
        for t in floor["tables"]:
            user = floordir.gateway_user(t)
            where = url[t] if isinstance(url, dict) else url
            c = Client(where, user, floordir.password(directory, user), "feed-" + t, 30, clean=True)
            self.clients[t] = c.start()
        for t, c in self.clients.items():
            if not c.wait_connected(20):
                raise RuntimeError("feed for %s did not connect" % t)

    def publish(self, table, payloads, pace_s=0.0, wait=True):
        """Publish each payload at QoS 1; with `wait`, until the broker acknowledged every one."""
        topic = topics.table(self.floor["floor"], table, "event")
        infos = []
        for p in payloads:
            infos.append(self.clients[table].publish(topic, p))
            if pace_s:
                time.sleep(pace_s)
        if wait:
            for info in infos:
                info.wait_for_publish(60)
        return infos

    def publish_all(self, journals, pace_s=0.0):
        """{table: [payload]} published table by table concurrently; returns when all are acknowledged."""
        threads = [
            threading.Thread(target=self.publish, args=(t, payloads, pace_s), daemon=True)
            for t, payloads in journals.items()
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

    def stop(self):
        for c in self.clients.values():
            c.stop()


def check_store(store, table, n, journal_id=1):
    """Problems with `table`'s journal in the store ([] when it holds records
    1..n exactly once, inserted in order, each continuing the chain)."""
    from host_tools.floor.recorder.service import record_hash

    board = board_id(table)
    order = "n" if hasattr(store, "tables_with_events") else "rowid"
    rows = store.db.execute(
        "select seq, link, hash, prev, record from events where tbl=? and board=? and journal=? order by " + order,
        (table, board, journal_id),
    ).fetchall()
    problems = []
    seqs = [r[0] for r in rows]
    if seqs != list(range(1, n + 1)):
        problems.append("%s: seqs in insertion order %s… (%d rows), not 1..%d" % (table, seqs[:20], len(seqs), n))
    head = jr.encode_head(bytes.fromhex(board), journal_id, 7, journal_mac(table).key_id())
    prev = jr.genesis(head).hex()
    for seq, _link, digest, row_prev, record in sorted(rows):
        if row_prev != prev:
            problems.append("%s record %d does not continue record %d" % (table, seq, seq - 1))
        computed, ok = record_hash(bytes.fromhex(row_prev), json.loads(record))
        if not ok or computed.hex() != digest:
            problems.append("%s record %d: its link or hash does not match its fields" % (table, seq))
        prev = digest
    return problems
