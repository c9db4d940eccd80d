"""The link's commands on a running app (crapsboard/link/link_app.py, docs/link.md):
each reply against the protocol text, on a SimBoard whose journal, config.json,
counter and markers live in a real directory, under both runtimes
(tests/vm/link_app_session.py). The runtimes must send the same bytes, but
for `free_heap` (the VM's gc.mem_free; CPython has none)."""

import hashlib
import hmac
import json
import os

import vm_program
from conftest import ROOT

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import journal_log, keys

SCRIPT = "tests/vm/link_app_session.py"
KEY = b"k" * 32  # tests/vm/link_app_session.py's board key
MAC = jr.Mac(jread.journal_key(KEY))  # its journal key: the keyed chain
RUNTIMES = ["cpython", "micropython"]


def session(which, directory, commands):
    """Run the commands; a list of what the board sent for each (a list of lines).
    The VM gets 1 MB: this harness loads the simulator's modules from source,
    which scatters its heap far more than the board's precompiled boot (the
    board's figures are tests/test_board_main.py's)."""
    text = "".join(c + "\n" for c in commands)
    out = vm_program.run(which, SCRIPT, [str(directory)], "1M", input=text, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    chunks = out.stdout.split("--\n")
    assert chunks[-1] == ""
    return [[line for line in chunk.split("\n") if line] for chunk in chunks[:-1]]


def both(tmp_path, commands):
    """The same session under both runtimes: the replies (parsed) of CPython's,
    after checking the VM sent the same lines (free_heap aside)."""
    results = []
    for which in RUNTIMES:
        d = tmp_path / which
        d.mkdir()
        results.append(session(which, d, commands))
    assert _masked(results[0]) == _masked(results[1])
    return [[_parse(line) for line in chunk] for chunk in results[0]]


def _masked(chunks):
    return [[_mask(line) for line in chunk] for chunk in chunks]


def _mask(line):
    if line.startswith("{"):
        obj = json.loads(line)
        obj.pop("free_heap", None)
        return json.dumps(obj)
    return line


def _parse(line):
    return json.loads(line) if line.startswith("{") else line


def request(rid, cmd, **args):
    return "> " + json.dumps(dict(id=rid, cmd=cmd, **args))


def signed(rid, cmd, ctr, key=KEY, **args):
    """The request signed as its role signs it: `key` is the board's link key, the tag is under
    the key of `cmd`'s role (host_tools.keys.command_key; docs/link.md, "Keys")."""
    req = dict(id=rid, cmd=cmd, ctr=ctr, **args)
    body = json.dumps(req, sort_keys=True, separators=(",", ":")).encode()
    req["tag"] = hmac.new(keys.command_key(key, cmd), body, hashlib.sha256).hexdigest()
    return "> " + json.dumps(req)


def one(chunk):
    assert len(chunk) == 1, chunk
    return chunk[0]


# ---- hello and status -------------------------------------------------------------------


def test_hello_reports_the_board_the_firmware_the_boot_and_the_journal(tmp_path):
    manifest = {"version": "v0.3.0-12-gabc", "hash": "ab" * 32, "files": {"lib/crapsboard/table/app.mpy": "cd" * 32}}
    for which in RUNTIMES:
        (tmp_path / which).mkdir()
        (tmp_path / which / "firmware.json").write_text(json.dumps(manifest))
    replies = {}
    for which in RUNTIMES:
        replies[which] = json.loads(session(which, tmp_path / which, [request(1, "hello")])[0][0])
    hello = replies["cpython"]
    # The head signed with the journal key, as a host holding the board's key checks it.
    text = b"crapsboard head 73696d626f617264 1 1 " + chain_after(tmp_path / "cpython" / "journal", 1).encode()
    signed_tag = hmac.new(jread.journal_key(KEY), text, hashlib.sha256).hexdigest()
    assert hello == {
        "id": 1,
        "ok": True,
        "protocol": 1,
        "line_max": 1024,
        "ctr": 0,
        "firmware": "v0.3.0-12-gabc",
        "firmware_hash": None,  # measured by main.py at power-up (tests/test_board_main_link.py), not here
        "firmware_declared": "ab" * 32,  # what firmware.json says
        "board": "73696d626f617264",
        "uptime_ms": 0,
        "reset_cause": 1,
        "boot_count": 4,
        "last_error": "MemoryError: test",
        "free_heap": None,  # CPython has no gc.mem_free
        "journal": {"id": 1, "seq": 1, "first": 1, "fault": None, "received": None},  # the journal start record
        "head": {"journal": 1, "seq": 1, "hash": chain_after(tmp_path / "cpython" / "journal", 1), "tag": signed_tag},
        "unix": None,
    }
    vm = replies["micropython"]
    assert vm.pop("free_heap") > 0  # the VM's gc.mem_free()
    assert vm == {k: v for k, v in hello.items() if k != "free_heap"}


def test_hello_without_a_deploy_manifest_says_null(tmp_path):
    hello = one(both(tmp_path, [request(1, "hello")])[0])
    assert hello["firmware"] is None and hello["firmware_hash"] is None and hello["firmware_declared"] is None


def test_status_is_the_table_the_lamps_and_the_configuration(tmp_path):
    # 3-3: the come-out 6 is the point; 2-2: a 4, no decision.
    replies = both(tmp_path, ["keys 3 3 2 2", "wait 100", request(1, "status")])
    status = one(replies[2])
    assert status["status"] == "ready" and status["pending"] is None and status["supervisor"] is False
    assert status["hand"] == {"shooter": 1, "point": 6, "fire_points": [], "rolls": 2}
    state = status["state"]
    assert (state["rolls"], state["shooter"], state["point"], state["fire_points"]) == (2, 1, 6, [])
    assert state == _sim_state("3 3 2 2")  # the same rule state `sim run` reports
    lamps = status["lamps"]
    assert lamps["status"] == {"on": True, "color": "#00ff00", "blink": False}  # ready: green
    assert lamps["point.6"]["on"] is True
    assert "point.4" not in lamps and "point.off" not in lamps  # only lamps that are on
    assert status["config"]["paytables"]["fire"] == "1" and status["config"]["supervisor_pin"] is None


def _sim_state(script):
    from sim.portable.run_core import Driver

    driver = Driver(os.path.join(ROOT, "hardware", "board.json"))
    pieces = []
    driver.begin(pieces.append)
    driver.run(script)
    driver.end()
    return json.loads("".join(pieces))["state"]


# ---- events and subscribe --------------------------------------------------------------------

ROLLS = "3 3 2 2 1 5 4 4 6 6 1 1 2 5 3 4 5 5 6 2 1 2 3 3"  # 12 rolls: records 2..13


def test_events_page_on_exactly_and_match_the_journal_on_flash(tmp_path):
    commands = ["keys " + ROLLS]
    commands += [request(10 + i, "events", since=since, limit=3) for i, since in enumerate((0, 3, 6, 9, 12))]
    commands += [
        request(20, "events", since=5, limit=8),
        request(21, "events", since=13),
        request(22, "events", since=0, limit=9),
    ]
    replies = both(tmp_path, commands)
    pages = [one(c) for c in replies[1:6]]
    assert [p["next"] for p in pages] == [3, 6, 9, 12, 13]
    assert [p["more"] for p in pages] == [True, True, True, True, False]
    events = [e for p in pages for e in p["events"]]
    assert [e["seq"] for e in events] == list(range(1, 14))  # nothing lost, nothing twice
    assert events[1]["kind"] == "roll" and events[1]["dice"] == [3, 3] and events[1]["arg"] == 3 * 8 + 3
    # The host verifies the chain itself: each record re-encoded from its
    # fields after the previous one's hash must give the link the board sent.
    head = (tmp_path / "cpython" / "journal" / "head").read_bytes()
    assert pages[0]["head"] == head.hex()
    assert pages[0]["prev"] == jr.genesis(head).hex()
    chain = jr.genesis(head)
    for e in events:
        kind = {name: k for k, name in jread.KIND_NAMES.items()}[e["kind"]]
        state, payload = (
            bytes.fromhex(e.get("state", "")),
            bytes.fromhex(e.get("payload", "")),
        )
        record, chain = jr.encode(chain, e["seq"], e["t"], kind, e["arg"], state, payload, MAC)
        assert record[-20:-12].hex() == e["link"] and record[-12:-4].hex() == e["mac"]
    # The same records as the host tool reads from the journal's files, the keyed chain checked.
    records, summary = journal_log.verify_files(_files(tmp_path / "cpython" / "journal"), mac=MAC)
    assert summary.endswith("; keyed chain verified with the Mac given")
    assert [dict(e) for e in events] == [
        dict(journal_log.record_dict(r), link=e["link"], mac=r.mac.hex()) for r, e in zip(records, events)
    ]
    assert len(records) == 13
    # resuming anywhere gives the same records
    middle = one(replies[6])
    assert [e["seq"] for e in middle["events"]] == list(range(6, 14)) and middle["more"] is False
    assert "head" not in middle
    end = one(replies[7])
    assert end["events"] == [] and end["next"] == 13 and end["more"] is False
    assert one(replies[8]) == {"id": 22, "ok": False, "error": "limit must be 1 to 8"}


def _files(directory):
    """The journal's files by name, as host_tools' read_journal_files gives them ("odd/s1", ...)."""
    files = {}
    for name in os.listdir(directory):
        if name == jr.ODD_DIR:
            for odd in os.listdir(directory / name):
                files[name + "/" + odd] = (directory / name / odd).read_bytes()
        else:
            files[name] = (directory / name).read_bytes()
    return files


def test_subscribe_pushes_the_events_the_journal_holds(tmp_path):
    replies = both(
        tmp_path,
        [
            "keys 3 3",
            request(1, "subscribe", on=True),
            "keys 2 2 key:on undo key:off",
            request(2, "subscribe", on=False),
            "keys 1 5",
            request(3, "events", since=2, limit=8),
        ],
    )
    assert one(replies[1]) == {"id": 1, "ok": True, "on": True}
    pushed = replies[2]
    assert [p["event"] for p in pushed] == ["roll", "supervisor_on", "undo", "supervisor_off"]
    assert one(replies[3]) == {"id": 2, "ok": True, "on": False}
    assert replies[4] == []  # unsubscribed: nothing pushed
    journal = one(replies[5])["events"]
    assert [e["seq"] for e in journal] == [3, 4, 5, 6, 7]
    as_records = [dict({k: v for k, v in p.items() if k != "event"}, kind=p["event"]) for p in pushed]
    assert as_records == journal[:4]  # the same records, field for field


# ---- signed commands ------------------------------------------------------------------------

FIRE_2 = {"paytables": {"fire": "2"}}


def test_config_set_is_refused_mid_cycle_with_the_rules_reason_and_nothing_changes(tmp_path):
    replies = both(tmp_path, ["keys 3 3", "state", signed(1, "config_set", 1, config=FIRE_2), "state"])
    assert one(replies[2]) == {
        "id": 1,
        "ok": False,
        "error": "paytables.fire: a fire cycle is in progress; change it when the wager is open for betting",
    }
    assert replies[1] == replies[3]  # table, journal seq and config.json (none) as they were
    assert not (tmp_path / "cpython" / "config.json.new").exists()


def test_config_set_unsigned_wrong_or_replayed_is_refused_with_nothing_changed(tmp_path):
    good = signed(2, "config_set", 5, config=FIRE_2)
    replies = both(
        tmp_path,
        [
            "state",
            request(1, "config_set", config=FIRE_2),
            signed(1, "config_set", 4, key=b"x" * 32, config=FIRE_2),
            good.replace('"fire": "2"', '"fire": "3"'),  # tampered after signing
            "state",
            good,
            good,  # replayed
            signed(3, "config_set", 5, config={"paytables": {"fire": "3"}}),  # an old counter
            request(4, "config_get"),
        ],
    )
    assert one(replies[1])["error"] == "signed command: needs ctr (a counter) and tag"
    assert one(replies[2])["error"] == "bad tag"
    assert one(replies[3])["error"] == "bad tag"
    assert replies[4] == replies[0]
    accepted = one(replies[5])
    assert accepted["ok"] is True and accepted["config"]["paytables"]["fire"] == "2"
    assert one(replies[6])["error"] == "replayed or old counter: last accepted is 5"
    assert one(replies[7])["error"] == "replayed or old counter: last accepted is 5"
    assert one(replies[8])["config"]["paytables"]["fire"] == "2"
    for which in RUNTIMES:
        stored = json.loads((tmp_path / which / "config.json").read_text())
        assert stored == FIRE_2  # as sent: config.json wins at power-up
        assert (tmp_path / which / "link_ctr").read_text() == "5"


def test_config_set_is_checked_as_config_json_and_journaled(tmp_path):
    replies = both(
        tmp_path,
        [
            signed(1, "config_set", 1, config={"paytables": {"fire": "9"}}),
            signed(2, "config_set", 2, config={"offered": ["fire"], "rebet_after_win": False}),
            request(3, "events", since=1),
        ],
    )
    assert one(replies[0])["error"].startswith('paytables.fire: "9" is not a fire paytable (one of ')
    config = one(replies[1])["config"]
    assert config["offered"] == ["fire"] and config["rebet_after_win"] is False
    assert config["paytables"]["fire"] == "1"  # keys left out take the defaults, as in config.json
    events = one(replies[2])["events"]
    assert [e["kind"] for e in events] == ["config"] and "state" in events[0]


def test_time_is_signed_and_journaled(tmp_path):
    replies = both(
        tmp_path,
        [
            request(1, "time", unix=1763900000),
            "wait 1500",
            signed(2, "time", 1, unix=1763900000),
            "wait 2000",
            request(3, "hello"),
            request(4, "events", since=1),
            signed(5, "time", 2, unix=0),
        ],
    )
    assert one(replies[0])["error"] == "signed command: needs ctr (a counter) and tag"
    set_ = one(replies[2])
    assert set_["unix"] == 1763900000 and set_["t"] == 1500 and set_["journal"]["seq"] == 2
    assert one(replies[4])["unix"] == 1763900002  # the clock runs on from the set
    record = one(replies[5])["events"][0]
    assert (record["kind"], record["t"], record["unix"]) == ("time", 1500, 1763900000)
    assert one(replies[6])["error"] == "time refused: 0 is outside 1704067200..4102444800 (2024 to 2100); journaled"


def test_time_refused_backwards_or_implausible_is_journaled_and_changes_nothing(tmp_path):
    # a signed `time` accepted a clock set backwards, or to 1970/2106.
    set_at = 1763900000
    commands = [
        signed(1, "time", 1, unix=set_at),
        "wait 10000",
        signed(2, "time", 2, unix=set_at + 10 - 61),  # 61 s before the board's clock: refused
        signed(3, "time", 3, unix=set_at + 10 - 60),  # 60 s back: within the tolerance
        request(4, "hello"),
        signed(5, "time", 4, unix=4102444801),  # 2100-01-01 + 1 s
        signed(6, "time", 5, unix=1704067199),  # 2023-12-31 23:59:59
        signed(8, "time", 6, unix=-1),  # below any u64: journaled as 0
        request(7, "events", since=1),
    ]
    replies = both(tmp_path, commands)
    assert one(replies[0])["ok"]
    assert one(replies[2])["error"] == (
        "time refused: 1763899949 is 61 s before the board's clock 1763900010 (at most 60 s back); journaled"
    )
    assert one(replies[3])["unix"] == set_at - 50
    assert one(replies[4])["unix"] == set_at - 50  # the refused sets changed nothing
    assert (
        one(replies[5])["error"]
        == "time refused: 4102444801 is outside 1704067200..4102444800 (2024 to 2100); journaled"
    )
    assert one(replies[6])["error"].startswith("time refused: 1704067199 is outside")
    assert one(replies[7])["error"] == "time refused: -1 is outside 1704067200..4102444800 (2024 to 2100); journaled"
    times = [(e["arg"], e["unix"]) for e in one(replies[8])["events"] if e["kind"] == "time"]
    assert times == [(0, set_at), (2, set_at - 51), (0, set_at - 50), (1, 4102444801), (1, 1704067199), (1, 0)]


def test_the_clock_walked_back_a_minute_at_a_time_stops_at_60_s_in_all_since_power_up(tmp_path):
    # The audit: 30 signed `time`s, each 59-60 s back, moved the clock 29.5 min back.
    set_at = 1763900000
    commands = [signed(1, "time", 1, unix=set_at)]
    for i in range(5):  # each 59 s before the clock, half a second apart
        commands += ["wait 500", signed(2 + i, "time", 2 + i, unix=set_at - 59 * (i + 1))]
    commands += [signed(7, "time", 7, unix=set_at + 60), request(8, "events", since=1)]
    replies = both(tmp_path, commands)
    assert one(replies[0])["ok"] and one(replies[2])["unix"] == set_at - 59  # 59 s back: taken
    assert one(replies[4])["error"] == (
        "time refused: 1763899882 is 59 s before the board's clock 1763899941"
        " (at most 60 s back since power-up, 59 s used); journaled"
    )
    assert all("refused" in one(replies[k])["error"] for k in (6, 8, 10))
    assert one(replies[11])["ok"]  # forwards is always taken
    times = [(e["arg"], e["unix"]) for e in one(replies[12])["events"] if e["kind"] == "time"]
    assert times[:3] == [(0, set_at), (0, set_at - 59), (2, set_at - 118)]  # every set journaled
    assert [a for a, _ in times] == [0, 0, 2, 2, 2, 2, 0]


def test_the_days_60_s_back_survive_a_power_cycle_and_renew_after_a_day_of_the_journal_clock(tmp_path):
    # The per-power-up bound alone let each power cycle take 60 s more. The
    # day's sets are counted from the journal's time records at mount.
    set_at = 1763900000
    first = [signed(1, "time", 1, unix=set_at), "wait 1000", signed(2, "time", 2, unix=set_at + 1 - 60)]
    clock = set_at - 59  # the board's clock after the second set (the journal clock runs only while on)
    again = [
        signed(3, "time", 3, unix=clock - 1),  # 1 s back more, after a power cycle: refused
        "idle 86399000",  # a day of the journal clock less a second since the 60 s back
        signed(4, "time", 4, unix=clock + 86399 - 1),  # still within that day: refused
        "idle 1000",
        signed(5, "time", 5, unix=clock + 86400 - 1),  # a day on: 1 s back is taken
        signed(6, "time", 6, unix=clock + 86399 - 60),  # 60 s more: past this power-up's 59 s left
        request(7, "events", since=1),
    ]
    sent = {}
    for which in RUNTIMES:
        board = tmp_path / which
        board.mkdir()
        before = session(which, board, first)
        assert [json.loads(one(before[k]))["ok"] for k in (0, 2)] == [True, True], before
        sent[which] = session(which, board, again)  # the same flash, powered up again
    assert _masked(sent["cpython"]) == _masked(sent["micropython"])
    replies = [[_parse(line) for line in chunk] for chunk in sent["cpython"]]
    assert one(replies[0])["error"] == (
        "time refused: %d is 1 s before the board's clock %d (at most 60 s back in a day, 60 s used); journaled"
        % (clock - 1, clock)
    )
    assert one(replies[2])["error"] == (
        "time refused: %d is 1 s before the board's clock %d (at most 60 s back in a day, 60 s used); journaled"
        % (clock + 86398, clock + 86399)
    )
    assert one(replies[4])["unix"] == clock + 86399
    assert one(replies[5])["error"] == (
        "time refused: %d is 60 s before the board's clock %d (at most 60 s back since power-up, 1 s used); journaled"
        % (clock + 86339, clock + 86399)
    )
    times = [(e["arg"], e["unix"]) for e in one(replies[6])["events"] if e["kind"] == "time"]
    assert times == [
        (0, set_at),
        (0, clock),
        (2, clock - 1),
        (2, clock + 86398),
        (0, clock + 86399),
        (2, clock + 86339),
    ]


def test_a_board_without_a_journal_refuses_a_clock_set_backwards_by_its_own_clock(tmp_path):
    # No journal to hold the wall clock: the clock set this boot is the floor.
    set_at = 1763900000
    commands = [
        signed(1, "time", 1, unix=set_at),
        "wait 10000",
        signed(2, "time", 2, unix=set_at + 10 - 61),
        signed(3, "time", 3, unix=set_at + 10 - 60),
    ]
    sent = {}
    for which in RUNTIMES:
        (tmp_path / which).mkdir()
        text = "".join(c + "\n" for c in commands)
        out = vm_program.run(which, SCRIPT, [str(tmp_path / which), "nojournal"], "1M", input=text, cwd=ROOT)
        assert out.returncode == 0, out.stdout + out.stderr
        sent[which] = out.stdout
    assert sent["cpython"] == sent["micropython"]
    replies = [json.loads(line) for line in sent["cpython"].splitlines() if line.startswith("{")]
    assert replies[0]["ok"] and replies[0]["unix"] == set_at and replies[0]["journal"] is None
    assert replies[1]["error"] == (
        "time refused: 1763899949 is 61 s before the board's clock 1763900010 (at most 60 s back)"
    )
    assert replies[2]["ok"] and replies[2]["unix"] == set_at - 50


def test_the_clock_floor_survives_a_restart_through_the_journal(tmp_path):
    board = tmp_path / "cpython"
    board.mkdir()
    first = session("cpython", board, [signed(1, "time", 1, unix=1763900000), "wait 5000"])
    assert json.loads(first[0][0])["ok"]
    # A reboot: the clock this boot is unknown, the journal's last time record is not.
    again = session("cpython", board, [signed(2, "time", 2, unix=1763800000), signed(3, "time", 3, unix=1763900000)])
    refused = json.loads(again[0][0])
    assert refused["error"].startswith("time refused: 1763800000 is 100000 s before the board's clock 176390000")
    assert json.loads(again[1][0])["ok"]


def test_a_clock_set_after_a_restart_is_stamped_with_the_journal_clock_not_the_boot_clock(tmp_path):
    # docs/link.md: `t` is the journal clock at the set, the time record's t;
    # the journal clock carries on across a restart while the boot clock starts at 0.
    board = tmp_path / "cpython"
    board.mkdir()
    first = session("cpython", board, ["wait 5000", signed(1, "time", 1, unix=1763900000)])
    assert json.loads(first[1][0])["t"] == 5000
    again = session(
        "cpython", board, ["wait 3000", signed(2, "time", 2, unix=1763900010), request(3, "events", since=1)]
    )
    set_ = json.loads(again[1][0])
    times = [e for e in json.loads(again[2][0])["events"] if e["kind"] == "time"]
    assert set_["t"] == times[-1]["t"] == 8000  # 5000 before the restart, 3000 since


def test_maintenance_writes_the_once_marker_then_resets(tmp_path):
    replies = both(tmp_path, [request(1, "maintenance"), "settle", signed(2, "maintenance", 1), "settle"])
    assert one(replies[0])["error"] == "signed command: needs ctr (a counter) and tag"
    assert replies[1] == []  # refused: no reset
    assert one(replies[2]) == {"id": 2, "ok": True, "reset_ms": 200}
    assert replies[3] == ["reset 1"]  # after the reply has gone
    assert (tmp_path / "cpython" / "maintenance").read_text() == "once"


def chain_after(directory, seq):
    """The chain hash (hex) after record `seq` of the journal in `directory`, verified."""
    records, _ = journal_log.verify_files(_files(directory), mac=MAC)
    return [r for r in records if r.seq == seq][0].hash.hex()


SESSION_BOARD = "73696d626f617264"  # the session's board id


def receipt(journal, seq, head, key=KEY):
    """The floor recorder's receipt for the session board's journal up to `seq`."""
    return keys.receipt_tag(keys.role_key(key, "receipt"), SESSION_BOARD, journal, seq, head)


def test_journal_reset_without_the_recorders_receipt_is_refused_the_audits_three_resets(tmp_path):
    # The audit: three signed journal_resets built from hello's public head, no download, all
    # accepted. Now each needs the recorder's receipt; the link key alone, the journal key, the
    # gateway's key, or a receipt for less than the whole journal make none.
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, ["keys 3 3 2 2"])
    proof = dict(journal=1, seq=3, head=chain_after(first / "journal", 3))
    args = (SESSION_BOARD, 1, 3, proof["head"])
    fakes = [
        "00" * 32,
        keys.receipt_tag(KEY, *args),  # the link key itself
        keys.receipt_tag(keys.role_key(KEY, "gateway"), *args),
        keys.receipt_tag(jread.journal_key(KEY), *args),
        receipt(1, 2, proof["head"]),  # a receipt for less than all of it
    ]
    commands = ["keys 3 3 2 2"] + [
        signed(10 + i, "journal_reset", i + 1, receipt=r, **proof) for i, r in enumerate(fakes + fakes[:1] * 2)
    ]
    replies = both(tmp_path, commands + [request(30, "hello")])
    want = (
        "journal_reset refused: no recorder's receipt for journal 1 up to record 3: the floor has not"
        " received every record"
    )
    assert [one(r)["error"] for r in replies[1:-1]] == [want] * 7
    assert one(replies[-1])["journal"]["id"] == 1
    assert not (tmp_path / "cpython" / "journal.old").exists()  # nothing erased


