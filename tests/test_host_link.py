"""host_tools' side of the serial link: frames, signatures, replies and events,
paging and resume of the journal download, through real pyserial on a pty
served by the firmware's own link core (tests/pty_link.py)."""

import hashlib
import hmac
import json
import os
import re
import subprocess
import sys

import pytest
from interrupt import default_sigint
from pty_link import MAC, PtyLink, journal_events, make_records

from crapsboard.link import link as lk
from crapsboard.link import link_auth
from host_tools import HostToolError, journal_log, keys, sync
from host_tools import link as hl
from host_tools.link import BoardLink
from sim.paths import ROOT

KEY = bytes(range(32))
BOARD = "a1b2c3d4e5f6"


def docs_signing_snippet():
    """The 'A host in Python' block of docs/link.md, as code."""
    text = open(os.path.join(ROOT, "docs", "link.md"), encoding="utf-8").read()
    block = re.search(r"A host in Python:\s*```python\n(.*?)```", text, re.S).group(1)
    assert "hmac.new(key, body, hashlib.sha256)" in block
    return block


@pytest.mark.parametrize(
    "request_",
    [
        {"id": 7, "cmd": "time", "unix": 1700000000, "ctr": 1},
        {"cmd": "config_set", "id": 8, "ctr": 42, "config": {"fire": {"paytable": "B"}, "b": [1, "x"]}},
        {"id": 9, "cmd": "maintenance", "ctr": 3, "note": "caf\u00e9 \u0003"},
    ],
)
def test_the_tag_is_what_docs_link_md_and_the_board_compute(request_):
    ours = hl.sign(KEY, request_)["tag"]
    scope = {"json": json, "hmac": hmac, "hashlib": hashlib, "key": KEY, "request": dict(request_)}
    exec(docs_signing_snippet(), scope)
    assert ours == scope["request"]["tag"]
    assert ours == link_auth.sign(KEY, request_)  # the firmware's own canonical form
    assert re.fullmatch(r"[0-9a-f]{64}", ours)
    # the canonical form: sorted keys, no spaces, no tag
    assert hl.canonical(dict(request_, tag="x")) == json.dumps(request_, sort_keys=True, separators=(",", ":")).encode()


