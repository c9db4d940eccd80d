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