def test_journal_reset_starts_a_new_journal_recorded(tmp_path):
    # 3 records (journal start, two rolls); the host downloaded and verified them.
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, ["keys 3 3 2 2"])
    proof = dict(journal=1, seq=3, head=chain_after(first / "journal", 3))
    proof["receipt"] = receipt(1, 3, proof["head"])
    replies = both(
        tmp_path,
        [
            "keys 3 3 2 2",
            request(1, "journal_reset", **proof),
            signed(2, "journal_reset", 1, **proof),
            request(3, "events", since=0),
            request(4, "status"),
        ],
    )
    assert one(replies[1])["error"] == "signed command: needs ctr (a counter) and tag"
    assert one(replies[2]) == {
        "id": 2,
        "ok": True,
        "journal": {"id": 2, "seq": 1, "first": 1, "fault": None, "received": None},
    }
    page = one(replies[3])
    assert page["journal"] == 2 and [(e["kind"], e["arg"]) for e in page["events"]] == [("journal_start", 2)]
    assert page["events"][0]["payload"][:8] == "01000000"  # names journal 1 it replaces
    assert one(replies[4])["hand"]["point"] == 6  # the table carries on
    assert sorted(_files(tmp_path / "cpython" / "journal.old")) == ["downloaded", "head", "odd/s1", "s0", "s2"]