def test_a_frame_is_one_ascii_line_without_byte_3():
    line = hl.frame({"id": 1, "cmd": "ping", "data": "\x03caf\u00e9\n"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert b"\x03" not in line and max(line[:-1]) < 0x7F
    assert json.loads(line) == {"id": 1, "cmd": "ping", "data": "\x03caf\u00e9\n"}


def test_a_frame_longer_than_the_board_line_is_refused_before_sending():
    assert len(hl.frame({"id": 1, "cmd": "ping", "data": "x" * 988})) == 1025  # 1024 and the newline: fits
    with pytest.raises(HostToolError, match="request of 1025 bytes is longer than the board's 1024-byte line") as e:
        hl.frame({"id": 1, "cmd": "ping", "data": "x" * 989})
    assert e.value.code == 2


def test_lines_are_told_apart():
    assert hl.parse_line(b'{"id": 3, "ok": true}\r')[0] == "reply"
    assert hl.parse_line(b'{"event": "roll", "dice": [3, 4]}') == ("event", {"event": "roll", "dice": [3, 4]})
    assert hl.parse_line(b"crapsboard: start-up failed") == ("noise", "crapsboard: start-up failed")
    assert hl.parse_line(b">>> ")[0] == "noise"
    assert hl.parse_line(b"{not json")[0] == "noise"


def board(records=None, key=KEY, **handlers):
    handlers.setdefault("hello", lk.hello_handler("test-1", BOARD, lambda: 1234))
    if records is not None:
        handlers["events"] = journal_events(records)
    return lk.Link(handlers, key=key)


def test_request_reads_past_events_noise_and_stale_replies():
    pushed = (
        b"crapsboard: booting\r\n"
        b'{"id": null, "ok": false, "error": "bad json at column 2"}\n'
        b'{"id": 999, "ok": true}\n'
        b'{"event": "roll", "dice": [2, 5]}\n'
    )
    with PtyLink(board(), before_reply=pushed) as pty, BoardLink(pty.port) as link:
        assert link.request("ping", data="hi") == {"data": "hi"}
        assert link.events == [{"event": "roll", "dice": [2, 5]}]
        assert "crapsboard: booting" in link.noise and "refused: bad json at column 2" in link.noise
        assert link.next_event(0.2) == {"event": "roll", "dice": [2, 5]}
        assert link.next_event(0.2) is None
    assert pty.received.startswith(b"\n")  # a newline first: the board back at a line's start


def test_a_refusal_is_one_line_exit_1():
    with PtyLink(board()) as pty, BoardLink(pty.port) as link:
        with pytest.raises(HostToolError) as e:
            link.request("fly")
    assert str(e.value) == "board refused fly: unknown command: fly" and e.value.code == 1


def test_no_reply_in_time_is_exit_3_naming_the_port():
    with PtyLink(board()) as pty:
        pty.silent = True
        with BoardLink(pty.port, timeout=0.3) as link:
            with pytest.raises(HostToolError) as e:
                link.hello()
    assert e.value.code == 3
    assert str(e.value).startswith("no reply to hello from %s within 0.3 s" % pty.port)


def test_signed_requests_count_up_from_hello_and_a_replay_is_refused():
    times = []

    def set_time(request):
        times.append(request["unix"])
        return {}

    with PtyLink(board(time=set_time)) as pty, BoardLink(pty.port) as link:
        link.signed("time", KEY, unix=100)
        link.signed("time", KEY, unix=200)
        assert link.hello()["ctr"] == 2
        sent = [json.loads(line) for line in pty.received.split(b"\n") if b'"time"' in line]
        assert [r["ctr"] for r in sent] == [1, 2]
        with pytest.raises(HostToolError, match="replayed or old counter: last accepted is 2") as e:
            link._send(sent[0], 2)  # the first request, sent again word for word
        assert e.value.code == 1
        with pytest.raises(HostToolError, match="board refused time: bad tag"):
            link.signed("time", bytes(32), unix=300)
    assert times == [100, 200]


def test_a_refusal_the_board_could_not_give_an_id_is_named_as_the_board_s_not_no_board():
    with PtyLink(board()) as pty, BoardLink(pty.port, timeout=0.5) as link:
        with pytest.raises(HostToolError) as e:
            link.request("ping", data=10**19)  # 20 digits: the board cannot read the line's id
    assert str(e.value).startswith("board refused ping: number longer than 18 digits at column ")
    assert e.value.code == 1


def test_a_used_up_counter_is_named_as_the_board_s_not_no_board():
    # A board from before the bounded step, whose counter someone used up.
    store = lk.CounterMemory()
    store.value = 10**18 - 1
    link_ = lk.Link({"hello": lk.hello_handler("t", BOARD, lambda: 1), "time": lambda r: {}}, KEY, store)
    with PtyLink(link_) as pty, BoardLink(pty.port, timeout=0.5) as link:
        with pytest.raises(HostToolError) as e:
            link.signed("time", KEY, unix=1763900000)
    assert str(e.value).startswith("board's counter 999999999999999999 is at the link's 18-digit limit")
    assert e.value.code == 1


# ---- the journal download --------------------------------------------------------------


def test_paged_download_gives_the_records_and_lines_of_the_image_reader():
    records = make_records(21)
    got = []
    with PtyLink(board(records)) as pty, BoardLink(pty.port) as link:
        summary, last, chain = sync.download(link, 0, 4, got.extend)
    assert [r.seq for r in got] == list(range(1, 22)) and last == 21
    assert chain.hex() == _hash_after(records[-1]) and summary.startswith("records 1-21 verified, chain head ")
    assert summary.endswith(got[-1].hash.hex())
    asked = [json.loads(line) for line in pty.received.split(b"\n") if b'"events"' in line]
    assert [a["since"] for a in asked] == [0, 4, 8, 12, 16, 20]
    assert all(a["limit"] == 4 for a in asked)
    jsonl = sync.format_records(got, "jsonl", True)
    assert [json.loads(line)["seq"] for line in jsonl.splitlines()] == list(range(1, 22))
    first = json.loads(jsonl.splitlines()[0])
    assert first == {
        "seq": 1,
        "t": 1000,
        "kind": "roll",
        "arg": records[0][1][11] | records[0][1][12] << 8,
        "dice": [2, 6],
    }
    csv_pages = sync.format_records(got[:2], "csv", True) + sync.format_records(got[2:], "csv", False)
    assert csv_pages.splitlines()[0] == "seq,t,kind,arg,dice,state,payload"
    assert csv_pages.count("seq,t,kind") == 1 and len(csv_pages.splitlines()) == 22


def test_since_skips_what_the_host_has():
    records = make_records(10)
    got = []
    with PtyLink(board(records)) as pty, BoardLink(pty.port) as link:
        summary, last, _ = sync.download(link, 6, 8, got.extend)
    assert [r.seq for r in got] == [7, 8, 9, 10] and summary.startswith("records 7-10 verified")


def _tamper(seq, **changes):
    def tamper(fields):
        if fields["seq"] == seq:
            fields.update(changes)

    return tamper


@pytest.mark.parametrize(
    "damage, tamper, words",
    [
        (None, _tamper(4, t=4001), "record 4 breaks the hash chain"),
        (None, _tamper(5, arg=10), "record 5 breaks the hash chain"),
        (None, _tamper(6, kind="undo"), "record 6 breaks the hash chain"),
        (None, _tamper(2, link="00" * 8), "record 2 breaks the hash chain"),
        (None, _tamper(3, payload="zz"), "record 3: the board sent it incomplete or malformed"),
        (lambda recs: recs.pop(5), None, "record 6 is missing (found 7)"),
        ("forge-prev", None, "record 3: does not continue the chain"),
    ],
    ids=["time", "arg", "kind", "link", "bad-hex", "missing-record", "forged-prev"],
)
def test_a_damaged_journal_fails_with_one_line_naming_the_record(damage, tamper, words):
    records = make_records(9)
    events = journal_events(records, tamper=tamper)
    if damage == "forge-prev":  # the page starting at 3 claims another chain than 1-2 built

        def forged(request):
            reply = journal_events(records)(request)
            if reply["events"] and reply["events"][0]["seq"] == 3:
                reply["prev"] = "00" * 32
            return reply

        events = forged
    elif damage:
        damage(records)
    handlers = {"events": events}
    with PtyLink(board(**handlers)) as pty, BoardLink(pty.port) as link:
        with pytest.raises(HostToolError) as e:
            sync.download(link, 0, 2, None)
    assert e.value.code == 1 and "\n" not in str(e.value)
    assert str(e.value).startswith(words)


def test_the_board_fields_rebuild_the_records_byte_for_byte():
    records = make_records(5)
    events = journal_events(records)({"since": 0, "limit": 8})["events"]
    chain = records[0][2]
    for (seq, data, _), event in zip(records, events):
        assert sync.record_bytes(event, chain) == data
        chain = journal_log._decode(data, 0, chain, seq).hash


def test_paging_that_does_not_move_on_is_refused():
    def events(request):
        return {"events": [], "next": request["since"], "more": True}

    with PtyLink(board(events=events)) as pty, BoardLink(pty.port) as link:
        with pytest.raises(HostToolError, match="does not move on"):
            sync.download(link, 5)


def test_download_to_a_file_resumes_where_it_stopped(tmp_path):
    records = make_records(7)
    out = str(tmp_path / "journal.csv")
    with PtyLink(board(records)) as pty:
        with BoardLink(pty.port) as link:
            assert sync.download_to_file(link, out, "csv", 0, 3).startswith("records 1-7 verified")
        records.extend(_continue(records, 5))
        with BoardLink(pty.port) as link:
            assert sync.download_to_file(link, out, "csv", 0, 3).startswith("records 8-12 verified")
        with BoardLink(pty.port) as link:
            assert sync.download_to_file(link, out, "csv", 0, 3) == "no records after 12"
        asked = [json.loads(line)["since"] for line in pty.received.split(b"\n") if b'"events"' in line]
    lines = open(out).read().splitlines()
    assert lines[0] == "seq,t,kind,arg,dice,state,payload" and lines.count(lines[0]) == 1
    assert [int(line.split(",")[0]) for line in lines[1:]] == list(range(1, 13))
    assert asked == [0, 3, 6, 7, 10, 12]  # the second run started after 7, the third after 12
    state = json.load(open(out + ".state"))
    assert state["seq"] == 12 and state["board"] == BOARD and state["chain"] == _hash_after(records[-1])


def _hash_after(record):
    from crapsboard.journal import journal_read as jread

    seq, data, prev = record
    return jread.decode(data, 0, prev, seq).hash.hex()


def _continue(records, n):
    """`n` more records continuing the chain of `records`."""
    from crapsboard.journal import journal_read as jread
    from crapsboard.journal import journal_record as jr

    seq, data, prev = records[-1]
    chain = jread.decode(data, 0, prev, seq).hash
    out = []
    for s in range(seq + 1, seq + 1 + n):
        rec, digest = jr.encode(chain, s, 1000 * s, jr.ROLL, 8 + 2, b"", b"", MAC)
        out.append((s, rec, chain))
        chain = digest
    return out


def test_a_cut_after_writing_a_page_is_trimmed_on_resume(tmp_path):
    records = make_records(6)
    out = str(tmp_path / "journal.jsonl")
    with PtyLink(board(records)) as pty:
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "jsonl", 0, 4)
        with open(out, "a") as f:  # a page written, the cut before its state was saved
            f.write('{"seq": 7, "half": ')
        records.extend(_continue(records, 2))
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "jsonl", 0, 4)
    seqs = [json.loads(line)["seq"] for line in open(out)]
    assert seqs == list(range(1, 9))


