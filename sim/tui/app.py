"""`make sim`: the lit board in a full-screen terminal, the keyboard as the dealer keypad.

The firmware app runs underneath on a simulated board (sim/session.py), under
CPython or the MicroPython VM, on a clock that follows the wall clock.
"""

import json
import os
import random
import time

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

from sim import board_svg
from sim.cli import CommandError
from sim.paths import BOARD_JSON
from sim.session import Session
from sim.tui import bindings
from sim.tui import board as tui_board
from sim.tui import text as tui_text

MIN_COLS = 80
MIN_ROWS = 24
TICK_S = 0.1

KEY_TOKENS = bindings.key_tokens()


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q", "app.pop_screen", "close")]  # not ?: it opened this screen

    def __init__(self, board):
        super().__init__()
        self._board = board

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-scroll"):  # longer than a 24-row terminal
            yield Static(tui_text.help_text(self._board), id="help")


class BoardApp(App):
    CSS = """
    Screen { layout: vertical; }
    #hand { height: 1; background: $primary-background; }
    #board { height: 11; border: round $secondary; }
    #lower { height: 1fr; }
    #keys { width: 34; height: 100%; border: round $secondary; }
    #events { width: 1fr; height: 100%; border: round $secondary; }
    #footer { height: 1; background: $primary-background; }
    #too-small { display: none; }
    #help { margin: 1 2; padding: 1 2; border: round $accent; background: $surface; height: auto; }
    """

    def __init__(self, session, board, seed=None, snapshot_dir="."):
        super().__init__()
        self.session = session
        self.board = board
        self.rng = random.Random(seed)
        self.snapshot_dir = snapshot_dir
        self.state = None
        self.events = []
        self.keyswitch = False
        self.windows = tui_text.windows_text(None)  # replaced by build() from the configuration
        self.message = ""
        self._start = time.monotonic()

    # ---- layout ---------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="hand")
        yield Static(id="board")
        with Horizontal(id="lower"):
            yield Static(id="keys")
            yield Static(id="events")
        yield Static(id="footer")
        yield Static(id="too-small")

    def on_mount(self):
        self.query_one("#board").border_title = "marker board"
        self.query_one("#keys").border_title = "keypad · buttons"
        self.query_one("#events").border_title = "events"
        self.apply(self.session.send("wait:0"))
        self.set_interval(TICK_S, self.tick)

    # ---- the simulated board ------------------------------------------------

    def tick(self):
        """Keep the board's clock on the wall clock: blinking, timeouts."""
        behind = int((time.monotonic() - self._start) * 1000) - self.state["t"]
        if behind > 0:
            self.apply(self.session.advance(behind))
        else:
            self.redraw()

    def press(self, tokens):
        self.message = ""
        self.apply(self.session.send(tokens))

    def apply(self, state):
        self.state = state
        self.events.extend(state["events"])
        del self.events[:-200]
        self.redraw()

    def on_key(self, event):
        if isinstance(self.screen, ModalScreen):
            return
        key = event.key
        token = KEY_TOKENS.get(key)
        if token is None and event.character and event.character in "*#":
            token = event.character
        action = bindings.ACTION_NAMES.get(key)
        if token is not None:
            self.press(token)
        elif action == "keyswitch":
            self.keyswitch = not self.keyswitch
            self.press("key:on" if self.keyswitch else "key:off")
        elif action == "roll":
            self.press("%d %d" % (self.rng.randint(1, 6), self.rng.randint(1, 6)))
        elif action == "snapshot":
            self.snapshot()
        elif action == "help":
            self.push_screen(HelpScreen(self.board))
        elif key in ("q", "ctrl+c"):
            self.exit()
        else:
            return
        event.stop()

    def snapshot(self):
        path = os.path.join(self.snapshot_dir, "board-%s.svg" % time.strftime("%Y%m%d-%H%M%S"))
        try:
            board_svg.write(path, BOARD_JSON, self.state)
            self.message = "saved " + path
        except CommandError as e:
            self.message = "cannot save snapshot: " + str(e)
        self.redraw()

    # ---- drawing ----------------------------------------------------------------

    def on_resize(self, event):
        self.redraw()

    def redraw(self):
        if self.state is None:
            return
        try:
            self._draw()
        except NoMatches:
            pass  # a timer tick while the screen is being torn down at exit

    def _draw(self):
        width, height = self.size
        small = width < MIN_COLS or height < MIN_ROWS
        for widget in self.query("#hand, #board, #lower, #footer"):
            widget.display = not small
        notice = self.query_one("#too-small")
        notice.display = small
        if small:
            notice.update(tui_text.too_small(width, height, MIN_COLS, MIN_ROWS))
            return
        board = self.query_one("#board")
        inner_w = max(tui_board.MIN_WIDTH, board.size.width)  # size is the content area
        inner_h = max(1, board.size.height)
        lines = tui_board.render(self.board, self.state["lamps"], inner_w, inner_h, self.state["t"])
        board.update(Text("\n").join(lines))
        board.border_subtitle = tui_text.progressive_line(self.state)
        self.query_one("#hand").update(tui_text.hand_line(self.state, self.session.runtime, self.keyswitch))
        self.query_one("#keys").update(tui_text.keypad_panel(self.board, self.keyswitch, self.windows))
        events = self.query_one("#events")
        events.update(tui_text.event_lines(self.events, max(1, events.size.height), max(20, events.size.width)))
        self.query_one("#footer").update(Text(self.message or bindings.footer(self.board)))


def build(
    runtime="cpython", config_text=None, seed=None, snapshot_dir=".", heapsize=None, flash=None, new_journal=False
):
    with open(BOARD_JSON, encoding="utf-8") as f:
        board = json.load(f)
    from crapsboard.rules import config as cfg

    session = Session(runtime, config_text, heapsize=heapsize, flash=flash, new_journal=new_journal)
    app = BoardApp(session, board, seed, snapshot_dir)
    app.windows = tui_text.windows_text(cfg.loads(config_text) if config_text else None)
    return app


def main(argv):
    import sys

    from sim import runtime
    from sim.cli import ArgumentParser, CommandError, load_config_text
    from sim.run import heap_option
    from sim.session import SessionError

    parser = ArgumentParser(prog="python -m sim board", description=__doc__)
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (see docs/replay.md)")
    parser.add_argument("--seed", type=int, help="seed for the auto-roll key, for repeatable sessions")
    parser.add_argument("--snapshot-dir", default=".", metavar="DIR", help="where the s key saves SVG snapshots")
    parser.add_argument("--heap", metavar="SIZE", help="the MicroPython VM's heap, e.g. 96K (--runtime micropython)")
    parser.add_argument(
        "--flash", metavar="FILE", help="keep the board's flash (its journal) in FILE: the board survives restarts"
    )
    parser.add_argument(
        "--new-journal", action="store_true", help="with --flash: power up with END HAND held and the keyswitch on"
    )
    args = parser.parse_args(argv)
    heapsize = heap_option(args.heap, args.runtime)
    if args.new_journal and not args.flash:
        raise CommandError("--new-journal needs --flash FILE")
    config_text = load_config_text(args.config) if args.config else None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CommandError("the board needs a terminal; for scripts use `python -m sim run` or `python -m sim play`")
    try:
        app = build(args.runtime, config_text, args.seed, args.snapshot_dir, heapsize, args.flash, args.new_journal)
    except (SessionError, runtime.RuntimeMissing) as e:
        raise CommandError(str(e))
    try:
        app.run()
    finally:
        app.session.close()
    return 0
