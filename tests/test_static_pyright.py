"""Static check: the firmware type-checks against micropython-esp32-stubs with
pyright (firmware/pyrightconfig.json: the stubs replace the stdlib), 0 errors."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

PYRIGHT = os.path.join(os.path.dirname(sys.executable), "pyright")
STUBS = os.path.join(ROOT, ".venv", "esp32-stubs")


@pytest.fixture(scope="module")
def report():
    if shutil.which("node") is None:
        pytest.fail("pyright needs node on PATH (the pip package runs it): install Node.js (apt-get install nodejs)")
    assert os.path.isfile(os.path.join(STUBS, "machine.pyi")), "ESP32 stubs missing: run `make venv`"
    out = subprocess.run(
        [PYRIGHT, "-p", os.path.join(ROOT, "firmware"), "--outputjson"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.stdout, out.stderr
    return json.loads(out.stdout)


def test_firmware_has_no_type_errors(report):
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    lines = ["%s:%d: %s" % (d["file"], d["range"]["start"]["line"] + 1, d["message"]) for d in errors]
    assert report["summary"]["errorCount"] == 0, "\n".join(lines)


def test_the_stubs_replace_the_cpython_stdlib(tmp_path):
    # The same settings on a probe file: ESP32 APIs resolve and are checked,
    # and `time` is MicroPython's (ticks_ms, no perf_counter), not CPython's.
    if shutil.which("node") is None:
        pytest.fail("pyright needs node on PATH (the pip package runs it): install Node.js (apt-get install nodejs)")
    with open(os.path.join(ROOT, "firmware", "pyrightconfig.json")) as f:
        config = json.loads("".join(line for line in f if not line.lstrip().startswith("//")))
    config.update(include=["probe.py"], exclude=[], stubPath=STUBS, typeshedPath=STUBS, extraPaths=[])
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    (tmp_path / "probe.py").write_text(
        "import time\n\nimport machine\nimport neopixel\n\n"
        "neopixel.NeoPixel(machine.Pin(13), 47).write()\n"
        "time.ticks_diff(time.ticks_ms(), 0)\n"
        "time.perf_counter()\n"
        "machine.Pin(2, machine.Pin.OUT).valu()\n"
    )
    out = subprocess.run([PYRIGHT, "-p", str(tmp_path), "--outputjson"], capture_output=True, text=True, timeout=300)
    errors = {d["range"]["start"]["line"] + 1: d["message"] for d in json.loads(out.stdout)["generalDiagnostics"]}
    assert sorted(errors) == [8, 9], errors
    assert "perf_counter" in errors[8] and "valu" in errors[9]
