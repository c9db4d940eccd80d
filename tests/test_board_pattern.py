"""The start-up patterns' frame (crapsboard/table/board.py `pattern`) under CPython:
the pixels named are lit in the strip's byte order, the rest dark, and a pixel the
strip does not have (a layout without that lamp: -1, or past its end) is skipped.
And the Board hands the keypad its settle wait. board.py imports machine and neopixel,
which CPython has not: the import is given stand-ins (empty ones where `pattern`, which
uses neither, is all that is tested)."""

import importlib
import sys
import types

RED = (64, 0, 0)


def board_module(monkeypatch, pin=None, neopixel=None):
    """crapsboard/table/board.py imported on stand-ins: `pin` as machine.Pin (by default
    its constants only), `neopixel` as the neopixel module (by default empty)."""
    if pin is None:
        pin = type("Pin", (), {"PULL_UP": 1, "PULL_DOWN": 2, "OUT": 3, "IN": 4, "OPEN_DRAIN": 5})
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace(Pin=pin))
    monkeypatch.setitem(sys.modules, "neopixel", neopixel or types.SimpleNamespace())
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


def test_the_keypad_waits_board_jsons_settle_time_after_driving_each_row(monkeypatch):
    # hardware/board.json's keypad.settle_us: after a row is driven low the columns need
    # that long to settle, or the previous row's key ghosts into this one. The board
    # hands the app its time.sleep_us (crapsboard/table/keypad.py's Matrix waits with it).
    import time

    from crapsboard.table import layout as lay
    from crapsboard.table.app import App
    from sim.paths import BOARD_JSON

    class Pin:
        IN, OUT, OPEN_DRAIN, PULL_UP, PULL_DOWN = 1, 3, 7, 2, 1

        def __init__(self, pin, mode=-1, pull=-1, value=1):
            self.level = value

        def value(self, v=None):
            if v is None:
                return 1  # nothing pressed, the NC contact of the keyswitch open
            self.level = v

    class NeoPixel:
        def __init__(self, pin, n):
            self.buf = bytearray(3 * n)

        def write(self):
            pass

    waits = []
    monkeypatch.setattr(time, "ticks_ms", lambda: 0, raising=False)
    monkeypatch.setattr(time, "sleep_us", waits.append, raising=False)
    board_mod = board_module(monkeypatch, Pin, types.SimpleNamespace(NeoPixel=NeoPixel))
    layout = lay.load(BOARD_JSON)
    assert layout.settle_us > 0
    app = App(board_mod.Board(layout), layout)
    app.matrix.scan()
    assert waits == [layout.settle_us] * len(layout.rows)
