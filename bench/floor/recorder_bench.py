"""What the recorder's checks cost: records per second through
Recorder.handle_batch (the broker left out: the recorder's own work per
message), BATCH records a transaction as a recorder that is behind takes
them, with every check as the floor runs it, and with the record MAC check
alone taken out, on the same records and the same SQLite settings (WAL,
synchronous=full).

    python -m bench.floor.recorder_bench [--records N] [--repeat K] [--batch B]
"""

import argparse
import json
import os
import tempfile
import time

import host_tools  # noqa: F401  (firmware/lib on the path)
from crapsboard.journal import journal_record as jr
from host_tools.floor.base import floorkeys, topics
from host_tools.floor.recorder import inbox, service
from host_tools.floor.recorder.store import Store

BOARD = "240ac4000001"
LINK_KEY = bytes(range(32))


def records(n):
    mac = jr.Mac(floorkeys.derive(LINK_KEY, "journal"))
    head = jr.encode_head(bytes.fromhex(BOARD), 1, 0, mac.key_id())
    prev = jr.genesis(head)
    out = []
    for seq in range(1, n + 1):
        d1, d2 = 1 + seq % 6, 1 + (seq * 5) % 6
        _, digest = jr.encode(prev, seq, 400 * seq, jr.ROLL, d1 * 8 + d2, b"", b"", mac)
        record = {"seq": seq, "t": 400 * seq, "kind": "roll", "arg": d1 * 8 + d2, "dice": [d1, d2]}
        record.update(link=digest[:8].hex(), mac=mac.tag(digest).hex())
        out.append(topics.event_payload("T1", BOARD, 1, record, prev.hex()))
        prev = digest
    return out


def rate(payloads, verify, batch=inbox.BROKER_WINDOW):
    folder = tempfile.mkdtemp(prefix="recorder-bench-")
    store = Store(os.path.join(folder, "r.sqlite"))
    keys = floorkeys.JournalKeys(given={"T1": floorkeys.derive(LINK_KEY, "journal")})
    recorder = service.Recorder(store, "main", keys=keys)
    topic = topics.table("main", "T1", "event")
    check = floorkeys.record_mac_ok
    if not verify:
        service.floorkeys.record_mac_ok = lambda mac, record, digest: True
    try:
        start = time.perf_counter()
        results = []
        for at in range(0, len(payloads), batch):
            results += recorder.handle_batch([(topic, p, False) for p in payloads[at : at + batch]])
        elapsed = time.perf_counter() - start
    finally:
        service.floorkeys.record_mac_ok = check
        store.close()
    assert results == ["stored"] * len(payloads), set(results)
    return len(payloads) / elapsed


def mac_check_us(payloads):
    """Microseconds of the MAC check alone per record (record_hash is done either way)."""
    mac = jr.Mac(floorkeys.derive(LINK_KEY, "journal"))
    pairs = []
    for p in payloads:
        obj = topics.decode(p)
        digest, _ = service.record_hash(bytes.fromhex(obj["prev"]), obj["record"])
        pairs.append((obj["record"], digest))
    start = time.perf_counter()
    assert all(floorkeys.record_mac_ok(mac, r, d) for r, d in pairs)
    return (time.perf_counter() - start) / len(pairs) * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch", type=int, default=inbox.BROKER_WINDOW, help="records a transaction")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error("--batch: at least 1")
    payloads = records(args.records)
    out = {"records": args.records, "batch": args.batch, "with_mac_check": [], "without_mac_check": []}
    for _ in range(args.repeat):
        out["with_mac_check"].append(round(rate(payloads, True, args.batch), 1))
        out["without_mac_check"].append(round(rate(payloads, False, args.batch), 1))
    out["mac_check_us_per_record"] = round(mac_check_us(payloads), 2)
    for k in ("with_mac_check", "without_mac_check"):
        out[k + "_best"] = max(out[k])
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
