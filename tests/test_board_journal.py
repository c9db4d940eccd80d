"""The app with its journal on the simulated board's flash (littlefs on the
NOR-flash model): every table event is durable before a frame can show it, a
refused append is taken back and shown as a journal fault, a reboot restores
the table and shows restored — verify until a supervisor acknowledges, undo
never reaches back across a restart, and a power cut after any block program
or erase loses no acknowledged event."""

import json
import os
import subprocess
import sys

import pytest

from crapsboard.journal import journal as jn
from crapsboard.rules.engine import Table
from crapsboard.rules.paytables import WAGER_COUNT
from sim.paths import BOARD_JSON, ROOT
from sim.portable import flashfs
from sim.portable.norflash import NorFlash
from sim.portable.run_core import BOARD_ID, Driver, table_state

# Rolls, undo and end hand under the keyswitch, enough events for the staged
# batch (32) to go into a segment: maintain's block copy is cut too.
SCRIPT = (
    "3 4 6 6 2 2 key:on undo key:off 5 5 4 4 1 1 6 5 key:on end_hand key:off "
    + "2 2 3 3 4 4 5 5 6 6 3 3 2 2 " * 3
    + "3 3 key:on undo undo key:off 4 3 1 2"
)


def boot(data=None, cut=0, new_journal=False):
    """A Driver on a flash holding `data` (None: a new board)."""
    flash = NorFlash(data)
    flash.raise_cut = False
    flash.cut_mode = "half"
    flash.cut_at = cut
    return Driver(BOARD_JSON, None, 0, flash, data is None, new_journal)


def play(driver, script):
    parts = []
    driver.send(script, parts.append)
    driver.close()
    return json.loads("".join(parts))


def replay(events):
    """A fresh Table fed the table events of a run, as the rules would."""
    table = Table()
    for e in events:
        if e["event"] == "roll":
            table.roll(*e["dice"])
        elif e["event"] == "undo":
            assert table.undo()
        elif e["event"] == "end_hand":
            table.end_hand()
    return table_state(table)


def table_events(events):
    return [e for e in events if e["event"] in ("roll", "undo", "end_hand")]


def test_each_roll_is_on_flash_before_any_frame_shows_it():
    driver = boot()
    frames = []
    shown = driver.board.show

    def show(frame):
        # At every frame the journal on flash restores exactly the table shown.
        restored = Table()
        jn.Journal(flashfs.ROOT, BOARD_ID).mount(restored)
        frames.append(table_state(restored) == table_state(driver.app.table))
        shown(frame)

    driver.board.show = show
    state = play(driver, "3 4 6 6 2 2 key:on end_hand key:off 5 5")
    assert state["state"]["rolls"] == 4 and len(frames) >= 4 and all(frames)  # a frame per change at least


def test_a_reboot_restores_the_table_and_shows_restored_until_a_supervisor_acknowledges():
    first = play(boot(), "3 4 6 6 2 2")
    assert first["status"] == "ready" and first["state"]["point"] == 4
    data = bytes(first_flash("3 4 6 6 2 2"))
    second = play(boot(data), "wait:1000")
    assert second["state"] == first["state"] and second["hand"] == first["hand"]
    assert second["status"] == "restored" and second["flash"]["restored"] is True
    assert second["lamps"]["status"]["color"] == "#00c0ff" and second["lamps"]["status"]["blink"]
    acked = play(boot(data), "5 5 key:on key:off")
    assert acked["status"] == "ready" and acked["flash"]["restored"] is False
    assert acked["state"]["rolls"] == 4


def first_flash(script):
    driver = boot()
    play(driver, script)
    return driver.flash.data


def test_undo_never_reaches_back_across_a_restart():
    data = first_flash("3 4 6 6")
    state = play(boot(data), "key:on undo key:off")
    assert [e["event"] for e in state["events"]] == ["supervisor_on", "error", "supervisor_off"]
    assert state["events"][1]["reason"] == "nothing_to_undo"
    assert state["state"]["rolls"] == 2


def test_a_full_flash_refuses_the_roll_and_shows_the_journal_fault():
    # 10 blocks (40 KiB): littlefs fills up within about a thousand rolls. The roll the
    # journal cannot hold is taken back; nothing is shown or taken after it.
    flash = NorFlash(block_count=10)
    flash.raise_cut = False
    driver = Driver(BOARD_JSON, None, 0, flash, True)
    state = play(driver, "3 4 6 6 2 2 5 5 " * 400)
    assert state["status"] == "journal_fault" and state["flash"]["journal_fault"].startswith("full")
    assert state["lamps"]["status"]["color"] == "#ff5000" and state["lamps"]["status"]["blink"]
    rolls = [e for e in state["events"] if e["event"] == "roll"]
    assert state["state"]["rolls"] == len(rolls) < 1600  # the refused roll and all after it: not applied
    assert state["state"] == replay(state["events"])


