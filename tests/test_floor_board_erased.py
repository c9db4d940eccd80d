"""A table's virtual board erased and deployed again on a running floor (a
real mosquitto, the recorder and the gateway as processes, `python -m sim
device`): before the technician's step every record of the new journal is
refused with an alert naming the step; a step published with the table's
gateway credentials, a step not under the board's journal key and a stale
one are refused; after `floor board-erased` the old records are archived
(still readable, exported by `floor events --archived`), one audit line says
who, when and up to which record, and the new journal is stored from record
1 (docs/floor.md, "A board erased")."""

import json
import os
import subprocess
import sys
import time

import pytest

from bench.floor import localfloor as floor_rig
from crapsboard.journal.journal_record import ROLL
from host_tools import keys
from host_tools.floor.base import erasure, floorkeys, topics
from sim.device import new_image
from sim.paths import ROOT

pytestmark = [
    pytest.mark.skipif(not floor_rig.have_mosquitto(), reason="mosquitto is not installed"),
    pytest.mark.timeout(400),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return floor_rig.shared_template(tmp_path_factory)


def host_tools(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env=dict(os.environ, **(env or {})),
    )


def alerts_of(rig, kind):
    return [a for a in rig.alerts() if a["kind"] == kind]


def rolls_on_board(rig):
    """The rolls in the journal of T1's board, read over its link."""
    from host_tools import sync
    from host_tools.link import BoardLink

    out = []
    with BoardLink(rig.port("T1"), timeout=5) as link:
        sync.download(link, 0, 8, lambda records: out.extend(r for r in records if r.kind == ROLL))
    return len(out)


def step_topic(rig):
    return topics.table(rig.floor["floor"], "T1", "erased")


def test_an_erased_board_is_refused_until_the_step_then_its_new_journal_is_stored_from_record_1(tmp_path, template):
    rig = floor_rig.Rig(str(tmp_path), ["T1"], template)
    rig.start_broker()
    try:
        rig.start_recorder()
        floor_rig.wait_path(os.path.join(rig.dir, "recorder.sqlite"))
        rig.start_board("T1", "3 4 2 2 6 5 *")
        rig.start_gateway("T1")
        floor_rig.wait_for(lambda: len(rig.recorded("T1")) >= 5, 120, "the old journal's records")
        rig.wait_quiet()
        rig.stop_gateways()
        old = rig.recorded("T1")
        assert old == rig.board_journal("T1")
        board = floor_rig.state_of(rig, "T1")["board"]

        # The board's flash erased (a new image with the same chip id), deployed again with its key.
        rig.kill_board("T1")
        assert not os.path.lexists(rig.port("T1"))  # its port gone with it: the gateway opens nobody else's
        new_image(rig.image("T1"), board)
        rig.start_board("T1")
        deployed = host_tools(
            "deploy", "--port", rig.port("T1"), "--key", rig.key("T1"), env={"CRAPSBOARD_KEYS": str(tmp_path / "k")}
        )
        assert deployed.returncode == 0, deployed.stderr
        rig.press("T1", "5 5 3 3 *")
        floor_rig.wait_for(lambda: rolls_on_board(rig) == 2, 120, "the new journal's two rolls")
        rig.restart_gateway("T1")
        floor_rig.wait_for(
            lambda: alerts_of(rig, "journal differs from the floor's copy"), 60, "the recorder's journal differs"
        )
        texts = [a["text"] for a in alerts_of(rig, "journal differs from the floor's copy")]
        assert all(
            "a technician records it: python -m host_tools floor board-erased --table T1 --board %s --by NAME" % board
            in t
            for t in texts
        ), texts
        assert rig.recorded("T1") == old  # nothing of the new journal stored over the old one

        # Steps that are not the technician's: refused, nothing archived.
        journal_key = floorkeys.derive(keys.read_key(rig.key("T1")), "journal")
        signed = erasure.sign(journal_key, "T1", board, "mallory", time.time())
        assert floor_rig.publish(rig, "gateway-T1", step_topic(rig), topics.encode(signed))  # the broker's ACL drops it
        gateway_key = floorkeys.read(rig.dir, "T1", "gateway")  # every key the gateway host holds
        forged = erasure.sign(gateway_key, "T1", board, "mallory", time.time())
        stale = erasure.sign(journal_key, "T1", board, "mallory", time.time() - 2 * erasure.MAX_AGE_S)
        for step in (forged, stale):
            assert floor_rig.publish(rig, "floorctl", step_topic(rig), topics.encode(step))
        floor_rig.wait_for(lambda: len(alerts_of(rig, erasure.REFUSED)) == 2, 30, "two refused steps")
        refused = sorted(a["text"] for a in alerts_of(rig, erasure.REFUSED))
        assert "its MAC is not under the board's journal key" in refused[0]
        assert "s from the recorder's clock (more than 600)" in refused[1]
        store = rig.store()
        try:
            assert store.erasures() == [] and store.archived("T1") == []
        finally:
            store.close()
        assert rig.recorded("T1") == old

        # The technician's step.
        step = host_tools(
            "floor", "board-erased", "--dir", rig.dir, "--broker", rig.url, "--table", "T1", "--board", board,
            "--by", "T. Tech",
        )  # fmt: skip
        assert step.returncode == 0, step.stderr
        line = step.stdout.strip()
        assert line.startswith("board %s of table T1 got a new journal at " % board), line
        assert line.endswith(
            ", by technician T. Tech; the old journal %d received up to record %d (its records archived, step 1)"
            % (old[-1][0], old[-1][1])
        )
        rig.wait_log("gateway-T1", "board-erased step 1: fetching the board's journal again from its first record")
        # The gateway's retained status may still say "all recorded" of the old journal for a while:
        # wait for the new journal's first record at the recorder before waiting for quiet. The
        # step's answer came after the old records were archived, so a record 1 now is the new
        # journal's. Its link may equal the old record 1's: the same board, journal id, key and
        # configuration, started the same number of ms after a reset, write the same first record.
        floor_rig.wait_for(
            lambda: any(seq == 1 for _, seq, _ in rig.recorded("T1")),
            120,
            "the new journal's first record at the recorder",
        )
        rig.wait_quiet()
        rig.stop_gateways()
        new = rig.board_journal("T1")
        assert rig.recorded("T1") == new and new[0][1] == 1 and new != old
        store = rig.store()
        try:
            (audit,) = store.erasures("T1")
            assert (audit["board"], audit["by"], audit["seq"], audit["archived"]) == (
                board,
                "T. Tech",
                old[-1][1],
                len(old),
            )
            assert [(r[3], r[4]) for r in store.archived("T1")] == [(j, s) for j, s, _ in old]
        finally:
            store.close()
        (notice,) = alerts_of(rig, erasure.KIND)
        assert notice["text"] == line
        exported = host_tools("floor", "events", "--dir", rig.dir, "--table", "T1", "--archived")
        assert exported.returncode == 0, exported.stderr
        rows = [json.loads(r) for r in exported.stdout.splitlines()]
        assert [(r["erased"], r["journal"], r["seq"], r["link"]) for r in rows] == [(1, j, s, k) for j, s, k in old]
        current = host_tools("floor", "events", "--dir", rig.dir, "--table", "T1")
        assert [json.loads(r)["link"] for r in current.stdout.splitlines()] == [k for _, _, k in new]
    finally:
        rig.stop()
