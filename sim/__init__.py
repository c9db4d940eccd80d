"""Desktop simulator and analysis tools. Runs the firmware's own modules."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE_LIB = os.path.join(ROOT, "firmware", "lib")
SIM_DIR = os.path.join(ROOT, "sim")
SHIMS = os.path.join(SIM_DIR, "shims")  # CPython stand-ins for MicroPython-only modules

for _path in (SHIMS, FIRMWARE_LIB):
    if _path not in sys.path:
        sys.path.insert(0, _path)
