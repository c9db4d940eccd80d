"""A board whose flash was erased and deployed again (same chip id, its
journals from journal 1 again) on a host that saw its old journal: `status`
and `log` say the journal went back and name the technician's step,
`board-erased`; after the step they check the new journal and pass. Real
parts: `python -m sim device` boards, deploy, the host tools as processes."""

import json

from test_host_device import BOARD, Device, deployed, deployed_copy, hello, host_tools, key_dir, until  # noqa: F401

from sim.device import new_image


def head_of(port):
    return hello(port)["head"]


def test_an_erased_board_is_refused_until_the_technician_records_the_step(tmp_path, key_dir, deployed):  # noqa: F811
    flash, _ = deployed_copy(deployed, tmp_path, key_dir)
    device = Device(flash, "--keys", "3 4 2 2 6 5")
    try:
        old = until(lambda: head_of(device.port), lambda h: h["seq"] >= 5)  # the three rolls journalled
        seen = host_tools("status", "--port", device.port, "--json")
        assert seen.returncode == 0, seen.stderr
        assert json.loads(seen.stdout)["checks"]["journal_head"] == "ok"
    finally:
        device.stop()
    assert old["seq"] >= 5
    # The same chip, flash erased: a new image with the chip's id, then deployed again with the same key.
    erased = tmp_path / "erased.img"
    new_image(str(erased), BOARD)
    device = Device(erased)
    try:
        from host_tools import deploy

        deploy.deploy(device.port, quiet=True)
        new = head_of(device.port)
        assert (new["journal"], new["seq"]) < (old["journal"], old["seq"])
        for command in (["status"], ["log", "--verify"]):
            before = host_tools(*command, "--port", device.port)
            assert before.returncode == 1, before.stdout
            lines = before.stderr.splitlines()
            assert len(lines) == 1 and "journal went back" in lines[0], before.stderr
            assert "`python -m host_tools board-erased --port PORT --by NAME`" in lines[0]
        step = host_tools("board-erased", "--port", device.port, "--by", "T. Tech")
        assert step.returncode == 0, step.stderr
        assert step.stdout.startswith("board %s: erased board recorded at " % BOARD)
        assert step.stdout.rstrip().endswith(
            "by T. Tech; this host saw journal %d record %d before, now journal %d record %d"
            % (old["journal"], old["seq"], new["journal"], new["seq"])
        )
        after = host_tools("status", "--port", device.port, "--json")
        assert after.returncode == 0, after.stderr
        assert json.loads(after.stdout)["checks"]["journal_head"] == "ok"
        log = host_tools("log", "--verify", "--port", device.port)
        assert log.returncode == 0, log.stderr
        # The step is for an erased board only: on a journal that continues, nothing to record.
        again = host_tools("board-erased", "--port", device.port, "--by", "T. Tech")
        assert again.returncode == 1
        assert again.stderr.endswith("nothing was erased, no step to record\n"), again.stderr
        nameless = host_tools("board-erased", "--port", device.port, "--by", " ")
        assert (nameless.returncode, nameless.stderr.count("\n")) == (2, 1)
    finally:
        device.stop()
    kept = json.loads((key_dir / (BOARD + ".erased")).read_text())["steps"]
    assert len(kept) == 1 and kept[0]["by"] == "T. Tech"
    assert (kept[0]["before"]["journal"], kept[0]["before"]["seq"]) == (old["journal"], old["seq"])
    assert (kept[0]["after"]["journal"], kept[0]["after"]["seq"]) == (new["journal"], new["seq"])
