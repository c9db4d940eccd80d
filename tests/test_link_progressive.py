"""The link's `progressive` (crapsboard/link/link_progressive.py, docs/progressive.md):
the floor's meter sent down by the table's gateway, signed with the board's key
like `time`, on a running app with its journal, under both runtimes (the same
bytes): the refusals, the amount in currency in `status`, the count of wagers
taken only while the meter is open, closed again 6 s after the last request,
PENDING on the lamps (tests/vm/link_app_session.py, as tests/test_link_app.py)."""

from test_link_app import both, one, request, signed

UNIX = 1763900000
BLUE = {"on": True, "color": "#0040ff", "blink": False}


def meter(rid, ctr, game="MEA", state="open", amount=3779094, at=UNIX, **more):
    return signed(rid, "progressive", ctr, game=game, state=state, amount=amount, at=at, **more)


def test_the_meter_opens_the_count_shows_its_amount_and_closes_after_6_s(tmp_path):
    replies = both(
        tmp_path,
        [
            "keys # 1 5 #",  # 0: no floor heard: refused
            request(1, "status"),
            request(2, "progressive", game="MEA", state="open", amount=1, at=UNIX),  # not signed
            meter(3, 1, game="XYZ"),
            meter(4, 2, state="paid"),
            meter(5, 3, amount=-1),
            meter(6, 4),  # 6: taken
            meter(7, 4),  # replayed
            "keys # 1 5 #",  # 8
            request(8, "status"),
            "wait 6000",  # 10: no request for 6 s
            request(9, "status"),
            "keys # 1 2 #",  # 12: closed: refused
            meter(10, 5, state="pending", amount=100000),
            "wait 600",
            request(11, "status"),  # 15
            signed(12, "time", 6, unix=UNIX + 100),
            meter(13, 7, at=UNIX + 90),  # 17: older than 6 s by the board's clock
            meter(14, 8, at=UNIX + 99),
        ],
    )
    assert "progressive" not in one(replies[1])  # no floor, no wagers: status as before
    errors = [one(replies[i])["error"] for i in range(2, 6)]
    assert errors == [
        "signed command: needs ctr (a counter) and tag",
        "game must be MEA or FUP",
        "state must be closed, open, locked or pending",
        "amount must be 0 to 1000000000000 cents",
    ]
    assert one(replies[6]) == {"id": 6, "ok": True, "game": "MEA", "state": "open", "amount": "$37,790.94"}
    assert one(replies[7])["error"] == "replayed or old counter: last accepted is 4"
    status = one(replies[9])
    assert status["progressive"]["MEA"] == {"state": "open", "amount": "$37,790.94", "cents": 3779094, "wagers": 5}
    no_word = "no word from the floor for 6 s"
    assert status["progressive"]["FUP"] == {
        "state": "closed",
        "amount": "$0.00",
        "cents": 0,
        "wagers": 0,
        "closed": no_word,
    }
    assert status["lamps"]["mea.open"] == BLUE
    status = one(replies[11])
    assert status["progressive"]["MEA"] == {
        "state": "closed",
        "amount": "$37,790.94",
        "cents": 3779094,
        "wagers": 5,
        "closed": no_word,
    }
    status = one(replies[15])
    assert status["progressive"]["MEA"] == {"state": "pending", "amount": "$1,000.00", "cents": 100000, "wagers": 5}
    assert one(replies[17])["error"] == "stale meter: sent at %d, the board's clock is %d" % (UNIX + 90, UNIX + 100)
    assert one(replies[18])["state"] == "open"


def test_a_count_is_taken_only_while_the_meter_is_open(tmp_path):
    replies = both(
        tmp_path,
        [
            "keys # 2 3 #",
            meter(1, 1, game="FUP", state="locked", amount=5),
            "keys # 2 3 #",
            meter(2, 2, game="FUP", amount=5),
            "keys # 2 3 #",
            request(3, "events", since=1),
            request(4, "status"),
        ],
    )
    kinds = [(e["kind"], e["arg"]) for e in one(replies[5])["events"]]
    assert kinds == [("prog_wager", 3)]  # the two refusals (prog_closed) are not journalled
    assert one(replies[6])["progressive"]["FUP"]["wagers"] == 3


def test_the_pay_rule_and_the_reason_closed_are_checked_kept_and_stated(tmp_path):
    why = "table plays PT-BJS-FUP-03, meter is on PT-BJS-FUP-01"
    replies = both(
        tmp_path,
        [
            meter(1, 1, game="FUP", amount=100000, rule="shared"),  # 0: taken
            request(2, "status"),
            meter(3, 2, game="FUP", state="closed", amount=100000, rule="shared", why=why),  # 2: taken
            request(4, "status"),
            meter(5, 3, game="FUP", amount=7, rule="equal"),  # 4
            meter(6, 4, game="FUP", amount=7, rule="shared", why="lost"),  # a reason for an open meter
            meter(7, 5, game="FUP", state="closed", amount=7, why=""),
            meter(8, 6, game="FUP", state="closed", amount=7, why="x" * 61),
            meter(9, 7, game="FUP", state="closed", amount=7, why="caf\u00e9"),
            meter(10, 8, game="FUP", state="closed", amount=7, why="line\nbreak"),
            meter(11, 9, game="FUP", state="closed", amount=7, rule=1),  # 10
            request(12, "status"),  # 11: as at 2, every refusal above changed nothing
            meter(13, 10, game="MEA", amount=100000, rule="positional"),  # 12
            meter(14, 11, game="FUP", state="closed", amount=100000),  # 13: an older gateway: no rule, no reason
            request(15, "status"),
            meter(16, 12, game="FUP", state="closed", amount=100000, why="x" * 60),  # 15: the longest reason
        ],
    )
    assert one(replies[0])["state"] == "open"
    fup = one(replies[1])["progressive"]["FUP"]
    assert fup["pays"] == "shared by winning wagers" and "closed" not in fup
    assert one(replies[2])["state"] == "closed"
    before = one(replies[3])["progressive"]
    assert before["FUP"] == {
        "state": "closed",
        "amount": "$1,000.00",
        "cents": 100000,
        "wagers": 0,
        "pays": "shared by winning wagers",
        "closed": why,
    }
    errors = [one(replies[i])["error"] for i in range(4, 11)]
    assert errors == [
        "rule must be shared or positional",
        "why is given for a closed meter only",
        "why must be 1 to 60 printable ASCII characters",
        "why must be 1 to 60 printable ASCII characters",
        "why must be 1 to 60 printable ASCII characters",
        "why must be 1 to 60 printable ASCII characters",
        "argument rule must be a string",
    ]
    assert one(replies[11])["progressive"] == before
    status = one(replies[14])["progressive"]
    assert status["MEA"]["pays"] == "each winning wager in turn" and "closed" not in status["MEA"]
    assert status["FUP"]["closed"] == "closed by the floor" and "pays" not in status["FUP"]
    assert one(replies[15])["ok"] is True
