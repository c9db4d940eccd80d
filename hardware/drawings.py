#!/usr/bin/env python3
# Generates every derived hardware file from hardware/board.json:
#   wiring.svg, keymap.svg, layout.svg, pinout.md, and the marked sections of BOM.md.
# Usage (from the repo root):  python hardware/drawings.py [--check] [--out DIR]
#   --check   write nothing; exit 1 and name the stale files if any differ
#   --out DIR write the files into DIR instead of hardware/ (BOM.md still reads
#             its hand-written text from hardware/BOM.md)
# CPython 3.11 standard library only; importable: build_all(), write_all().

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import draw_cards  # noqa: E402
import draw_wiring  # noqa: E402
import hwbom  # noqa: E402
import hwbonds  # noqa: E402
import hwbuy  # noqa: E402
import hwdocs  # noqa: E402
import hwlatch  # noqa: E402
import hwlines  # noqa: E402
import hwmodel  # noqa: E402
import hwnet  # noqa: E402
import hwparts  # noqa: E402
import hwprotect  # noqa: E402
import hwsupply  # noqa: E402
import hwwires  # noqa: E402

BOM_SECTIONS = (
    ("parts", hwbom.bom_parts),
    ("wires", hwbom.bom_wires),
    ("carrier", hwnet.netlist_md),
    ("inputs", hwbom.bom_inputs),
    ("power", hwbom.bom_power),
)


def build_all(board_path=hwmodel.BOARD_JSON, hw_dir=HERE):
    """{file name: text} for every generated file, from the board data."""
    board = hwmodel.load(board_path)
    with open(os.path.join(hw_dir, "BOM.md"), encoding="utf-8") as f:
        bom = f.read()
    for name, fn in BOM_SECTIONS:
        bom = hwdocs.splice(bom, name, fn(board))
    return {
        "wiring.svg": draw_wiring.draw(board),
        "keymap.svg": draw_cards.draw_keymap(board),
        "layout.svg": draw_cards.draw_layout(board),
        "pinout.md": hwdocs.pinout_md(board),
        "BOM.md": bom,
    }


def write_all(out_dir=HERE, board_path=hwmodel.BOARD_JSON):
    """Write every generated file into out_dir; returns the paths written."""
    paths = []
    for name, text in sorted(build_all(board_path).items()):
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        paths.append(path)
    return paths


def stale(out_dir=HERE, board_path=hwmodel.BOARD_JSON):
    """Names of generated files in out_dir whose bytes differ from a fresh build."""
    out = []
    for name, text in sorted(build_all(board_path).items()):
        try:
            with open(os.path.join(out_dir, name), "rb") as f:
                same = f.read() == text.encode("utf-8")
        except FileNotFoundError:
            same = False
        if not same:
            out.append(name)
    return out


def main(argv):
    check = "--check" in argv
    out_dir = HERE
    if "--out" in argv:
        i = argv.index("--out")
        if i + 1 >= len(argv):
            print("drawings.py: --out needs a directory", file=sys.stderr)
            return 2
        out_dir = argv[i + 1]
    problems = hwprotect.budget_problems(hwmodel.budget(hwmodel.load()))
    for p in problems:
        print("drawings.py: power budget: " + p, file=sys.stderr)
    board = hwmodel.load()
    inputs = hwlines.input_problems(board) + hwlines.connector_problems(board) + hwwires.wire_problems(board)
    inputs += hwparts.bom_line_problems(hwparts.parts_rows(board))
    inputs += hwlatch.latch_problems(board) + hwsupply.supply_problems(board)
    rows = hwparts.parts_rows(board)
    inputs += hwbuy.quantity_problems(rows, hwbuy.uses(board)) + hwbuy.cable_problems(board)
    inputs += hwparts.cord_problems(board, rows) + hwbonds.bond_problems(hwparts._covered(rows))
    inputs += hwparts.confirm_problems(rows)
    for p in inputs:
        print("drawings.py: inputs: " + p, file=sys.stderr)
    problems += inputs
    if check:
        names = stale(out_dir)
        if names:
            print("drawings.py: out of date: %s (run python hardware/drawings.py)" % ", ".join(names), file=sys.stderr)
            return 1
        print("hardware drawings up to date")
        return 1 if problems else 0
    for path in write_all(out_dir):
        print("wrote " + os.path.relpath(path))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
