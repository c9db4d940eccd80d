"""Shared test set-up. Import paths come from pyproject.toml (`pythonpath`)."""

import pytest

from sim import devlayout
from sim.paths import ROOT

__all__ = ["ROOT"]


@pytest.fixture(scope="session")
def mpy_lib(tmp_path_factory):
    """A folder holding the firmware package as .mpy, as a deploy installs it:
    put it first on the VM's path."""
    return devlayout.compile_package(str(tmp_path_factory.mktemp("mpy") / "lib"))


@pytest.fixture(scope="session", autouse=True)
def host_key_store(tmp_path_factory):
    """The host tools' key and record store ($CRAPSBOARD_KEYS) is the test
    session's own, inherited by every host tool a test starts: a test never
    writes into the user's ~/.config, and two sessions (or a developer's own
    deploys) never see each other's boards. pytest-xdist's workers share their
    session's store, as they share its template board. A test that needs
    another store sets its own with monkeypatch."""
    import os

    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = os.path.join(str(session), "host-keys")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)  # host_tools.keys refuses a folder others may enter
    before = os.environ.get("CRAPSBOARD_KEYS")
    os.environ["CRAPSBOARD_KEYS"] = folder
    yield folder
    if before is None:
        os.environ.pop("CRAPSBOARD_KEYS", None)
    else:
        os.environ["CRAPSBOARD_KEYS"] = before
