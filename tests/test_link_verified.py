"""The link's `verified` (crapsboard/link/link_verified.py, docs/link.md): a HOLD
cleared by surveillance, signed with the board's key, on a running app whose
journal lives in a real directory, under both runtimes (the same bytes):
the refusals, the kind 22 record, the lamps' "verified — pay" (docs/lamps.md)
until the hand moves on, and all of it restored from the journal after a
power cut (tests/vm/link_app_session.py, as tests/test_link_app.py)."""

import json

from test_link_app import MAC, _files, both, chain_after, one, receipt, request, session, signed

from crapsboard.journal import journal_record as jr
from crapsboard.rules import engine, hold
from crapsboard.rules import paytable as pt
from host_tools import journal_log

# The shooter makes 4, 5, 6, 8, 9 and 10: the 6th point is the 12th roll,
# record 13 after the journal start (tests/pit_floor.py keys the same dice).
TO_SIXTH_POINT = "2 2 3 1 2 3 4 1 3 3 5 1 4 4 6 2 5 4 6 3 5 5 6 4"
HOLD_SEQ = 13
# Every number from 2 to 12 without a 7: the MEA Progressive's ten numbers,
# its top award (the meter) on the 10th roll, record 11.
MEA_TOP = "1 1 1 2 2 2 2 3 3 3 4 4 4 5 5 5 5 6 6 6"
MEA_SEQ = 11
ALERT = "T1-j1-13-fire_6"
POINT_LAMPS = ("fire.4", "fire.5", "fire.6", "fire.8", "fire.9", "fire.10")
GREEN = {"on": True, "color": "#00ff00", "blink": False}


def clear(rid, ctr, seq=HOLD_SEQ, journal=1, by="ann", alert=ALERT):
    return signed(rid, "verified", ctr, journal=journal, seq=seq, by=by, alert=alert)


def lamps(status_chunk):
    return one(status_chunk)["lamps"]


def assert_verified_pay(lit):
    """docs/lamps.md, "Verified — pay": both alert lamps green and steady, the
    Fire Bet's points white in turn with their own orange (the slow flash)."""
    assert lit["alert.floor"] == GREEN and lit["alert.manager"] == GREEN
    for name in POINT_LAMPS:
        assert lit[name] == {"on": True, "color": "#ffffff", "blink": True, "alt": "#ff5000"}, name


def assert_hold_waiting(lit):
    assert lit["alert.floor"] == {"on": True, "color": "#ffc000", "blink": True}
    assert lit["alert.manager"] == {"on": True, "color": "#ff0000", "blink": True}
    for name in POINT_LAMPS:
        assert lit[name] == {"on": True, "color": "#ff5000", "blink": False}, name


def test_the_rule_is_the_6th_point_or_a_top_award_once():
    # rules/hold.py on the engine itself: the 6th point's roll raises the Fire
    # Bet's HOLD, the rolls before and after it none; MEA's 10th number its own.
    t = engine.Table()
    dice = [int(d) for d in TO_SIXTH_POINT.split()]
    raised = []
    for d1, d2 in zip(dice[0::2], dice[1::2]):
        before = t.fire_points
        t.roll(d1, d2)
        marks = [0] * pt.WAGER_COUNT
        raised.append((hold.raised(t, before, marks), marks[pt.FIRE]))
    assert raised[:-1] == [(0, 0)] * 11
    assert raised[-1] == (1 << pt.FIRE, t.fire_points) and engine.popcount(t.fire_points) == 6
    before = t.fire_points
    t.roll(3, 1)  # a come-out 4 after the 6th point: no second HOLD
    assert hold.raised(t, before) == 0
    t = engine.Table()
    dice = [int(d) for d in MEA_TOP.split()]
    raised = []
    for d1, d2 in zip(dice[0::2], dice[1::2]):
        before = t.fire_points
        t.roll(d1, d2)
        marks = [0] * pt.WAGER_COUNT
        raised.append((hold.raised(t, before, marks), marks[pt.MEA_PROGRESSIVE]))
    assert raised[:-1] == [(0, 0)] * 9
    assert raised[-1] == (1 << pt.MEA_PROGRESSIVE, 0x1F7C)  # the ten numbers 2-6, 8-12


