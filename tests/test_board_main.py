"""firmware/main.py and crapsboard/board.py under the MicroPython VM, with
stand-in `machine` and `neopixel` modules: the real start-up path builds the
pins, strip and watchdog from board.json and runs the app's asyncio tasks."""

import os
import shutil

import pytest
from conftest import ROOT

from sim import runtime

STANDINS = os.path.join(ROOT, "tests", "vm", "standins")  # machine, neopixel, micropython


def boot(tmp_path, held=(), config=None):
    """Run main.py in a fresh 'flash' (tmp_path); the runner's report as a dict."""
    (tmp_path / "fake_setup.py").write_text("HELD = %r\n" % (tuple(held),))
    shutil.copy(os.path.join(ROOT, "firmware", "main.py"), tmp_path / "main.py")
    shutil.copy(os.path.join(ROOT, "hardware", "board.json"), tmp_path / "board.json")
    if config is not None:
        (tmp_path / "config.json").write_text(config)
    out = runtime.run(
        "tests/vm/boot_main.py",
        extra_paths=[str(tmp_path), STANDINS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        report[key] = value
    return report


def test_main_builds_the_board_and_runs_the_app(tmp_path):
    report = boot(tmp_path)
    assert int(report["emergency"]) >= 100
    assert report["wdt"] == "1 3"  # started once, fed by the running tasks
    assert int(report["writes"]) >= 1
    assert report["status"] == "96 0 0"  # status lamp green (GRB), at the brightness cap
    assert report["rows"] == "7 7 7 7"  # open-drain
    assert report["cols"] == "1/2 1/2 1/2 1/2"  # inputs with pull-ups
    assert report["strip"] == "13 141"


def test_lamp_test_held_at_power_up_leaves_the_repl_alone(tmp_path):
    report = boot(tmp_path, held=[23])
    assert report["crapsboard:"].startswith("lamp test held")
    assert report["wdt"] == "0 0" and report["writes"] == "0"


@pytest.mark.parametrize("config", ['{"paytables": {"fire": "9"}}', "{not json"])
def test_a_bad_config_shows_a_fault_and_starts_no_watchdog(tmp_path, config):
    report = boot(tmp_path, config=config)
    assert report["crapsboard:"].startswith("config.json refused")
    assert report["wdt"] == "0 0"
    assert report["status"] == "0 64 0"  # steady red


def test_a_good_config_is_used(tmp_path):
    report = boot(tmp_path, config='{"offered": ["fire"]}')
    assert report["wdt"] == "1 3"