def test_a_foreign_or_unmountable_flash_is_a_start_up_fault():
    with pytest.raises(Exception, match="start-up failed.*has no filesystem"):
        boot(b"\x00" * (512 * 4096))


def test_a_new_journal_at_power_up_keeps_the_old_one_and_starts_a_fresh_table():
    data = first_flash("3 4 6 6")
    driver = boot(data, new_journal=True)
    state = play(driver, "")
    assert state["state"]["rolls"] == 2  # the restored table goes on into the new journal
    assert state["flash"]["journal_seq"] == 1 and state["status"] == "ready"


def cut_sweep(ks):
    """Cut the power after write K of SCRIPT, reboot, and check every
    acknowledged event is restored (and at most the one being written)."""
    whole = play(boot(), SCRIPT)
    full = table_events(whole["events"])
    total = whole["flash"]["writes"]
    checked = 0
    for k in ks(total):
        driver = boot(cut=k)
        cut = play(driver, SCRIPT)
        assert cut["flash"]["power_cut"] is True and cut["status"] == "off"
        acked = table_events(cut["events"])
        assert acked == full[: len(acked)]
        assert cut["state"] == replay(acked)
        after = play(boot(bytes(driver.flash.data)), "")
        # restored — verify; or, cut before the journal's first record, a new journal
        assert after["status"] == "restored" or (after["status"] == "ready" and not acked)
        assert after["state"] in (replay(acked), replay(full[: len(acked) + 1])), k
        checked += 1
    return total, checked


