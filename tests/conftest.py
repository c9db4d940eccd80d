"""Shared test set-up. Import paths come from pyproject.toml (`pythonpath`)."""

import os

import pytest

from sim import devlayout
from sim.paths import ROOT

__all__ = ["ROOT"]


@pytest.fixture(scope="session")
def mpy_lib(tmp_path_factory):
    """A folder holding the firmware package as .mpy, as a deploy installs it:
    put it first on the VM's path."""
    return devlayout.compile_package(str(tmp_path_factory.mktemp("mpy") / "lib"))


def _session_folder(tmp_path_factory, name):
    """A folder of this test session's own, shared by its pytest-xdist workers,
    that only its user may enter."""
    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = os.path.join(str(session), name)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


@pytest.fixture(scope="session", autouse=True)
def session_tmpdir(tmp_path_factory):
    """Every process a test starts makes its temporary files under the session's
    own folder (TMPDIR), which pytest sweeps with its old runs: a virtual board
    killed on purpose (SIGKILL, or its parent's death) cannot remove its working
    folder, and it must not pile up in the machine's /tmp."""
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = _session_folder(tmp_path_factory, "tmp")
    yield os.environ["TMPDIR"]
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before


@pytest.fixture(scope="session", autouse=True)
def host_key_store(tmp_path_factory):
    """The host tools' key and record store ($CRAPSBOARD_KEYS) is the test
    session's own, inherited by every host tool a test starts: a test never
    writes into the user's ~/.config, and two sessions (or a developer's own
    deploys) never see each other's boards. pytest-xdist's workers share their
    session's store, as they share its template board. A test that needs
    another store sets its own with monkeypatch."""
    folder = _session_folder(tmp_path_factory, "host-keys")  # host_tools.keys refuses a folder others may enter
    before = os.environ.get("CRAPSBOARD_KEYS")
    os.environ["CRAPSBOARD_KEYS"] = folder
    yield folder
    if before is None:
        os.environ.pop("CRAPSBOARD_KEYS", None)
    else:
        os.environ["CRAPSBOARD_KEYS"] = before