def test_a_file_of_another_board_or_a_broken_chain_is_not_appended_to(tmp_path):
    records = make_records(4)
    out = str(tmp_path / "j.jsonl")
    with PtyLink(board(records)) as pty:
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "jsonl")
        before = open(out).read()
        records[:] = make_records(6, head=b"CBJ1\x01\x01z\x02\x00\x00\x00\x00\x00\x00\x00")  # a new journal
        with BoardLink(pty.port) as link:
            with pytest.raises(HostToolError, match="record 5: does not continue the chain already downloaded"):
                sync.download_to_file(link, out, "jsonl")
            with pytest.raises(HostToolError, match="is jsonl: give --format jsonl") as e:
                sync.download_to_file(link, out, "csv")
            assert e.value.code == 2
    assert open(out).read() == before
    with PtyLink(board(records, hello=lk.hello_handler("x", "ffff", lambda: 0))) as pty, BoardLink(pty.port) as link:
        with pytest.raises(HostToolError, match="holds board %s's journal, not board ffff's" % BOARD):
            sync.download_to_file(link, out, "jsonl")


# ---- keys -------------------------------------------------------------------------------


def test_keys_are_saved_for_the_owner_only_and_never_overwritten(tmp_path, monkeypatch):
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(tmp_path / "keys"))
    path = keys.key_path(BOARD)
    assert path == str(tmp_path / "keys" / (BOARD + ".key"))
    key = keys.new_key()
    keys.save_key(path, key)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert open(path).read() == key.hex() + "\n"
    assert keys.find_key(None, BOARD) == key
    keys.save_key(path, key)  # the same key again: nothing to do
    with pytest.raises(HostToolError, match="already holds another key") as e:
        keys.save_key(path, bytes(32))
    assert e.value.code == 2 and keys.read_key(path) == key
    with pytest.raises(HostToolError, match="no key for board 0000"):
        keys.find_key(None, "0000")
    with pytest.raises(HostToolError, match="not lowercase hex"):
        keys.key_path("../etc")


