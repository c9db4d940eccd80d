"""Where things are in the repository, and the one import-path set-up for CPython.

pytest gets the same paths from `pythonpath` in pyproject.toml; `python -m sim`
calls `bootstrap()` once before it imports a command.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
SHIMS = os.path.join(ROOT, "sim", "shims")  # CPython stand-ins for MicroPython-only modules
PORTABLE = os.path.join(ROOT, "sim", "portable")
BOARD_JSON = os.path.join(ROOT, "hardware", "board.json")


def cpython_environment():
    """os.environ for a CPython child that imports as bootstrap() arranges."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, FIRMWARE_LIB, SHIMS]))


def bootstrap():
    """Put the repository, firmware/lib and the shims on sys.path (idempotent)."""
    for path in (ROOT, FIRMWARE_LIB, SHIMS):
        if path not in sys.path:
            sys.path.insert(0, path)
