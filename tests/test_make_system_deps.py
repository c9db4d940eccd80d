"""`make test` and `make check` bring what they need beyond the venv (Node.js
for pyright, rsvg-convert from librsvg2-bin, mosquitto for the floor, chromium
and its driver for the pit page, PostgreSQL and Prometheus for the floor past
one machine): `make system-deps` installs the
missing ones with apt-get as root, else says in one line what to install.
The README says so in its first lines."""

import os
import shutil
import subprocess

from conftest import ROOT

MAKE = shutil.which("make")


def system_deps(path, *variables):
    return subprocess.run(
        [MAKE, "-s", "--no-print-directory", "system-deps", *variables],
        cwd=ROOT,
        env=dict(os.environ, PATH=path),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_tools_that_cannot_be_installed_are_named_in_one_line(tmp_path):
    bin_dir = tmp_path / "bin"  # a PATH with none of the tools, nor apt-get
    bin_dir.mkdir()
    os.symlink(shutil.which("id"), bin_dir / "id")
    done = system_deps(str(bin_dir), "APT_GET=no-such-apt-get")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        "make: install nodejs librsvg2-bin mosquitto mosquitto-clients chromium chromium-driver postgresql prometheus"
        " first (as root: apt-get install nodejs librsvg2-bin mosquitto mosquitto-clients chromium chromium-driver"
        " postgresql prometheus)"
    )


def test_tools_on_the_path_need_nothing(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tools = ("id", "node", "rsvg-convert", "mosquitto", "mosquitto_pub", "chromium", "chromedriver")
    for tool in tools + ("pg_ctlcluster", "prometheus"):
        found = shutil.which(tool)
        if found is None:  # not here: make system-deps (as root) installs it
            found = "/bin/true"
        os.symlink(found, bin_dir / tool)
    done = system_deps(str(bin_dir), "APT_GET=no-such-apt-get")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_make_test_and_check_run_it_and_the_readme_says_so():
    for target in ("test", "check"):
        plan = subprocess.run([MAKE, "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert "apt-get" in plan.stdout and "librsvg2-bin" in plan.stdout and "chromium-driver" in plan.stdout, target
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        head = "".join(f.readlines()[:16])
    assert "Node.js" in head and "librsvg2-bin" in head and "apt-get" in head
