# Drives an App on a SimBoard by its scan and render calls and counts the heap
# a quiet spell and a few rolls allocate: shared by board_alloc.py (the app
# alone) and board_alloc_journal.py (with its journal on littlefs).
import gc

from crapsboard.table.app import KEYSWITCH_NC_BIT


class Flag:
    """An eFuse FAULT flag with its pull-up (high: the feed is alive)."""

    level = 1

    def value(self):
        return self.level


class Probe:
    def __init__(self, app, board, layout):
        self.app = app
        self.board = board
        self.layout = layout
        self.t = 0
        # The keyswitch off: a changeover switch closes its NC contact (neither
        # closed is a keyswitch fault, which the board records at power-up).
        self.idle = KEYSWITCH_NC_BIT if layout.button_pins[-1] is not None else 0
        board.down = self.idle

    def run(self, ms):
        """Scan every 10 ms and render every 50 ms for `ms`."""
        app = self.app
        board = self.board
        for _ in range(ms // 10):
            self.t += 10
            board.now = self.t
            app.step(self.t)
            if self.t % 50 == 0:
                app.render(self.t)

    def press(self, label):
        self.board.down = self.idle | 1 << self.layout.key_index(label)
        self.run(100)
        self.board.down = self.idle
        self.run(100)

    def measure(self, warm_up, settle_ms=0):
        """(bytes over 5 quiet seconds, bytes over the rolls 1-4 3-3 6-6 2-2)
        after pressing `warm_up`, with the collector off while counting."""
        for label in warm_up:
            self.press(label)
        self.run(settle_ms)
        gc.collect()
        gc.disable()
        start = gc.mem_alloc()
        self.run(5000)
        quiet = gc.mem_alloc() - start
        start = gc.mem_alloc()
        for label in "14336622":  # four rolls: point 5 made, 6 (point), 4
            self.press(label)
        rolls = gc.mem_alloc() - start
        gc.enable()
        return quiet, rolls