def test_a_key_file_or_key_directory_open_to_others_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "keys"
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(folder))
    monkeypatch.delenv(keys.PASSPHRASE_ENV, raising=False)
    key = keys.new_key()
    keys.save_key(keys.key_path(BOARD), key)
    assert os.stat(folder).st_mode & 0o777 == 0o700
    path = folder / (BOARD + ".key")
    path.chmod(0o644)
    with pytest.raises(HostToolError) as e:
        keys.find_key(None, BOARD)
    assert str(e.value) == (
        "key file %s is open to others (mode 644, owner uid %d): not used; chmod 600 it if it is yours"
        % (path, os.getuid())
    )
    assert e.value.code == 2
    path.chmod(0o600)
    folder.chmod(0o755)
    with pytest.raises(HostToolError, match=r"key directory .*keys is open to others \(mode 755, .*chmod 700"):
        keys.find_key(None, BOARD)
    with pytest.raises(HostToolError, match="key directory"):
        keys.save_key(str(folder / "other.key"), key)
    assert not (folder / "other.key").exists()
    folder.chmod(0o700)
    assert keys.find_key(None, BOARD) == key
    loose = tmp_path / "loose.key"
    loose.write_text(key.hex())
    loose.chmod(0o640)
    with pytest.raises(HostToolError, match="loose.key is open to others"):
        keys.read_key(str(loose))  # --key FILE too