def test_a_new_journal_carries_on_the_board_clock_and_the_sets_back_it_knew(tmp_path):
    # The new journal's clock starts at 0: the wall clock known (and the sets back
    # counted against the day) are moved onto it, not read against the old clock.
    set_at = 1763900000
    sets = [signed(1, "time", 1, unix=set_at), "wait 1000", signed(2, "time", 2, unix=set_at + 1 - 30)]
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, sets)
    proof = dict(journal=1, seq=3, head=chain_after(first / "journal", 3))
    proof["receipt"] = receipt(1, 3, proof["head"])
    clock = set_at - 29
    replies = both(
        tmp_path,
        sets
        + [
            signed(3, "journal_reset", 3, **proof),
            "wait 2000",
            signed(4, "time", 4, unix=clock + 2 - 20),  # 20 s back more: 50 s in all, taken
            signed(5, "time", 5, unix=clock + 2 - 20 - 11),  # 11 s more would be 61
        ],
    )
    assert one(replies[3])["journal"]["id"] == 2
    assert one(replies[5])["unix"] == clock - 18
    assert one(replies[6])["error"] == (
        "time refused: %d is 11 s before the board's clock %d (at most 60 s back since power-up, 50 s used); journaled"
        % (clock - 29, clock - 18)
    )


def test_journal_reset_refuses_without_the_download_and_never_drops_an_unread_journal(tmp_path):
    # two signed journal_resets erased the audit trail.
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, ["keys 3 3"])
    head2 = chain_after(first / "journal", 2)
    commands = [
        "keys 3 3",
        signed(1, "journal_reset", 1, journal=1, seq=1, head=head2, receipt=receipt(1, 1, head2)),  # not the last
        signed(2, "journal_reset", 2, journal=1, seq=2, head="00" * 32, receipt=receipt(1, 2, "00" * 32)),
        "state",
        signed(3, "journal_reset", 3, journal=1, seq=2, head=head2, receipt=receipt(1, 2, head2)),  # accepted
        request(4, "hello"),
    ]
    replies = both(tmp_path, commands)
    want = "journal_reset refused: journal 1 is at record 2, chain head %s; download and verify it up to there" % head2
    assert one(replies[1])["error"] == want and one(replies[2])["error"] == want
    assert one(replies[4])["ok"] and one(replies[5])["journal"]["id"] == 2
    board = tmp_path / "cpython"
    assert (board / "journal.old" / "downloaded").read_text() == "1 2 " + head2
    # A journal.old that was never downloaded over the link (a supervisor's
    # power-up reset, an upgrade) is never dropped by the link.
    (board / "journal.old" / "downloaded").unlink()
    head = json.loads(session("cpython", board, [request(5, "hello")])[0][0])["head"]
    refused = session(
        "cpython",
        board,
        [
            signed(
                6,
                "journal_reset",
                4,
                journal=2,
                seq=head["seq"],
                head=head["hash"],
                receipt=receipt(2, head["seq"], head["hash"]),
            ),
            "state",
        ],
    )
    assert json.loads(refused[0][0])["error"].startswith(
        "journal_reset refused: journal.old, an earlier journal, was never downloaded over the link"
    )
    assert sorted(_files(board / "journal.old"))[:2] == ["head", "odd/s1"]  # still there