def test_a_cleared_hold_is_journalled_and_lit_and_every_refusal_changes_nothing(tmp_path):
    replies = both(
        tmp_path,
        [
            "keys " + TO_SIXTH_POINT,
            "wait 5000",  # the 6th point's 4 s celebration is over
            request(1, "status"),
            request(2, "verified", journal=1, seq=HOLD_SEQ, by="ann", alert=ALERT),  # not signed
            signed(3, "verified", 1, key=b"x" * 32, journal=1, seq=HOLD_SEQ, by="ann", alert=ALERT),  # forged
            clear(4, 1, journal=2),
            clear(5, 2, seq=HOLD_SEQ - 1),
            clear(6, 3, seq=HOLD_SEQ + 1),
            clear(7, 4, by="ann smith"),
            clear(8, 5, alert="x" * 49),
            "state",
            request(9, "status"),
            clear(10, 6),
            clear(11, 6),  # the same request again: replayed
            clear(12, 7),
            "wait 600",
            request(13, "status"),
            request(14, "events", since=HOLD_SEQ),
            "state",
        ],
    )
    assert_hold_waiting(lamps(replies[2]))
    errors = [one(replies[i])["error"] for i in range(3, 10)]
    assert errors == [
        "signed command: needs ctr (a counter) and tag",
        "bad tag",
        "not this journal: the board's journal is 1",
        "that hand has moved on: record 13, a roll, undo or hand end, came after it",
        "not a HOLD: record 14 made no 6th point and no top award",
        "by must be 1 to 32 letters, digits, '-' or '_'",
        "alert must be 1 to 48 letters, digits, '-' or '_'",
    ]
    assert one(replies[10]).startswith("state ") and " seq 13 " in one(replies[10])  # nothing journalled
    assert lamps(replies[11]) == lamps(replies[2])  # nothing lit
    assert one(replies[12]) == {"id": 10, "ok": True, "seq": 14}
    assert one(replies[13])["error"] == "replayed or old counter: last accepted is 6"
    assert one(replies[14])["error"] == "already verified"
    lit = lamps(replies[16])
    assert_verified_pay(lit)
    assert lit["status"] == {"on": True, "color": "#00ff00", "blink": False}  # the status lamp unchanged
    (record,) = one(replies[17])["events"]
    assert (record["seq"], record["kind"], record["arg"]) == (14, "verified", HOLD_SEQ)
    assert json.loads(bytes.fromhex(record["payload"])) == {"alert": ALERT, "by": "ann", "seq": HOLD_SEQ}
    assert " seq 14 " in one(replies[18])
    assert jr.VERIFIED == 22


def test_before_any_table_event_nothing_is_a_hold_and_no_hand_has_moved_on(tmp_path):
    # docs/link.md: "not a HOLD" for a seq that is no table event; "that hand
    # has moved on" only when a roll, undo or hand end came after it, and on a
    # board that has played none, none has.
    replies = both(tmp_path, [clear(1, 1, seq=0), clear(2, 2, seq=1), "state"])
    assert [one(replies[i])["error"] for i in range(2)] == [
        "not a HOLD: record 0 made no 6th point and no top award",
        "not a HOLD: record 1 made no 6th point and no top award",
    ]
    assert " seq 1 " in one(replies[2])  # nothing journalled after the journal start


def test_after_a_journal_reset_no_record_of_the_new_journal_is_a_hold(tmp_path):
    # The HOLD raised in journal 1 stays there: in journal 2, which holds no
    # table event yet, record 0 and its journal start are "not a HOLD", and
    # nothing is journalled or lit.
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, ["keys " + TO_SIXTH_POINT])
    proof = dict(journal=1, seq=HOLD_SEQ, head=chain_after(first / "journal", HOLD_SEQ))
    proof["receipt"] = receipt(1, HOLD_SEQ, proof["head"])
    replies = both(
        tmp_path,
        [
            "keys " + TO_SIXTH_POINT,
            signed(1, "journal_reset", 1, **proof),
            clear(2, 2, journal=2, seq=0),
            clear(3, 3, journal=2, seq=1),
            "state",
            request(4, "status"),
        ],
    )
    assert one(replies[1])["journal"]["id"] == 2
    assert [one(replies[i])["error"] for i in (2, 3)] == [
        "not a HOLD: record 0 made no 6th point and no top award",
        "not a HOLD: record 1 made no 6th point and no top award",
    ]
    assert " seq 1 " in one(replies[4])  # journal 2 holds its start alone
    assert lamps(replies[5])["alert.floor"]["color"] != "#00ff00"  # no "verified — pay"


MOVED_ON = (  # (keys, the table event that moved the hand on, the records after the clearance)
    ("3 1", 15, ["roll"]),
    ("key:on undo key:off", 16, ["supervisor_on", "undo", "supervisor_off"]),
    ("key:on end key:off", 16, ["supervisor_on", "end_hand", "supervisor_off"]),
)


def test_verified_pay_ends_with_the_next_roll_undo_or_hand_end(tmp_path):
    for i, (keys, moved, kinds) in enumerate(MOVED_ON):
        d = tmp_path / str(i)
        d.mkdir()
        replies = both(
            d,
            [
                "keys " + TO_SIXTH_POINT,
                clear(1, 1),
                "keys " + keys,
                "wait 5000",
                request(2, "status"),
                clear(3, 2),
                request(4, "events", since=14),
            ],
        )
        assert one(replies[1])["seq"] == 14
        lit = lamps(replies[4])
        assert lit.get("alert.floor", {}).get("color") != "#00ff00", keys
        assert lit.get("alert.manager", {}).get("color") != "#00ff00", keys
        for name in POINT_LAMPS:
            assert lit.get(name, {}).get("color") != "#ffffff", (keys, name)
        assert one(replies[5])["error"].startswith("that hand has moved on: record %d," % moved), keys
        assert [e["kind"] for e in one(replies[6])["events"]] == kinds