def test_a_sealed_key_opens_only_with_its_passphrase(tmp_path, monkeypatch):
    folder = tmp_path / "keys"
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(folder))
    monkeypatch.setenv(keys.PASSPHRASE_ENV, "correct horse")
    key = keys.new_key()
    path = keys.key_path(BOARD)
    keys.save_key(path, key)
    text = open(path).read()
    assert text.startswith("crapsboard sealed key v1 scrypt n=32768 r=8 p=1\n")
    assert key.hex() not in text and os.stat(path).st_mode & 0o777 == 0o600
    assert keys.find_key(None, BOARD) == key
    monkeypatch.setenv(keys.PASSPHRASE_ENV, "wrong horse")
    with pytest.raises(HostToolError, match="wrong passphrase, or the sealed key was altered") as e:
        keys.find_key(None, BOARD)
    assert e.value.code == 2
    monkeypatch.delenv(keys.PASSPHRASE_ENV)
    assert keys.read_key(path, "correct horse") == key
    altered = text.split("\n")
    altered[3] = ("0" if altered[3][0] != "0" else "1") + altered[3][1:]
    with open(path, "w") as f:
        f.write("\n".join(altered))
    with pytest.raises(HostToolError, match="wrong passphrase, or the sealed key was altered"):
        keys.read_key(path, "correct horse")
    # Without a passphrase and no terminal: one line saying how to give one.
    with open(path, "w") as f:
        f.write(text)
    with pytest.raises(HostToolError, match="is sealed: set CRAPSBOARD_PASSPHRASE or run on a terminal"):
        keys.read_key(path)


def test_journal_log_is_reused_not_forked():
    # the serial download checks each record with the same decoder as --image
    assert sync.journal_log is journal_log and sync.journal_log._decode is journal_log._decode


# ---- the command line: one line, the documented status, no traceback ------------------------


def host_tools(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env=dict(os.environ, **(env or {})),
    )


def one_line(result, code, words):
    assert result.returncode == code, (result.returncode, result.stderr)
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_cli_error_paths(tmp_path):
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("not a key\n")
    bad_key.chmod(0o600)
    bad_config = tmp_path / "bad.json"
    bad_config.write_text('{"fire": {"paytable": "Z"}}')
    not_json = tmp_path / "x.json"
    not_json.write_text("{")
    missing = str(tmp_path / "missing")
    env = {"CRAPSBOARD_KEYS": str(tmp_path / "keys")}
    one_line(host_tools("status", "--port", missing), 3, "host_tools status: cannot open " + missing)
    one_line(host_tools("status"), 2, "the following arguments are required: --port")
    one_line(host_tools("config", "frob"), 2, "invalid choice")
    one_line(host_tools("log", "--port", missing, "--page", "0"), 2, "--page must be at least 1")
    one_line(host_tools("log", "--image", missing, "--out", "x"), 2, "--out goes with --port")
    records = make_records(3)
    with PtyLink(board(records)) as pty:
        port = pty.port
        one_line(host_tools("time", "--port", port, "--key", str(bad_key)), 2, "bad.key is not a board key")
        one_line(host_tools("time", "--port", port, env=env), 2, "no key for board %s at " % BOARD)
        one_line(host_tools("time", "--port", port, "--key", missing), 2, "cannot read key")
        one_line(host_tools("config", "set", str(bad_config), "--port", port), 2, "bad.json: ")
        one_line(host_tools("config", "diff", str(not_json), "--port", port), 2, "x.json: not valid JSON")
        one_line(
            host_tools("config", "get", "--port", port), 1, "board refused config_get: config_get is not available"
        )
        pty.silent = True
        one_line(host_tools("status", "--port", port, "--timeout", "0.5"), 3, "no reply to hello from")
    assert "Z" in bad_config.read_text()