# ---- selftest -------------------------------------------------------------------------


def test_selftest_starts_the_lamp_walk_and_names_held_and_chattering_inputs(tmp_path):
    undo = 1 << 16  # keypad.BUTTON_SHIFT + layout.BUTTONS.index("undo")
    key1 = 1  # keypad key 0
    replies = both(
        tmp_path,
        [
            "raw %d" % undo,
            "wait 100",
            "raw %d" % (undo | key1),
            "wait 12",
            request(1, "selftest"),
            "wait 600",
            request(2, "status"),
        ],
    )
    test = one(replies[4])
    assert test["lamp_test_ms"] == 2000
    assert test["held"] == ["undo"] and test["keyswitch"] == "off"
    assert len(test["chattering"]) == 1 and test["chattering"][0].startswith("key.")
    lamps = one(replies[6])["lamps"]
    assert len(lamps) == 47  # the walk lights every lamp


def test_events_page_through_segments_and_staged_records_and_resume_anywhere(tmp_path):
    # 48 rolls: the journal start and 32 records go into segment g1 (a batch of
    # 32), the rest stay staged; pages of 8 cross from the segment into them.
    pages = [request(100 + i, "events", since=8 * i) for i in range(7)]
    resumed = [request(200, "events", since=29, limit=5), request(201, "events", since=34, limit=8)]
    replies = both(tmp_path, ["keys " + " ".join([ROLLS] * 4)] + pages + resumed)
    events = [e for c in replies[1:8] for e in one(c)["events"]]
    assert [e["seq"] for e in events] == list(range(1, 50))
    assert "g1" in os.listdir(tmp_path / "cpython" / "journal")
    records, _ = journal_log.verify_files(_files(tmp_path / "cpython" / "journal"), mac=MAC)
    assert events == [
        dict(journal_log.record_dict(r), link=e["link"], mac=r.mac.hex()) for r, e in zip(records, events)
    ]
    across = one(replies[8])
    assert [e["seq"] for e in across["events"]] == [30, 31, 32, 33, 34] and across["next"] == 34
    assert across["prev"] == records[28].hash.hex()  # the chain hash after record 29
    assert one(replies[9])["events"] == events[34:42]
    assert one(replies[9])["prev"] == records[33].hash.hex()


