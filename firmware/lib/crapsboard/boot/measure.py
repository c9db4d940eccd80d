# The firmware's identity, measured: a hash of the files the board runs, taken
# at power-up by main.py. hello reports it as `firmware_hash`, so a
# board running a changed main.py (or an added module that shadows one) says
# so, whatever its firmware.json declares. The same computation as deploy's
# manifest (host_tools/deploy.py): sha256 over the sorted lines
# "path sha256-hex\n" of every .py and .mpy file anywhere on the filesystem
# and layout.json -- which, on a board as deployed, are exactly the deployed
# firmware files. Read a file at a time through one 512-byte buffer; run once
# and forgotten (~0.1 s per 70 KB on an ESP32's flash, not measured here).
import os
from binascii import hexlify
from hashlib import sha256

_LAYOUT = "layout.json"
_DIR = 0x4000  # os.ilistdir's type of a directory


def _measured_paths(top, out):
    for entry in os.ilistdir(top) if top else os.ilistdir():
        name = entry[0]
        path = top + "/" + name if top else name
        if entry[1] == _DIR:
            _measured_paths(path, out)
        elif name.endswith(".py") or name.endswith(".mpy") or path == _LAYOUT:
            out.append(path)
    return out


def file_hash(path, buf):
    h = sha256()
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            h.update(buf[:n] if n < len(buf) else buf)
    return hexlify(h.digest()).decode()


def firmware_hash():
    """The hex sha256 of the files the board runs (its working directory, the flash's root)."""
    buf = bytearray(512)
    total = sha256()
    for path in sorted(_measured_paths("", [])):
        total.update((path + " " + file_hash(path, buf) + "\n").encode())
    return hexlify(total.digest()).decode()