def test_cli_log_over_the_link_and_signed_time(tmp_path):
    records = make_records(5)
    got = {}

    def set_time(request):
        got["unix"] = request["unix"]
        return {}

    key_file = tmp_path / "board.key"
    key_file.write_text(KEY.hex() + "\n")
    key_file.chmod(0o600)
    with PtyLink(board(records, time=set_time)) as pty:
        jsonl = host_tools("log", "--port", pty.port, "--page", "2")
        verify = host_tools("log", "--port", pty.port, "--verify")
        csv_out = tmp_path / "j.csv"
        saved = host_tools("log", "--port", pty.port, "--out", str(csv_out), "--format", "csv")
        stamped = host_tools("time", "--port", pty.port, "--key", str(key_file), "--json")
        status = host_tools("status", "--port", pty.port)
    assert jsonl.returncode == 0, jsonl.stderr
    assert [json.loads(line)["seq"] for line in jsonl.stdout.splitlines()] == [1, 2, 3, 4, 5]
    assert verify.stdout.startswith("records 1-5 verified") and verify.stdout.count("\n") == 1
    assert saved.returncode == 0 and csv_out.read_text().count("\n") == 6
    assert "records 1-5 verified" in saved.stderr
    assert stamped.returncode == 0, stamped.stderr
    assert abs(json.loads(stamped.stdout)["unix"] - got["unix"]) == 0
    assert status.returncode == 1 and "status is not available" in status.stderr


def test_cli_deploy_and_reset_error_paths(tmp_path):
    missing = str(tmp_path / "missing")
    bad_config = tmp_path / "bad.json"
    bad_config.write_text('{"fire": {"paytable": "Z"}}')
    one_line(
        host_tools("deploy", "--port", missing, "--board", missing), 2, "host_tools deploy: cannot read " + missing
    )
    one_line(host_tools("deploy", "--port", missing, "--config", str(bad_config)), 2, "bad.json: ")
    one_line(host_tools("deploy", "--port", missing), 3, "host_tools deploy: cannot reach the REPL on " + missing)
    one_line(host_tools("reset", "--port", missing), 3, "host_tools reset: cannot reach the REPL on " + missing)
    with PtyLink(board()) as pty:  # the link answers, but nothing there is a REPL
        pty.silent = True
        one_line(host_tools("reset", "--port", pty.port), 3, "cannot reach the REPL on " + pty.port)


def test_ctrl_c_stops_monitor_with_status_130(tmp_path):
    import signal
    import time

    with PtyLink(board(subscribe=lambda request: {"on": request["on"]})) as pty:
        proc = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "monitor", "--port", pty.port, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            preexec_fn=default_sigint,
        )
        deadline = time.monotonic() + 20
        while b'"subscribe"' not in pty.received and time.monotonic() < deadline:
            time.sleep(0.05)
        pty.push(b'{"event": "roll", "dice": [1, 2]}\n')
        shown = proc.stdout.readline()  # the event, printed: Ctrl-C comes after it
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert json.loads(shown) == {"event": "roll", "dice": [1, 2]} and out == ""
    assert err == "host_tools monitor: stopped\n"
    assert pty.received.count(b'"subscribe"') == 2 and b'"on": false' in pty.received  # unsubscribed on the way out


