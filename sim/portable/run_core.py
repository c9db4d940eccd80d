# The simulator's engine room: the firmware App on a SimBoard, driven by key
# scripts on a simulated clock, answering with one JSON line of state.
#
# Shared by CPython (sim/session.py) and MicroPython (sim/portable/mp_run.py);
# the JSON comes from crapsboard.report's dumps, so both runtimes print the same bytes.
from collections import OrderedDict

from crapsboard import config as cfg
from crapsboard import entry as en
from crapsboard import events, ticks
from crapsboard import layout as lay
from crapsboard.app import KEYSWITCH_BIT, RENDER_MS, App
from crapsboard.engine import mask_numbers
from crapsboard.lamps import LAMP_COUNT, LAMP_NAMES
from crapsboard.report import dumps, or_null, printable

try:  # CPython: the sim package
    from sim.portable.keyscript import CHATTER, GAP_MS, KEYSWITCH, KEYSWITCH_INPUT, WAIT, KeyScriptError, check, steps
    from sim.portable.simboard import SimBoard
except ImportError:  # MicroPython: sim/ itself is on MICROPYPATH
    from keyscript import GAP_MS, KEYSWITCH, WAIT, KeyScriptError, check, steps
    from simboard import SimBoard


def error_json(message):
    record = OrderedDict()
    record["error"] = printable(message)
    return dumps(record)


def _color(rgb):
    return "#%06x" % rgb


def _write_members(record, write):
    # The members of an object, without its braces, one write each.
    first = True
    for key, value in record.items():
        write(("" if first else ", ") + dumps(key) + ": " + dumps(value))
        first = False


class Driver:
    """App + SimBoard + clock. `send(text, write)` runs a key script and writes
    one JSON object: the events as they happen, then the state after the last
    key. Nothing is kept between sends, so a script of any length fits."""

    def __init__(self, board_path, config_text=None, start_ms=0):
        self.layout = lay.load(board_path)
        config = cfg.loads(config_text) if config_text else None
        self.start_ms = start_ms & ticks.MASK
        self.board = SimBoard(self.layout, self.start_ms)
        self.app = App(self.board, self.layout, config)
        self.app.on_event = self._on_event
        self._write = None
        self._events = 0
        self.elapsed = 0  # ms since start, unwrapped
        self._next_scan = 0
        self._next_render = 0
        self.held = 0  # the inputs the script holds down
        self._chatter = []  # (bits, period_ms, start): inputs flipping on their own

    def _on_event(self, app, kind, arg, t):
        if self._events:
            self._write(", ")
        self._write(events.event_json(app.table, app.seq, kind, arg, t, app.undone_seq))
        self._events += 1

    def now(self):
        return ticks.add(self.start_ms, self.elapsed)

    def advance(self, ms):
        """Run the app's scan (every scan_ms) and render (every RENDER_MS) for `ms`."""
        target = self.elapsed + ms
        scan_ms = self.layout.scan_ms
        board = self.board
        app = self.app
        while True:
            t = min(self._next_scan, self._next_render)
            if t > target:
                break
            self.elapsed = t
            board.now = self.now()
            if t == self._next_scan:
                board.down = self.held ^ self._flipped(t)
                app.step(board.now)
                self._next_scan += scan_ms
            if t == self._next_render:
                app.render(board.now)
                self._next_render += RENDER_MS
        self.elapsed = target
        board.now = self.now()

    def _flipped(self, t):
        """The chattering inputs that read the other way at `t` (ms since start)."""
        flips = 0
        for bits, period, start in self._chatter:
            if ((t - start) // period) & 1:
                flips |= bits
        return flips

    def _set_chatter(self, bits, period):
        self._chatter = [c for c in self._chatter if c[0] != bits]
        if period:
            self._chatter.append((bits, period, self.elapsed))

    def run(self, script):
        """Press the keys of a checked script."""
        for kind, bits, ms in steps(script, self.layout):
            if kind == WAIT:
                self.advance(ms)
            elif kind == KEYSWITCH:
                self.held = self.held | KEYSWITCH_BIT if bits else self.held & ~KEYSWITCH_BIT
                self.advance(GAP_MS)
            elif kind == CHATTER:
                self._set_chatter(KEYSWITCH_BIT if bits == KEYSWITCH_INPUT else bits, ms)
            else:
                self.held |= bits
                self.advance(ms)
                self.held &= ~bits
                self.advance(GAP_MS)

    def send(self, text, write):
        """Run a key script and write its JSON (one line, no newline), or
        {"error": ...} with nothing run. Returns False on an error."""
        try:
            check(text, self.layout)
        except KeyScriptError as e:
            write(error_json(str(e.args[0])))
            return False
        self.begin(write)
        try:
            self.run(text)
        finally:
            self.end()
        return True

    def begin(self, write):
        """Open a reply: events are written through `write` as they happen
        while scripts run, until end(). A long script can come in pieces."""
        write('{"events": [')
        self._write = write
        self._events = 0

    def end(self):
        """Close the reply opened by begin() with the state after the last key."""
        write = self._write
        self._write = None
        write("], ")
        self.write_state(write)
        write("}")

    def write_state(self, write):
        """The state now as JSON members (no braces), written in pieces."""
        app = self.app
        now = self.now()
        app.render(now)
        table = app.table
        entry = app.entry
        hand = OrderedDict()
        hand["shooter"] = table.shooter
        hand["point"] = or_null(table.point)
        hand["fire_points"] = mask_numbers(table.fire_points)
        hand["rolls"] = table.rolls
        state = OrderedDict()
        state["t"] = now
        state["status"] = en.STATUS_NAMES[entry.status(now)]
        state["pending"] = or_null(entry.first)
        state["supervisor"] = entry.authorised(now)
        state["hand"] = hand
        _write_members(state, write)
        write(', "lamps": {')
        write_lamps(app.lamps, write)
        write("}")


def write_lamps(lamps, write):
    """name -> {on, color, blink[, alt]} for every logical lamp, in LAMP_NAMES order."""
    for i in range(LAMP_COUNT):
        rgb, blink, alt = lamps.lamp(i)
        lamp = OrderedDict()
        lamp["on"] = bool(rgb)
        lamp["color"] = _color(rgb)
        lamp["blink"] = bool(blink)
        if blink and alt:
            lamp["alt"] = _color(alt)
        write(("" if i == 0 else ", ") + dumps(LAMP_NAMES[i]) + ": " + dumps(lamp))
