"""The link's `received` (crapsboard/link/link_received.py, docs/link.md): the
floor recorder's receipt relayed to the board, which then keeps every record
the floor has not received, on a SimBoard whose journal keeps two small
segments (tests/vm/link_app_session.py `small`), under both runtimes."""

import vm_program
from conftest import ROOT
from test_link_app import (
    KEY,
    MAC,
    RUNTIMES,
    SCRIPT,
    SESSION_BOARD,
    _files,
    _masked,
    _parse,
    chain_after,
    one,
    receipt,
    request,
)

from host_tools import journal_log, keys

ROLLS = "keys " + " ".join(["3 4"] * 40)  # 40 rolls: past two segments of 600 bytes


def both(tmp_path, commands):
    """The replies (parsed) to `commands` on a board with the small journal, the same under both runtimes."""
    results = []
    for which in RUNTIMES:
        d = tmp_path / which
        d.mkdir()
        results.append(run(which, d, commands))
    assert _masked(results[0]) == _masked(results[1])
    return [[_parse(line) for line in chunk] for chunk in results[0]]


def run(which, directory, commands):
    text = "".join(c + "\n" for c in commands)
    out = vm_program.run(which, SCRIPT, [str(directory), "small"], "1M", input=text, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    return [[line for line in chunk.split("\n") if line] for chunk in out.stdout.split("--\n")[:-1]]


def received(rid, journal, seq, head, tag=None):
    tag = receipt(journal, seq, head) if tag is None else tag
    return request(rid, "received", journal=journal, seq=seq, head=head, receipt=tag)


def kept(directory):
    """[(seq, kind)] of every record the journal in `directory` holds, verified."""
    records, _ = journal_log.verify_files(_files(directory), mac=MAC)
    return [(r.seq, journal_log.jread.KIND_NAMES[r.kind]) for r in records]


def test_off_the_floor_the_oldest_segments_are_dropped_each_drop_journaled(tmp_path):
    replies = both(tmp_path, [ROLLS, request(1, "hello")])
    journal = one(replies[1])["journal"]
    records = kept(tmp_path / "cpython" / "journal")
    assert records[0][0] == journal["first"] > 1  # the oldest records are gone...
    assert [k for _, k in records].count("drop") >= 1  # ...and their going is journaled


PREFIX = "keys 3 4 3 4"  # records 1-3: the journal start, two rolls


def test_on_the_floor_a_board_keeps_every_record_the_recorder_has_not_received(tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    run("cpython", first, [PREFIX])
    head = chain_after(first / "journal", 3)
    forged = [
        keys.receipt_tag(KEY, SESSION_BOARD, 1, 3, head),  # the link key itself
        keys.receipt_tag(keys.role_key(KEY, "gateway"), SESSION_BOARD, 1, 3, head),  # the gateway's
        receipt(1, 2, head),  # the receipt of another record
    ]
    commands = [PREFIX]
    commands += [received(10 + i, 1, 3, head, tag) for i, tag in enumerate(forged)]
    commands += [
        received(20, 2, 3, head),  # another journal
        received(21, 1, 4, head),  # a record the board has not written
        received(22, 1, 3, "00" * 32),  # the board's own last chain head is not that
        received(23, 1, 3, head),
        received(24, 1, 2, chain_after(first / "journal", 2)),  # an older receipt lowers nothing
        ROLLS,
        request(25, "hello"),
    ]
    sent = {}
    for which in RUNTIMES:
        (tmp_path / which).mkdir()
        sent[which] = run(which, tmp_path / which, commands)
    assert _masked(sent["cpython"]) == _masked(sent["micropython"])
    replies = [[_parse(line) for line in chunk] for chunk in sent["cpython"]]
    refused = "receipt refused: not the recorder's receipt for journal 1 up to record 3"
    assert [one(replies[k])["error"] for k in (1, 2, 3)] == [refused] * 3
    assert one(replies[4])["error"] == (
        "receipt refused: journal 1 has records 1..3, the receipt is for journal 2 record 3"
    )
    assert (
        one(replies[5])["error"] == "receipt refused: journal 1 has records 1..3, the receipt is for journal 1 record 4"
    )
    assert one(replies[6])["error"] == "receipt refused: record 3's chain head is not " + "00" * 32
    assert one(replies[7]) == {"id": 23, "ok": True, "received": 3}
    assert one(replies[8]) == {"id": 24, "ok": True, "received": 3}
    hello = one(replies[10])
    assert hello["journal"]["received"] == 3
    records = kept(tmp_path / "cpython" / "journal")
    assert hello["journal"]["first"] == records[0][0] == 1  # nothing dropped: the floor lacks records 4 on
    assert "drop" not in [k for _, k in records]
    assert hello["journal"]["seq"] == records[-1][0] > 40

    # The recorder's receipt for all of it, after a power cycle: the board drops the segments it covers.
    last = hello["head"]
    again = [received(30, 1, last["seq"], last["hash"]), "keys 3 4", request(31, "hello")]
    after = {}
    for which in RUNTIMES:
        after[which] = run(which, tmp_path / which, again)
    assert _masked(after["cpython"]) == _masked(after["micropython"])
    replies = [[_parse(line) for line in chunk] for chunk in after["cpython"]]
    assert one(replies[0])["received"] == last["seq"]
    assert one(replies[2])["journal"]["received"] == last["seq"]
    records = kept(tmp_path / "cpython" / "journal")
    assert one(replies[2])["journal"]["first"] == records[0][0] > 1
    assert "drop" in [k for _, k in records]


def test_a_receipt_names_a_record_the_board_wrote_counting_from_record_1(tmp_path):
    first = tmp_path / "first"
    first.mkdir()
    run("cpython", first, [PREFIX])
    replies = both(
        tmp_path,
        [
            PREFIX,
            received(1, 1, 0, chain_after(first / "journal", 1)),  # record 0: no record has that number
            received(2, 1, 1, chain_after(first / "journal", 1)),  # record 1, the journal's start
            request(3, "hello"),
        ],
    )
    assert one(replies[1])["error"] == (
        "receipt refused: journal 1 has records 1..3, the receipt is for journal 1 record 0"
    )
    assert one(replies[2]) == {"id": 2, "ok": True, "received": 1}
    assert one(replies[3])["journal"]["received"] == 1


def test_a_board_without_a_journal_refuses_a_receipt(tmp_path):
    sent = {}
    for which in RUNTIMES:
        d = tmp_path / which
        d.mkdir()
        text = received(1, 1, 1, "00" * 32) + "\n"
        out = vm_program.run(which, SCRIPT, [str(d), "nojournal"], "1M", input=text, cwd=ROOT)
        assert out.returncode == 0, out.stdout + out.stderr
        sent[which] = out.stdout
    assert sent["cpython"] == sent["micropython"]
    reply = one([_parse(line) for line in sent["cpython"].split("--\n")[0].split("\n") if line])
    assert reply["error"] == "this board keeps no journal"
