"""`python -m host_tools journal-reset` against a virtual board (`python -m sim
device`, the deployed firmware under the MicroPython VM, on a pty) and, for
the receipt from the floor, a real floor: mosquitto, the table's gateway and
the recorder as processes (bench/floor/localfloor.py). The command downloads
and verifies the whole journal, takes the recorder's receipt for exactly it,
and sends the signed reset; every refusal is one line and leaves the journal
as it was."""

import json
import os
import subprocess
import sys
import time

import pytest

from bench.floor import localfloor
from host_tools import keys
from host_tools.floor.base import topics
from host_tools.floor.bus import retained
from host_tools.link import BoardLink
from sim.paths import ROOT

pytestmark = pytest.mark.skipif(not localfloor.have_mosquitto(), reason="mosquitto is not installed")

PASSWORD = "tom's long password"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return localfloor.shared_template(tmp_path_factory)


@pytest.fixture
def rig(tmp_path, template, monkeypatch):
    # A key store of the test's own: every copy of the template is the same chip,
    # and what this host remembers of its journal head must be this test's board's.
    store = tmp_path / "host-keys"
    store.mkdir(mode=0o700)
    monkeypatch.setenv("CRAPSBOARD_KEYS", str(store))
    r = localfloor.Rig(str(tmp_path), ("T1",), template)
    yield r
    r.stop()


def host_tools(*args):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def hello(port, wait=30.0):
    end = time.monotonic() + wait
    while True:
        try:
            with BoardLink(port, timeout=2.0) as link:
                return link.hello()
        except Exception:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


def one_line(result, status, words):
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("host_tools journal-reset: ") and words in result.stderr, result.stderr


def receipt(key, h, seq=None, chain=None):
    """The recorder's receipt, under the board's receipt key, for its journal up to `seq` (default: all of it)."""
    head = h["head"]
    return keys.receipt_tag(
        keys.role_key(key, "receipt"), h["board"], head["journal"], seq or head["seq"], chain or head["hash"]
    )


def test_off_the_floor_a_receipt_for_the_whole_journal_resets_it_and_any_other_is_refused(rig):
    rig.start_board("T1")
    port, key_file = rig.port("T1"), rig.key("T1")
    key = keys.read_key(key_file)
    before = hello(port)
    jid, seq = before["head"]["journal"], before["head"]["seq"]
    assert seq >= 2
    common = ("journal-reset", "--port", port, "--key", key_file)
    one_line(host_tools(*common, "--receipt", "12ab"), 2, "--receipt '12ab' is not 64 hex digits")
    forged = [
        keys.receipt_tag(key, before["board"], jid, seq, before["head"]["hash"]),  # under the link key itself
        receipt(key, before, seq - 1),  # a receipt for fewer records
    ]
    for fake in forged:
        one_line(
            host_tools(*common, "--receipt", fake),
            1,
            "no recorder's receipt for journal %d up to record %d" % (jid, seq),
        )
    other = os.path.join(rig.dir, "keys", "other.key")
    keys.save_key(other, keys.new_key())
    one_line(
        host_tools("journal-reset", "--port", port, "--key", other, "--receipt", receipt(key, before)),
        1,
        "download not verified: board %s's journal head is not signed by its key" % before["board"],
    )
    assert hello(port)["journal"]["id"] == jid  # nothing reset by any of them

    done = host_tools(*common, "--receipt", receipt(key, before))
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout
        == "board %s: journal %d (up to record %d, chain head %s) held by the floor; journal %d started\n"
        % (
            before["board"],
            jid,
            seq,
            before["head"]["hash"],
            jid + 1,
        )
    )
    after = hello(port)
    assert after["journal"]["id"] == jid + 1 and after["journal"]["seq"] == 1  # its journal_start


def recorded(rig, table):
    """The recorder's retained `recorded` for `table`, or None."""
    topic = topics.table(rig.floor["floor"], table, "recorded")
    got = retained.read(rig.dir, rig.url, [topic], 0.3)
    return json.loads(got[-1][1]) if got else None


def wait_recorded(rig, table, seq, timeout=60.0):
    end = time.monotonic() + timeout
    while True:
        body = recorded(rig, table)
        if body is not None and body.get("seq") == seq:
            return body
        assert time.monotonic() < end, "the recorder never said record %d: %r" % (seq, body)


def carried(rig, table):
    """The table's gateway runs until the recorder holds the board's whole journal
    (the gateway's own `time` set is a record too), then stops; the board's last seq."""
    rig.start_gateway(table)
    rig.wait_quiet(steady=1.0)
    rig.stop_gateways()
    seq = hello(rig.port(table))["journal"]["seq"]
    wait_recorded(rig, table, seq)
    return seq


def played_to(port, seq, timeout=60.0):
    end = time.monotonic() + timeout
    while hello(port)["journal"]["seq"] < seq:
        assert time.monotonic() < end, "the board never reached record %d" % seq
        time.sleep(0.2)


def test_on_the_floor_the_recorders_receipt_resets_only_the_journal_it_holds_whole(rig, tmp_path):
    from host_tools.floor.people import accounts as people

    people.add_person(rig.dir, "tom", "technician", PASSWORD)
    password = tmp_path / "tom.password"
    password.write_text(PASSWORD)
    rig.start_broker()
    rig.start_board("T1")
    rig.start_recorder()
    port, key_file = rig.port("T1"), rig.key("T1")
    common = ("journal-reset", "--port", port, "--key", key_file, "--broker", rig.url, "--floor", "test")
    floor = (*common, "--table", "T1", "--user", "tom", "--password-file", str(password))

    # Nothing of the table reached the recorder yet: no receipt, nothing reset.
    one_line(host_tools(*floor), 1, "no receipt: the broker holds no recorded message for table T1")
    one_line(host_tools(*common, "--table", "T1", "--user", "tom"), 2, "--broker needs --password-file FILE")
    wrong = tmp_path / "wrong.password"
    wrong.write_text("not tom's password")
    one_line(
        host_tools(*common, "--table", "T1", "--user", "tom", "--password-file", str(wrong)),
        4,
        "refused user tom",
    )

    first = carried(rig, "T1")
    # The gateway relayed the recorder's receipts to the board (`received`): it knows it is on a floor.
    received = hello(port)["journal"]["received"]
    assert isinstance(received, int) and 1 <= received <= first, received
    with open(rig.log("gateway-T1"), encoding="utf-8") as f:
        assert "refused the recorder's receipt" not in f.read()
    # The gateway carried the journal so far; the board then plays on without it.
    rig.press("T1", "3 4 2 2")
    played_to(port, first + 2)
    at = hello(port)["journal"]["seq"]
    held = recorded(rig, "T1")
    assert held is not None and held["seq"] < at
    one_line(
        host_tools(*floor),
        1,
        "no receipt for the whole journal: the recorder holds journal 1 up to record %d, the board is at record %d"
        % (held["seq"], at),
    )

    carried(rig, "T1")  # the rest reaches the recorder
    done = host_tools(*floor)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("held by the floor; journal 2 started\n"), done.stdout
    assert hello(port)["journal"]["id"] == 2
