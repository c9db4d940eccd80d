"""The keyed chain (docs/journal.md, "Format 2"): a rewrite that
recomputes the public chain with the public codec is refused at power-up by
the board (MicroPython VM, littlefs on the NOR-flash model:
tests/vm/journal_keyed.py) and by `host_tools log --verify` with the board's
key; without the key the host can only check the public chain, and says so.
A journal the board cannot verify with its own key (format 1, another key) is
the fault `unkeyed` until a supervisor starts a new journal, which goes on
from its table. Deleting the newest record is not seen by the board (it looks
like a power cut): tests/test_journal_head.py catches it with a signed head."""

import os
import subprocess
import sys

import pytest

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import HostToolError, journal_log
from sim import runtime
from sim.paths import ROOT

KEY = bytes(range(32))  # tests/vm/journal_keyed.py's link key


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    image = tmp_path_factory.mktemp("keyed") / "rewritten.img"
    out = runtime.run(
        "tests/vm/journal_keyed.py", heapsize="24M", input="image %s\n" % image, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    return lines, str(image)


def host_tools(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
    )


def key_file(tmp_path, key=KEY):
    path = tmp_path / "board.key"
    path.write_text(key.hex() + "\n")
    path.chmod(0o600)
    return str(path)


def test_the_board_refuses_a_rewrite_that_recomputes_the_public_chain(results):
    # The come-out 2 2 (point 4) rewritten to 4 4 (point 8), links and CRCs recomputed.
    fault, seq, writes, message = results[0]["rewrite"].split(" ", 3)
    assert (fault, seq, writes) == ("chain", "2", "0")  # named, and nothing written
    assert message == "chain: record 2 fails its MAC: not written by this board's key"


def test_the_host_refuses_the_same_rewrite_with_the_board_s_key(results, tmp_path):
    image = results[1]
    keyed = host_tools("log", "--image", image, "--verify", "--key", key_file(tmp_path))
    assert keyed.returncode == 1
    assert keyed.stderr == "host_tools log: record 2 fails its MAC: not written by this board's key\n"
    # Without the key only the public chain can be checked: it passes, and the summary says what was not checked.
    public = host_tools("log", "--image", image, "--verify", env={"CRAPSBOARD_KEYS": str(tmp_path / "none")})
    assert public.returncode == 0, public.stderr
    assert "; public chain only, keyed chain NOT checked (no key for board 240ac4000001 on this host" in public.stdout
    other = tmp_path / "other"
    other.mkdir()
    wrong = host_tools("log", "--image", image, "--verify", "--key", key_file(other, bytes(32)))
    assert wrong.returncode == 1 and "written under another key than" in wrong.stderr


def test_deleting_the_newest_record_looks_like_a_power_cut_to_the_board(results):
    # 14 records, the newest deleted: the board restores 13 and records its restart as 14.
    assert results[0]["truncated"] == "('none', 14, 2)"


def test_a_format_1_journal_is_the_fault_unkeyed_until_a_supervisor_starts_a_new_one(results):
    lines = results[0]
    assert lines["format1"] == "unkeyed 0"  # a fault, nothing written
    # what the board says (docs/journal.md, "Format 1 and another key")
    assert lines["format1 says"] == (
        "unkeyed: format 1 journal, written before the keyed chain: download it, then start a new journal at power-up"
    )
    assert lines["format1 gesture"] == "point 4 journal 2"  # the new journal goes on from its table
    assert lines["format1 after"] == "none point 4 journal 2"  # and restores, keyed


def test_a_journal_under_another_key_is_the_fault_unkeyed(results):
    lines = results[0]
    assert lines["other key"] == "unkeyed" and lines["no key"] == "unkeyed"
    assert lines["other key says"] == (
        "unkeyed: journal written under another key than this board's:"
        " download it, then start a new journal at power-up"
    )
    assert lines["own key"] == "point 4 journal 1"


def test_the_mac_is_hmac_sha256_of_the_chain_hash_under_the_derived_key():
    import hashlib
    import hmac

    journal_key = hmac.new(KEY, b"crapsboard journal v2", hashlib.sha256).digest()
    assert jread.journal_key(KEY) == journal_key
    mac = jr.Mac(journal_key)
    record, digest = jr.encode(b"\x00" * 32, 1, 0, jr.ROLL, 2 * 8 + 2, b"", b"", mac)
    assert record[-12:-4] == hmac.new(journal_key, digest, hashlib.sha256).digest()[:8]
    assert record[-20:-12] == digest[:8] and len(record) == 34
    assert mac.key_id() == hmac.new(journal_key, b"crapsboard journal key id", hashlib.sha256).digest()[:8]
    # A record read back with another key's Mac fails; without one, only the public chain is checked.
    with pytest.raises(jread.RecordError, match="fails its MAC"):
        jread.decode(record, 0, b"\x00" * 32, 1, 2, jr.Mac(bytes(32)))
    assert jread.decode(record, 0, b"\x00" * 32, 1, 2).mac == record[-12:-4]


def test_verify_files_names_the_key_it_checked_with(tmp_path):
    head = jr.encode_head(b"ab", 1, 0, jr.Mac(jread.journal_key(KEY)).key_id())
    mac = jr.Mac(jread.journal_key(KEY))
    record, digest = jr.encode(jr.genesis(head), 1, 0, jr.ROLL, 2 * 8 + 2, b"", b"", mac)
    files = {"head": head, "s0": record}
    _, summary = journal_log.verify_files(files, mac=mac)
    assert summary.endswith(
        "records 1-1 verified, chain head %s; keyed chain verified with the Mac given" % digest.hex()
    )
    with pytest.raises(HostToolError, match="written under another key"):
        journal_log.verify_files(files, mac=jr.Mac(bytes(32)))


@pytest.mark.parametrize("arg", [3 * 8 + 0, 0 * 8 + 3, 3 * 8 + 7, 7 * 8 + 3])
def test_a_keyed_roll_that_is_not_two_dice_is_a_fault_naming_it(results, arg):
    # Chain and MAC made with the board's own key: the restore still checks each die is 1 to 6.
    assert results[0]["bad dice %d" % arg] == "corrupt 3 0 corrupt: record 3: roll %d is not two dice" % arg


def test_a_format_1_journal_of_a_board_this_host_deployed_is_refused(tmp_path, monkeypatch):
    """The audit's downgrade: a keyed journal rewritten as format 1 with one roll changed passes the
    public chain; a host that holds the board's key and deployed it refuses it (exit 1, one line)."""
    from host_tools import board_records

    folder = tmp_path / "keys"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(folder))
    monkeypatch.delenv("CRAPSBOARD_PASSPHRASE", raising=False)
    head = jr.encode_head(b"\xab\xcd", 1, 0)  # format 1: no key id
    record, _ = jr.encode(jr.genesis(head), 1, 0, jr.ROLL, 6 * 8 + 6)  # a twelve, the public chain made to match
    files = {"head": head, "s0": record}
    records, summary = journal_log.verify_files(files)  # a host that knows nothing of the board: public chain
    assert len(records) == 1 and "format 1 journal: public chain only" in summary
    key = folder / "abcd.key"
    key.write_text(KEY.hex() + "\n")
    key.chmod(0o600)
    journal_log.verify_files(files)  # the key alone: the board may predate the keyed chain
    board_records.save("abcd", "deployed", {"hash": "f" * 64, "version": "1", "when": "2026-11-27T14:02:00Z"})
    with pytest.raises(HostToolError) as e:
        journal_log.verify_files(files)
    assert e.value.code == 1 and "\n" not in str(e.value)
    assert str(e.value) == (
        "board abcd was deployed from this host (2026-11-27T14:02:00Z) and writes keyed journals: a format 1"
        " journal for it is refused (an unkeyed rewrite passes the public chain)"
    )
