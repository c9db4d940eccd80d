"""Shared test set-up: firmware/lib and the CPython shims on sys.path."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import sim  # noqa: E402,F401  (puts firmware/lib and sim/shims on sys.path)
