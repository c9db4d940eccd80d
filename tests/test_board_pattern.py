"""The start-up patterns' frame (crapsboard/table/board.py `pattern`) under CPython:
the pixels named are lit in the strip's byte order, the rest dark, and a pixel the
strip does not have (a layout without that lamp: -1, or past its end) is skipped.
board.py imports machine and neopixel, which CPython has not; `pattern` uses neither,
so the import is given empty ones."""

import importlib
import sys
import types

RED = (64, 0, 0)


def board_module(monkeypatch):
    pin = type("Pin", (), {"PULL_UP": 1, "PULL_DOWN": 2, "OUT": 3, "IN": 4, "OPEN_DRAIN": 5})
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(Pin=pin))
    monkeypatch.setitem(sys.modules, "neopixel", types.SimpleNamespace())
    monkeypatch.delitem(sys.modules, "crapsboard.table.board", raising=False)
    module = importlib.import_module("crapsboard.table.board")
    monkeypatch.delitem(sys.modules, "crapsboard.table.board")
    return module


def test_the_lamps_named_are_lit_in_the_strips_order_the_rest_dark(monkeypatch):
    board = board_module(monkeypatch)
    assert board.pattern(3, "GRB", (0, 2), RED) == bytes([0, 64, 0, 0, 0, 0, 0, 64, 0])
    assert board.pattern(2, "RGB", (1,), (1, 2, 3)) == bytes([0, 0, 0, 1, 2, 3])


def test_a_pixel_the_strip_does_not_have_is_skipped(monkeypatch):
    board = board_module(monkeypatch)
    assert board.pattern(3, "GRB", (-1, 3, 4, 1), RED) == bytes([0, 0, 0, 0, 64, 0, 0, 0, 0])