def test_a_cut_after_any_write_loses_no_acknowledged_event():
    # `make test`: every total // 24-th write; `make proof-journal` (JOURNAL_PROOF=all): every write.
    every = os.environ.get("JOURNAL_PROOF") == "all"
    total, checked = cut_sweep(lambda total: range(1, total + 1, 1 if every else max(1, total // 24)))
    assert total > 90 and checked == (total if every else len(range(1, total + 1, max(1, total // 24))))
    print("sim run --flash: %d of %d cut points checked" % (checked, total))


# ---- the command line, both runtimes ---------------------------------------------


def sim_run(tmp_path, runtime, *args):
    out = subprocess.run(
        [sys.executable, "-m", "sim", "run", "--runtime", runtime, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_sim_run_flash_survives_a_cut_and_reboots(tmp_path, runtime):
    image = str(tmp_path / "board.img")
    first = sim_run(tmp_path, runtime, "--flash", image, "--keys", "3 4 6 6 2 2")
    assert os.path.getsize(image) == 512 * 4096 and first["state"]["rolls"] == 3
    cut = sim_run(tmp_path, runtime, "--flash", image, "--cut-after-writes", "3", "--keys", "5 5 4 4")
    assert cut["flash"]["power_cut"] and cut["events"] == [] and cut["state"] == first["state"]
    again = sim_run(tmp_path, runtime, "--flash", image, "--keys", "1 1")
    assert again["status"] == "restored" and again["state"]["rolls"] == 4
    assert again["state"]["marks"]["all_small"] == [2, 4] and len(again["state"]["marks"]) == WAGER_COUNT


def test_both_runtimes_read_each_others_flash(tmp_path):
    image = str(tmp_path / "board.img")
    sim_run(tmp_path, "micropython", "--flash", image, "--keys", "3 4 6 6 2 2")
    on_cpython = sim_run(tmp_path, "cpython", "--flash", image, "--keys", "5 5")
    on_vm = sim_run(tmp_path, "micropython", "--flash", image, "--keys", "wait:100")
    assert on_cpython["state"] == on_vm["state"] and on_vm["state"]["rolls"] == 4


def test_sim_run_refuses_a_file_that_is_not_a_flash_image(tmp_path):
    bad = tmp_path / "bad.img"
    bad.write_bytes(b"x" * 100)
    out = subprocess.run(
        [sys.executable, "-m", "sim", "run", "--flash", str(bad), "--keys", "3 4"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2 and out.stderr.startswith("sim run: ") and "not a flash image" in out.stderr
    assert bad.read_bytes() == b"x" * 100


def records_on(data, tmp_path):
    from host_tools.journal_log import read_image

    path = tmp_path / "board.img"
    path.write_bytes(bytes(data))
    records, _ = read_image(str(path))
    return records


def kinds_on(data, tmp_path):
    return [r.kind for r in records_on(data, tmp_path)]


def test_the_journal_records_start_restart_and_a_configuration_changed_while_off(tmp_path):
    data = first_flash("3 4")
    driver = Driver(BOARD_JSON, '{"rebet_after_win": false}', 0, _flash(data), False)
    state = play(driver, "")
    assert state["status"] == "restored" and driver.app.table.config.rebet_after_win is False
    # journal start (first use: arg 0), roll (3 4: arg 3 * 8 + 4), restart (arg: the
    # power-on reset cause, 1), configuration (arg 0): docs/journal.md
    records = records_on(driver.flash.data, tmp_path)
    assert [(r.kind, r.arg) for r in records] == [(18, 0), (1, 28), (17, 1), (16, 0)]
    second = Driver(BOARD_JSON, '{"rebet_after_win": false}', 0, _flash(driver.flash.data), False)
    play(second, "")
    assert kinds_on(second.flash.data, tmp_path) == [18, 1, 17, 16, 17]  # the same config again: only the restart


def _flash(data):
    flash = NorFlash(data)
    flash.raise_cut = False
    return flash


def test_a_good_pin_acknowledges_the_restored_table_and_the_pin_comes_from_the_config():
    from sim.pin_hash import config_entry

    config = json.dumps({"supervisor_pin": config_entry("2468", b"fixed salt 2468")})
    first = Driver(BOARD_JSON, config, 0, _flash(None), True)
    play(first, "3 4")
    second = Driver(BOARD_JSON, config, 0, _flash(first.flash.data), False)
    state = play(second, "D 1 3 5 7 # wait:3000")  # a wrong PIN: still restored — verify
    assert state["status"] == "restored" and state["flash"]["restored"] is True
    assert [e.get("reason") for e in state["events"]] == ["wrong_pin"]
    third = Driver(BOARD_JSON, config, 0, _flash(second.flash.data), False)
    state = play(third, "D 2 4 6 8 # wait:100")
    assert state["flash"]["restored"] is False and state["status"] == "supervisor"
    assert [e["event"] for e in state["events"]] == ["supervisor_on"]


def test_on_the_vm_a_cut_at_a_sample_of_writes_loses_no_acknowledged_event(tmp_path):
    # The same check through `sim run`'s Session under MicroPython (vfs.VfsLfs2
    # on the NOR-flash model); its littlefs makes its own number of writes.
    from sim.session import Session

    script = "3 4 6 6 2 2 key:on undo key:off 5 5 4 4 key:on end_hand key:off 1 1"
    with Session("micropython", flash=str(tmp_path / "whole.img")) as s:
        whole = s.send(script)
    full = table_events(whole["events"])
    total = whole["flash"]["writes"]
    for k in range(1, total + 1, max(1, total // 6)):
        image = str(tmp_path / ("cut%d.img" % k))
        with Session("micropython", flash=image, cut_after=k) as s:
            cut = s.send(script)
        acked = table_events(cut["events"])
        assert cut["status"] == "off" and acked == full[: len(acked)]
        with Session("micropython", flash=image) as s:
            after = s.send("")
        assert after["state"] in (replay(acked), replay(full[: len(acked) + 1])), k


def test_a_configuration_change_while_running_is_journalled_and_restored(tmp_path):
    from crapsboard.rules import config as cfg

    changed = '{"rebet_after_win": false, "fire_window": "first_roll"}'
    driver = boot()
    play(driver, "3 4")
    second = Driver(BOARD_JSON, None, 0, _flash(driver.flash.data), False)
    assert second.app.configure(cfg.loads(changed), 5) is True
    play(second, "")
    assert kinds_on(second.flash.data, tmp_path) == [18, 1, 17, 16]
    # With config.json saying the same (the link writes it too), the restart restores it and adds nothing.
    third = Driver(BOARD_JSON, changed, 0, _flash(second.flash.data), False)
    play(third, "")
    assert third.app.table.config.rebet_after_win is False
    assert kinds_on(third.flash.data, tmp_path) == [18, 1, 17, 16, 17]
    # A config.json that differs wins at power-up, and that change is recorded too.
    fourth = Driver(BOARD_JSON, None, 0, _flash(third.flash.data), False)
    play(fourth, "")
    assert fourth.app.table.config.rebet_after_win is True
    assert kinds_on(fourth.flash.data, tmp_path) == [18, 1, 17, 16, 17, 17, 16]


def test_wrong_pins_are_journaled_so_a_restart_keeps_the_lockout():
    # docs/keys.md: three wrong PINs in a row lock the PIN key for 60 s; they are journalled,
    # so a power cut does not end the lockout: after the restart the good PIN is refused.
    from sim.pin_hash import config_entry

    config = json.dumps({"supervisor_pin": config_entry("2468", b"fixed salt 2468")})
    first = Driver(BOARD_JSON, config, 0, _flash(None), True)
    state = play(first, "D 1 3 5 7 # wait:2000 D 1 3 5 7 # wait:2000 D 1 3 5 7 # wait:2000")
    assert [e.get("reason") for e in state["events"]] == ["wrong_pin"] * 3
    second = Driver(BOARD_JSON, config, 0, _flash(first.flash.data), False)
    state = play(second, "D 2 4 6 8 # wait:100")
    assert state["status"] != "supervisor"
    assert [(e["event"], e.get("reason")) for e in state["events"]] == [("error", "pin_locked")]
