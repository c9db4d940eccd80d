"""The floor's alert fold (host_tools/floor/alerts/book.py) on hand-worked journal sequences.

Records are built as the link's `events` gives them (seq, kind, arg, dice,
state in hex); the states are the firmware's own snapshots of a real table.
"""

import re

import pytest
from floor_journal import POINTS_IN_ORDER, Journal

import host_tools  # noqa: F401  (puts firmware/lib on the path)
from crapsboard.journal import snapshot
from crapsboard.rules import engine
from host_tools.floor.alerts import book as al
from host_tools.floor.base import words


def feed(book, table, records, now=0.0):
    raised = []
    for r in records:
        raised += book.event(table, r, now)
    return raised


def test_the_4th_point_alerts_the_floor_supervisor_and_surveillance_once():
    j = Journal()
    for d in POINTS_IN_ORDER[:7]:  # 3 points made, the 4th (8) set
        j.roll(*d)
    book = al.AlertBook()
    assert feed(book, "T1", j.records) == []
    (alert,) = book.event("T1", j.roll(6, 2), 10.0)  # the 8 made: 4th point
    assert alert.kind == "fire_4"
    assert alert.seq == 9
    assert alert.missing() == ["supervisor", "surveillance"]
    assert alert.detail == "shooter 1 made the 4th point"
    assert book.event("T1", j.roll(3, 3), 11.0) == []  # a come-out 6: nothing
    # The same record delivered again (QoS 1 is at least once): no second alert.
    assert book.event("T1", j.records[8], 12.0) == []
    assert len(book.alerts) == 1


def test_each_of_4th_5th_6th_points_raises_its_alert_with_its_roles():
    j = Journal()
    for d in POINTS_IN_ORDER:
        j.roll(*d)
    book = al.AlertBook()
    raised = feed(book, "T2", j.records)
    assert [(a.kind, a.seq, a.required, a.hold) for a in raised] == [
        ("fire_4", 9, ("supervisor", "surveillance"), False),
        ("fire_5", 11, ("shift_manager",), False),
        ("fire_6", 13, ("surveillance",), True),
    ]


def test_undo_of_the_4th_point_and_the_same_point_made_again_raises_no_second_alert():
    j = Journal()
    t = engine.Table()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
        t.roll(*d)
    t.undo()  # the board's own undo; the record carries the state after it
    j.add("undo", 0, state=snapshot.dumps(t, j.seq + 1).hex())
    j.roll(6, 2)
    book = al.AlertBook()
    raised = feed(book, "T1", j.records)
    assert [a.kind for a in raised] == ["fire_4"]
    assert raised[0].seq == 9


def test_a_new_shooter_reaching_the_4th_point_gets_an_alert_of_their_own():
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    j.roll(3, 4)  # a come-out 7 after the 8 made: the same shooter
    j.roll(2, 2)  # point 4
    j.roll(3, 4)  # seven-out: shooter 2 takes the dice
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    raised = feed(al.AlertBook(), "T1", j.records)
    assert [(a.kind, a.detail) for a in raised] == [
        ("fire_4", "shooter 1 made the 4th point"),
        ("fire_4", "shooter 2 made the 4th point"),
    ]


def test_acknowledgements_who_role_when_note_and_the_alert_closes_when_both_roles_have():
    j = Journal()
    for d in POINTS_IN_ORDER[:8]:
        j.roll(*d)
    book = al.AlertBook()
    (alert,) = feed(book, "T1", j.records, now=100.0)
    book.acknowledge(alert.id, "ann", "surveillance", 130.0, note="cameras on T1")
    assert alert.open
    assert alert.missing() == ["supervisor"]
    book.acknowledge(alert.id, "bob", "supervisor", 140.0)
    assert not alert.open
    assert alert.acks == [
        {"user": "ann", "role": "surveillance", "for_role": "surveillance", "at": 130.0, "note": "cameras on T1"},
        {"user": "bob", "role": "supervisor", "for_role": "supervisor", "at": 140.0, "note": ""},
    ]
    assert [e["action"] for e in book.audit] == ["raised", "acknowledged", "acknowledged"]