def test_a_clock_set_the_journal_cannot_record_is_refused_and_the_clock_stays_unset(tmp_path):
    """docs/link.md, `time`: refused with `journal could not record it: clock
    not set` when the journal is stopped; the board's clock is not set."""
    replies = both(
        tmp_path,
        ["stop-journal", signed(1, "time", 1, unix=1763900000), request(2, "hello")],
    )
    assert one(replies[1])["error"] == "journal could not record it: clock not set"
    assert one(replies[2])["unix"] is None


def test_a_journal_reset_the_board_cannot_write_is_refused_and_the_journal_goes_on(tmp_path):
    """A reset whose new journal cannot be started (here the `downloaded` mark
    cannot be written) is refused naming why, and the journal in force is kept."""
    first = tmp_path / "first"
    first.mkdir()
    session("cpython", first, ["keys 3 3 2 2"])
    proof = dict(journal=1, seq=3, head=chain_after(first / "journal", 3))
    proof["receipt"] = receipt(1, 3, proof["head"])
    replies = both(
        tmp_path,
        [
            "keys 3 3 2 2",
            "mkdir journal/downloaded",
            signed(1, "journal_reset", 1, **proof),
            request(2, "hello"),
            request(3, "status"),
        ],
    )
    error = one(replies[2])["error"]
    assert error.startswith("journal not started: ") and len(error) > len("journal not started: ")
    assert one(replies[3])["journal"]["id"] == 1 and one(replies[3])["journal"]["seq"] == 3
    assert one(replies[4])["hand"]["point"] == 6
