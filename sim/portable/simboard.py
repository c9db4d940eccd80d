# A simulated board for crapsboard.table.app.App: the same interface as
# crapsboard/table/board.py (rows, cols, buttons, show, feed, ticks_ms), with the
# keypad and button pins wired to a bitmap of inputs held down, a strip that
# keeps the last frame and a clock the caller sets. Runs under CPython and
# MicroPython alike.
from crapsboard.table import keypad


class SimPin:
    """An output pin (a keypad row): remembers the level written."""

    def __init__(self):
        self.level = 1

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v


class _ColumnPin:
    # A keypad column with its pull-up: low while a pressed key joins it to a
    # row being driven low.
    def __init__(self, board, col):
        self._board = board
        self._col = col

    def value(self, v=None):
        board = self._board
        rows = board.rows
        ncols = len(board.cols)
        for r in range(len(rows)):
            if rows[r].level == 0 and board.down & (1 << (r * ncols + self._col)):
                return 0
        return 1


class _ButtonPin:
    def __init__(self, board, index, active_low):
        self._board = board
        self._bit = 1 << (keypad.BUTTON_SHIFT + index)
        self._active_low = active_low

    def value(self, v=None):
        pressed = bool(self._board.down & self._bit)
        return 0 if pressed == self._active_low else 1


class SimBoard:
    """`down` is the input bitmap held now, in keypad.py's bit order: keypad key
    i is bit i, button j (layout.BUTTONS) is bit BUTTON_SHIFT + j."""

    def __init__(self, layout, now_ms=0):
        self.rows = [SimPin() for _ in layout.rows]
        self.cols = [_ColumnPin(self, c) for c in range(len(layout.cols))]
        self.buttons = []
        for i in range(len(layout.button_pins)):
            if layout.button_pins[i] is None:
                self.buttons.append(None)
            else:
                self.buttons.append(_ButtonPin(self, i, layout.button_active_low[i]))
        self.down = 0
        self.now = now_ms
        self.frame = bytearray(3 * layout.pixel_count)
        self.frames = 0
        self.feeds = 0

    def ticks_ms(self):
        return self.now

    def show(self, frame):
        self.frame[:] = frame
        self.frames += 1

    def feed(self):
        self.feeds += 1