def test_a_new_journal_on_the_board_is_not_appended_to_an_old_download(tmp_path):
    records = make_records(5)
    journal = {"id": 1, "seq": 5}
    hello = lk.hello_handler("t", BOARD, lambda: 0, lambda: {"journal": dict(journal)})
    out = str(tmp_path / "j.jsonl")
    with PtyLink(board(records, hello=hello)) as pty:
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "jsonl")
        before = open(out).read()
        assert json.load(open(out + ".state"))["journal"] == 1
        journal.update(id=2, seq=2)  # a supervisor started a new journal: records 1-2 of journal 2
        with BoardLink(pty.port) as link:
            with pytest.raises(HostToolError) as e:
                sync.download_to_file(link, out, "jsonl")
        assert (
            str(e.value)
            == "the board started journal 2 since %s was saved from journal 1: download it to another file" % out
        )
        journal.update(id=1, seq=3)  # the same id, fewer records: not the journal the file holds
        with BoardLink(pty.port) as link:
            with pytest.raises(
                HostToolError, match="the board's journal ends at record 3, .* at 5: not the same journal"
            ):
                sync.download_to_file(link, out, "jsonl")
    assert e.value.code == 1 and open(out).read() == before


def test_the_journal_head_sent_with_record_1_must_start_the_chain():
    from pty_link import HEAD

    records = make_records(3)
    with PtyLink(board(events=journal_events(records, head=HEAD))) as pty, BoardLink(pty.port) as link:
        assert sync.download(link, 0)[0].startswith("records 1-3 verified")
    other = HEAD[:-1] + b"\x01"  # another journal's head
    with PtyLink(board(events=journal_events(records, head=other))) as pty, BoardLink(pty.port) as link:
        with pytest.raises(HostToolError) as e:
            sync.download(link, 0)
    assert str(e.value) == "record 1: the journal's head does not start the chain" and e.value.code == 1


def test_a_lamp_is_one_line_for_people():
    from host_tools.commands import flat_lines

    lamps = {
        "fire.6": {"on": True, "color": "#ff0000", "blink": True, "alt": "#000000"},
        "point.4": {"on": True, "color": "#ffffff", "blink": False},
        "status": {"on": False, "color": "#000000", "blink": False},
    }
    assert flat_lines({"lamps": lamps}) == [
        "lamps.fire.6: on #ff0000 blinking to #000000",
        "lamps.point.4: on #ffffff",
        "lamps.status: off",
    ]


WRAPPING = [4294960000, 4294967000, 100, 5000, 4000000000, 30, 70, 90, 4294967000, 10]  # wraps before 3, 6 and 10


@pytest.mark.parametrize("page", [1, 2, 3, 8])
def test_times_unwrap_across_pages_as_over_the_whole_journal(page):
    records = make_records(10, times=WRAPPING)
    got, text = [], []
    writer = sync.PageWriter("jsonl")
    with PtyLink(board(records)) as pty, BoardLink(pty.port) as link:
        sync.download(link, 0, page, lambda recs: (got.extend(recs), text.append(writer.text(recs))))
    whole = sync.format_records(got, "jsonl")  # journal_log over the whole list, as --image prints it
    assert "".join(text) == whole
    times = [json.loads(line)["t"] for line in whole.splitlines()]
    assert times == [4294960000, 4294967000, 100 + 2**32, 5000 + 2**32, 4000000000 + 2**32] + [
        30 + 2**33,
        70 + 2**33,
        90 + 2**33,
        4294967000 + 2**33,
        10 + 3 * 2**32,
    ]


def test_a_resumed_download_carries_the_clock(tmp_path):
    records = make_records(4, times=WRAPPING[:4])
    out = str(tmp_path / "j.csv")
    with PtyLink(board(records)) as pty:
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "csv", 0, 3)
        records.extend(make_records(10, times=WRAPPING)[4:])  # the same chain: made from the same head
        with BoardLink(pty.port) as link:
            sync.download_to_file(link, out, "csv", 0, 3)
    whole = []
    with PtyLink(board(records)) as pty, BoardLink(pty.port) as link:
        sync.download(link, 0, 8, whole.extend)
    assert open(out, newline="").read() == sync.format_records(whole, "csv")
    assert open(out).read().splitlines()[-1].startswith("10,%d," % (10 + 3 * 2**32))