def test_a_role_acknowledging_what_is_not_its_own_is_refused_and_logged():
    j = Journal()
    for d in POINTS_IN_ORDER:
        j.roll(*d)
    book = al.AlertBook()
    hold = feed(book, "T1", j.records)[-1]
    assert hold.kind == "fire_6"
    with pytest.raises(al.Refused) as e:
        book.acknowledge(hold.id, "bob", "supervisor", 5.0, note="pay it")
    assert str(e.value) == (
        "alert T1-13-fire_6 (HOLD: 6th Fire Bet point) is for the surveillance, not the floor supervisor"
    )
    assert hold.open
    assert book.audit[-1] == {
        "at": 5.0,
        "action": "refused",
        "alert": "T1-13-fire_6",
        "user": "bob",
        "role": "supervisor",
        "note": "pay it",
        "reason": str(e.value),
    }
    with pytest.raises(al.Refused):
        book.acknowledge(hold.id, "tom", "technician", 6.0)
    book.acknowledge(hold.id, "ann", "surveillance", 7.0, note="payoffs equal wagers")
    with pytest.raises(al.Refused, match="already acknowledged"):
        book.acknowledge(hold.id, "ann", "surveillance", 8.0)
    assert [e["action"] for e in book.audit].count("refused") == 3


def test_escalation_after_the_configured_time_then_the_shift_manager_may_acknowledge_but_never_a_hold():
    j = Journal()
    for d in POINTS_IN_ORDER:
        j.roll(*d)
    book = al.AlertBook(escalate_after=60.0)
    fire4, fire5, hold = feed(book, "T1", j.records, now=1000.0)
    book.acknowledge(fire4.id, "ann", "surveillance", 1010.0)
    with pytest.raises(al.Refused):
        book.acknowledge(fire4.id, "sam", "shift_manager", 1020.0)  # not escalated yet
    assert book.tick(1059.9) == []
    book.acknowledge(fire5.id, "sam", "shift_manager", 1030.0)
    assert book.tick(1060.0) == [fire4, hold]  # fire5 was acknowledged in time
    assert fire4.escalations == 1 and fire4.as_dict()["told"] == ["shift_manager"]
    assert book.tick(1119.9) == []
    assert book.tick(1120.0) == [fire4, hold]  # again, a period after the last
    assert hold.escalations == 2
    book.acknowledge(fire4.id, "sam", "shift_manager", 1121.0, note="for the floor supervisor")
    assert fire4.acks[-1]["for_role"] == "supervisor"
    assert not fire4.open
    with pytest.raises(al.Refused):
        book.acknowledge(hold.id, "sam", "shift_manager", 1122.0)
    assert hold.open


def test_restart_gap_offline_and_recorder_findings_go_to_the_floor_supervisor():
    j = Journal()
    j.roll(2, 2)
    j.add("restart", 1)
    j.roll(3, 1)
    book = al.AlertBook()
    records = j.records
    raised = feed(book, "T3", records[:3])
    assert [(a.kind, a.seq, a.detail) for a in raised] == [
        ("restart", 3, "the board came back after a reset: power-on or brown-out (PWRON_RESET)")
    ]
    skipped = dict(records[3], seq=7)  # records 4-6 never arrived
    (gap,) = book.event("T3", skipped, 1.0)
    assert (gap.kind, gap.detail, gap.required, gap.told) == (
        "gap",
        "records 4 to 6 never reached the floor",
        ("supervisor",),
        ("technician",),
    )
    assert book.presence("T3", True, 2.0) == []
    (off,) = book.presence("T3", False, 3.0)
    assert off.kind == "offline"
    assert book.presence("T3", False, 4.0) == []  # still offline: the same alert
    assert book.presence("T3", True, 5.0) == []
    assert [a.kind for a in book.presence("T3", False, 6.0)] == ["offline"]
    (broken,) = book.finding("T3", "chain_broken", 7.0, seq=8, detail="record 8 breaks the chain")
    assert broken.missing() == ["supervisor"]
    with pytest.raises(ValueError):
        book.finding("T3", "sunspots", 8.0)


def test_a_progressive_top_award_is_a_hold():
    # Make 'Em All Progressive pays the meter when all of 2-6 and 8-12 are rolled
    # before a 7: point 4 set, then every other total, then the 4.
    j = Journal()
    j.roll(2, 2)
    for d in [(1, 1), (1, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6), (1, 3)]:
        j.roll(*d)
    raised = feed(al.AlertBook(), "T4", j.records)
    assert [(a.kind, a.hold, a.detail) for a in raised] == [("top_award", True, "mea_progressive pays the meter")]


