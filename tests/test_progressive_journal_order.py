"""A progressive record from the bus waits while the progressive record before it in
its journal, which the recorder's copy holds, is not taken by the controller
(floor_copy.verdict with the ledger's `seen`): the bus can lose that one (a broker
restarted before its save, a controller killed after acknowledging a record that
waited) and bring this one, and a void must never be taken before its hit. The
records are the feed's (real chain links), stored in a recorder's SQLite as the
recorder stores them."""

import json

from bench.floor.progressive_feed import TableJournal
from host_tools.floor.progressive import floor_copy, messages
from host_tools.floor.recorder.store import EVENT_COLUMNS, Store


def stored(path, journal, rows):
    """The recorder's copy holding `rows` ((event payload, record) of `journal`)."""
    store = Store(path)
    for payload, rec in rows:
        obj = json.loads(payload)
        digest = obj["prev"]  # the chain hash before the record, as the gateway sends it
        store.db.execute(
            "insert into events (%s) values (?,?,?,?,?,?,?,?,?,?,?)" % EVENT_COLUMNS,
            (
                "T1",
                journal.board,
                journal.journal_id,
                rec["seq"],
                rec["t"],
                rec["kind"],
                rec["link"],
                _after(rows, rec["seq"]),
                digest,
                json.dumps(rec),
                float(rec["seq"]),
            ),
        )
    store.db.close()


def _after(rows, seq):
    """The chain hash after record `seq`: the `prev` of the record after it."""
    nxt = [json.loads(p)["prev"] for p, r in rows if r["seq"] == seq + 1]
    return nxt[0] if nxt else "00" * 32


def from_bus(payload, rec, journal):
    inp = messages.from_record("T1", journal.board, journal.journal_id, rec)
    inp.link, inp.prev = rec["link"], json.loads(payload)["prev"]
    return inp


def test_a_void_waits_while_its_hit_is_in_the_copy_but_not_taken(tmp_path):
    journal = TableJournal("T1")
    wager = journal.record(messages.PROG_WAGER, 2, "MEA")
    hit = journal.record(messages.PROG_HIT, 1, "MEA")
    roll = journal._append(1, 0, b"")  # a roll between the hit and its void: not a progressive record
    void = journal.void(hit[1]["seq"], 1, "MEA")
    path = str(tmp_path / "recorder.sqlite")
    stored(path, journal, [wager, hit, roll, void])  # the recorder holds them all
    inp = from_bus(*void, journal)
    taken = set()

    def seen(key):
        return key in taken

    assert floor_copy.verdict(path, inp) == (0, 0, None)  # without the ledger: the copy's rule alone
    step, epoch, why = floor_copy.verdict(path, inp, seen)
    assert (step, epoch) == (0, 0) and why == (
        "record 4 of journal 1 of table T1 comes after progressive record 2, not taken yet"
    )
    taken.add(("T1", journal.board, 1, 2, 0))  # the hit taken (the catch-up): the void is taken
    assert floor_copy.verdict(path, inp, seen) == (0, 0, None)
    copy = floor_copy.Copy(path)  # the same through the service's kept connection
    try:
        assert floor_copy.verdict(copy, from_bus(*hit, journal), seen)[2] == (
            "record 2 of journal 1 of table T1 comes after progressive record 1, not taken yet"
        )
        taken.add(("T1", journal.board, 1, 1, 0))
        assert floor_copy.verdict(copy, from_bus(*hit, journal), seen) == (0, 0, None)
    finally:
        copy.close()


def test_a_record_the_controller_never_takes_holds_nothing_up(tmp_path):
    journal = TableJournal("T1")
    bad = journal._append(messages.PROG_WAGER, 2, json.dumps({"game": "XYZ"}).encode())  # no linked game
    wager = journal.record(messages.PROG_WAGER, 1, "MEA")
    path = str(tmp_path / "recorder.sqlite")
    stored(path, journal, [bad, wager])
    assert floor_copy.verdict(path, from_bus(*wager, journal), lambda key: False) == (0, 0, None)
