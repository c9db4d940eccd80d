"""docs/board.md, "Production hardening": every espsecure and espefuse command
of the documented block runs, in order, with the pinned esptool 5.6.0 against a
virtual ESP32's eFuses (`espefuse --virt`, no chip), and the eFuses it leaves
are the documented ones; each esptool subcommand exists (`--help`). Nothing
touches a real board: the virtual eFuses live in a file in a temporary folder."""

import os
import re
import shlex
import subprocess

from conftest import ROOT

BIN = os.path.join(ROOT, ".venv", "bin")


def documented_commands():
    text = open(os.path.join(ROOT, "docs", "board.md"), encoding="utf-8").read()
    block = re.search(r"```hardening\n(.*?)```", text, re.S).group(1)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def run(argv, cwd):
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_documented_hardening_runs_on_a_virtual_esp32_in_order(tmp_path):
    commands = documented_commands()
    version = run([os.path.join(BIN, "espefuse"), "--help"], tmp_path).stdout
    assert "espefuse v5.6.0" in version  # the pinned esptool (requirements.txt)
    assert [c[0] for c in commands].count("espefuse") == 9 and commands[-1][-1] == "summary"
    for name, size in (("bootloader.bin", 24576), ("partition-table.bin", 3072), ("firmware.bin", 65536)):
        (tmp_path / name).write_bytes(os.urandom(size))  # stand-ins: the commands do not parse them
    virtual = ["--chip", "esp32", "--virt", "--path-efuse-file", str(tmp_path / "efuses.bin"), "--do-not-confirm"]
    # Secure Boot V2 needs chip revision 3: the virtual chip is made one first (not a documented step).
    made = run(
        [os.path.join(BIN, "espefuse"), *virtual, "burn-efuse", "CHIP_VER_REV1", "1", "CHIP_VER_REV2", "1"], tmp_path
    )
    assert made.returncode == 0, made.stdout + made.stderr
    summary = ""
    for argv in commands:
        tool, rest = argv[0], argv[1:]
        assert tool in ("espsecure", "espefuse", "esptool"), argv
        if tool == "esptool":
            sub = rest[rest.index("PORT") + 1]
            helped = run([os.path.join(BIN, "esptool"), sub, "--help"], tmp_path)
            assert helped.returncode == 0 and "Usage" in helped.stdout, argv
            continue
        if tool == "espefuse":
            assert rest[:2] == ["--port", "PORT"], argv
            rest = virtual + rest[2:]
        done = run([os.path.join(BIN, tool), *rest], tmp_path)
        assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
        summary = done.stdout
    values = {}
    for line in summary.splitlines():
        m = re.match(r"^(\w+) \(BLOCK\d\).*= (.+?) R", line)
        if m:
            values[m.group(1)] = m.group(2).strip()
    assert values["FLASH_CRYPT_CNT"] == "127"
    assert values["FLASH_CRYPT_CONFIG"] == "15"
    for bit in ("ABS_DONE_1", "DISABLE_DL_ENCRYPT", "DISABLE_DL_DECRYPT", "DISABLE_DL_CACHE", "JTAG_DISABLE"):
        assert values[bit] == "True", bit
    assert values["UART_DOWNLOAD_DIS"] == "True"
    # The files the steps made: keys and the signed, encrypted images.
    for name in ("secure_boot_signing_key.pem", "flash_encryption_key.bin", "firmware-enc.bin", "bootloader-enc.bin"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert (tmp_path / "flash_encryption_key.bin").stat().st_size == 32