def test_a_top_award_hold_flashes_the_progressives_lamps(tmp_path):
    replies = both(
        tmp_path,
        [
            "keys " + MEA_TOP,
            "wait 5000",
            clear(1, 1, seq=MEA_SEQ, alert="T1-j1-11-top_award"),
            "wait 600",
            request(2, "status"),
        ],
    )
    assert one(replies[2]) == {"id": 1, "ok": True, "seq": MEA_SEQ + 1}
    lit = lamps(replies[4])
    assert lit["alert.floor"] == GREEN and lit["alert.manager"] == GREEN
    for n in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12):  # the ten numbers it won with, dark again in the new cycle
        assert lit["mea.%d" % n] == {"on": True, "color": "#ffffff", "blink": True}, n  # in turn with dark
    assert lit["mea.open"]["color"] == "#ffffff" and lit["mea.open"]["alt"] == "#00ff00"


def test_verified_pay_survives_a_power_cut_and_a_hold_can_be_cleared_after_one(tmp_path):
    # Cleared, then the power cut: restored from the journal, lit again, and a
    # second clearance is refused.
    cleared = tmp_path / "cleared"
    cleared.mkdir()
    first = session("cpython", cleared, ["keys " + TO_SIXTH_POINT, clear(1, 1)])
    assert json.loads(first[1][0])["seq"] == 14
    for which in ("cpython", "micropython"):
        again = session(which, cleared, ["wait 5000", request(2, "status"), clear(3, 2 if which == "cpython" else 3)])
        assert_verified_pay(json.loads(again[1][0])["lamps"])
        assert json.loads(again[2][0])["error"] == "already verified"
    # Raised, then the power cut (and a snapshot-bearing record after the HOLD:
    # a configuration stored over the link), then cleared: the restore found the HOLD.
    raised = tmp_path / "raised"
    raised.mkdir()
    config = {"offered": ["fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up"]}
    first = session(
        "cpython", raised, ["keys " + TO_SIXTH_POINT, signed(1, "config_set", 1, config=config), "wait 5000"]
    )
    assert json.loads(first[1][0])["ok"], first
    replies = session(
        "micropython", raised, [request(2, "events", since=13), clear(3, 2), "wait 600", request(4, "status")]
    )
    kinds = [e["kind"] for e in json.loads(replies[0][0])["events"]]
    assert kinds == ["config", "restart"]  # the HOLD's roll, then records carrying the state
    assert json.loads(replies[1][0]) == {"id": 3, "ok": True, "seq": 16}
    assert_verified_pay(json.loads(replies[3][0])["lamps"])


def test_host_tools_log_reads_the_kind_22_record_off_the_flash(tmp_path):
    # `python -m host_tools log` verifies the journal's files with the board's key
    # and writes the clearance by name, its payload as JSON.
    session("cpython", tmp_path, ["keys " + TO_SIXTH_POINT, clear(1, 1)])
    records, _ = journal_log.verify_files(_files(tmp_path / "journal"), mac=MAC)
    item = journal_log.record_dict(records[-1])
    assert (item["seq"], item["kind"], item["arg"]) == (14, "verified", HOLD_SEQ)
    assert item["payload"] == {"alert": ALERT, "by": "ann", "seq": HOLD_SEQ}
    # `monitor` says it in words, from the record as the link pushes it.
    from host_tools.monitor import TableCopy

    pushed = {"event": "verified", "seq": 14, "t": 9800, "arg": HOLD_SEQ, "payload": records[-1].payload.hex()}
    (line,) = TableCopy(records[:-1]).lines(pushed)
    assert line.endswith("#14 HOLD of record 13 cleared by ann: verified — pay")


def test_the_clearance_record_carries_the_holds_seq_in_16_bits():
    """docs/journal.md, kind 22: its arg is the HOLD's seq in 16 bits (the payload
    names it whole), so a HOLD past record 32,767 and one past 65,535 keep theirs."""
    from types import SimpleNamespace

    from crapsboard.link import link_verified

    for seq, arg in ((40_000, 40_000), (70_000, 70_000 - 65_536)):
        written = []
        app = SimpleNamespace(
            journal=SimpleNamespace(journal_id=1, seq=seq),
            hold=SimpleNamespace(journal=1, seq=seq, wagers=1, verified=False),
            record=lambda kind, a, t, payload, out=written: out.append((kind, a, payload)) or True,
        )
        handlers = SimpleNamespace(app=app, now=lambda: 0)
        request = {"by": "ann", "alert": "T1-fire_6", "journal": 1, "seq": seq}
        assert link_verified.verified(handlers, request) == {"seq": seq}
        assert written == [(22, arg, b'{"alert":"T1-fire_6","by":"ann","seq":%d}' % seq)]