def test_a_record_the_fold_cannot_play_is_an_alert_not_a_crash():
    j = Journal()
    bad = j.add("roll", 0, dice=["x", 2])
    book = al.AlertBook()
    raised = feed(book, "T5", j.records)
    assert [a.kind for a in raised] == ["bad_record"]
    assert raised[0].seq == bad["seq"]


def test_hands_group_rolls_by_shooter_with_the_engines_resolutions():
    from host_tools.floor.alerts import hands

    j = Journal()
    for d in [(2, 2), (3, 1), (5, 5), (3, 4)]:  # point 4 made (Fire 1 point), point 10, seven-out
        j.roll(*d)
    j.roll(6, 5)  # shooter 2's come-out 11
    j.add("end_hand", 0)
    pairs = [(r, 1000.0 + r["seq"]) for r in j.records]
    got = hands.hands(pairs)
    assert [(h["shooter"], h["first_seq"], h["last_seq"], h["ended"]) for h in got] == [
        (1, 2, 5, "seven-out"),
        (2, 6, 7, "end hand"),
    ]
    seven_out = got[0]["rolls"][-1]
    assert (seven_out["dice"], seven_out["total"], seven_out["point"]) == ([3, 4], 7, None)
    fire = [r for r in seven_out["resolved"] if r["wager"] == "fire"]
    assert (fire[0]["level"], fire[0]["outcome"]) == (1, "loss")  # one point made pays nothing
    assert hands.select(got, since=1006.5) == [got[1]]
    assert hands.select(got, until=1005.0) == [got[0]]
    assert hands.select(got, shooter=2) == [got[1]]
    lines = hands.csv_text([got[0]]).splitlines()
    assert lines[0] == "shooter,seq,time,time_from,die1,die2,total,point,fire_points,resolved"
    # No `time` record: each roll's time is when the floor received it, said to be the host's estimate.
    stamp = words.when(1002.0)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", stamp)  # ISO 8601 with the zone
    assert lines[1] == "1,2,%s,host estimate,2,2,4,4,0,Fired Up loss" % stamp  # as the engine resolves it
    assert lines[4].startswith("1,5,%s,host estimate,3,4,7,,0,Fire Bet loss;" % words.when(1005.0))
    assert len(lines) == 5


def test_a_rolls_time_is_the_boards_once_its_clock_is_set_until_it_restarts():
    from host_tools.floor.alerts import hands

    j = Journal()
    j.roll(2, 2)  # t 2000: before the clock was set
    j.add("time", 0, unix=1_800_000_000)  # t 3000: the gateway set the board's wall clock
    j.roll(3, 1)  # t 4000: one second of the board's clock later
    j.add("restart", 1)  # the journal clock counts no time off: the wall clock is lost
    j.roll(4, 4)
    pairs = [(r, 1_900_000_000.0 + r["seq"]) for r in j.records]
    rolls = hands.hands(pairs)[0]["rolls"]
    assert [(r["seq"], r["time"], r["time_from"]) for r in rolls] == [
        (2, 1_900_000_002.0, "host estimate"),
        (4, 1_800_000_001.0, "board"),
        (6, 1_900_000_006.0, "host estimate"),
    ]
    lines = hands.csv_text(hands.hands(pairs)).splitlines()
    assert lines[2].startswith("1,4,%s,board,3,1," % words.when(1_800_000_001.0))
    win = [r for r in rolls[-1]["resolved"] if r["outcome"] == "win"]
    assert words.resolution({"wager": "fire", "outcome": "win", "level": 4, "pays": "25 for 1"}) == (
        "Fire Bet win at level 4, pays 25 for 1"
    )
    assert all(words.resolution(r).split()[0] in ("Fire", "All", "Make", "MEA", "Fired") for r in win)


def test_hands_of_a_second_journal_start_from_its_own_fresh_table():
    from host_tools.floor.alerts import hands

    first, second = Journal(), Journal(journal_id=2)
    for d in [(2, 2), (3, 4)]:  # point 4, seven-out: shooter 2 next
        first.roll(*d)
    second.roll(5, 5)  # the new journal's first roll: shooter 1 again, point 10
    pairs = [(r, 1.0) for r in first.records + second.records]
    got = hands.hands(pairs)
    assert [(h["shooter"], h["first_seq"], h["ended"]) for h in got] == [(1, 2, "seven-out"), (1, 2, "")]
    assert got[1]["rolls"][0]["point"] == 10
