# The simulator's engine room: the firmware App on a SimBoard, driven by key
# scripts on a simulated clock, answering with one JSON line of state.
#
# Shared by CPython (sim/session.py) and MicroPython (sim/portable/mp_run.py);
# the JSON comes from crapsboard.rules.report's dumps, so both runtimes print the same bytes.
from collections import OrderedDict

from crapsboard.base import ticks
from crapsboard.rules import config as cfg
from crapsboard.rules.engine import mask_numbers
from crapsboard.rules.paytables import WAGER_COUNT, WAGER_NAMES
from crapsboard.rules.report import dumps, or_null, printable
from crapsboard.table import entry as en
from crapsboard.table import events
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_BIT, KEYSWITCH_NC_BIT, RENDER_MS, App
from crapsboard.table.lamps import LAMP_COUNT, LAMP_NAMES
from sim.portable.keyscript import (
    CHATTER,
    FLOOR,
    GAP_MS,
    KEY_OFF,
    KEYSWITCH,
    KEYSWITCH_INPUT,
    WAIT,
    KeyScriptError,
    check,
    steps,
)
from sim.portable.simboard import SimBoard

_CONTACTS = KEYSWITCH_BIT | KEYSWITCH_NC_BIT
BOARD_ID = b"simboard"  # the simulated board's id in its journal head (an ESP32 uses its MAC)
RESET_POWER_ON = 1  # machine.PWRON_RESET: every simulated boot follows a power-up


class BootError(Exception):
    """The board could not start (its journal would not mount): it shows the fault."""


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

    def __init__(self, board_path, config_text=None, start_ms=0, flash=None, fresh=False, new_journal=False):
        self.layout = lay.load(board_path)
        config = cfg.loads(config_text) if config_text else None
        self.start_ms = start_ms & ticks.MASK
        self.board = SimBoard(self.layout, self.start_ms)
        self.app = App(self.board, self.layout, config)
        self.flash = flash  # a NorFlash: the board keeps a journal on it
        self.cut = False  # the power was cut: nothing more happens
        self.elapsed = 0  # ms since start, unwrapped
        if flash is not None:
            self._boot(fresh, new_journal)
        self.app.on_event = self._on_event
        self._write = None
        self._events = 0
        self._next_scan = 0
        self._next_render = 0
        self.held = self._contacts(KEY_OFF)  # the inputs the script holds down
        self._chatter = []  # (bits, period_ms, start): inputs flipping on their own

    def _boot(self, fresh, new_journal):
        from crapsboard.journal import journal as jn
        from crapsboard.journal import journal_boot
        from sim.portable import flashfs

        try:
            root = flashfs.mount(self.flash, fresh)
            self.journal = jn.Journal(root, BOARD_ID)
            journal_boot.open_journal(self.app, self.journal, RESET_POWER_ON, self.now(), new_journal)
        except Exception as e:  # MountError, JournalError; or the dead flash read back
            if not self.flash.dead:
                flashfs.unmount()
                raise BootError(
                    "start-up failed, the board shows the fault: " + (str(e.args[0]) if e.args else repr(e))
                )
        self.cut = self.flash.dead  # cut while starting: nothing was shown in this boot
        self._acked = self._state_bytes()
        self._acked_seq = self.journal.seq

    def _state_bytes(self):
        from crapsboard.journal import snapshot

        return snapshot.dumps(self.app.table, 0)

    def close(self):
        if self.flash is not None:
            from sim.portable import flashfs

            flashfs.unmount()

    def _on_event(self, app, kind, arg, t):
        if self.flash is not None and self.flash.dead:
            self.cut = True  # the power failed while this event was written: never shown
            return
        if self.flash is not None:
            self._acked = self._state_bytes()  # what the board showed last, for a cut
            self._acked_seq = self.journal.seq
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
            if t > target or self.cut:
                break
            self.elapsed = t
            board.now = self.now()
            if t == self._next_scan:
                board.down = self.held ^ self._flipped(t)
                app.step(board.now)
                self._next_scan += scan_ms
                if self.flash is not None and self.flash.dead:
                    self.cut = True  # the run ends with the power
                    break
            if t == self._next_render:
                app.render(board.now)
                self._next_render += RENDER_MS
        self.elapsed = target
        board.now = self.now()

    def _contacts(self, position):
        """The keyswitch input bits closed in `position` (keyscript.KEY_*). A
        changeover switch closes its normally-closed contact when off."""
        nc = KEYSWITCH_NC_BIT if self.layout.button_pins[-1] is not None else 0
        return (0, KEYSWITCH_BIT, KEYSWITCH_BIT | nc, 0)[position] | (nc if position == KEY_OFF else 0)

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
            if self.cut:
                return
            if kind == WAIT:
                self.advance(ms)
            elif kind == KEYSWITCH:
                self.held = (self.held & ~_CONTACTS) | self._contacts(bits)
                self.advance(GAP_MS)
            elif kind == CHATTER:
                self._set_chatter(KEYSWITCH_BIT if bits == KEYSWITCH_INPUT else bits, ms)
            elif kind == FLOOR:
                rule = (bits >> 3) - 1 if bits >> 3 else None  # keyscript: rule + 1, 0 not said
                self.app.progressive.told(bits >> 2 & 1, bits & 3, ms, self.now(), rule)
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
        table = app.table
        if self.cut:
            # The power is off: the table the lamps last showed (an event cut
            # while being written was never shown, whatever the runtime's
            # littlefs made of the dropped writes).
            from crapsboard.journal import snapshot_read
            from crapsboard.rules.engine import Table

            table = Table(table.config)
            snapshot_read.loads(self._acked, table, app.table.config)
        else:
            app.render(now)
        entry = app.entry
        hand = OrderedDict()
        hand["shooter"] = table.shooter
        hand["point"] = or_null(table.point)
        hand["fire_points"] = mask_numbers(table.fire_points)
        hand["rolls"] = table.rolls
        state = OrderedDict()
        state["t"] = now
        status = app.status(now)  # the journal's statuses; a keyswitch fault is in the lamps
        status = entry.status(now) if status == en.ST_ERROR else status
        state["status"] = "off" if self.cut else en.STATUS_NAMES[status]
        state["pending"] = or_null(entry.first)
        state["supervisor"] = entry.authorised(now)
        state["hand"] = hand
        state["state"] = table_state(table)
        state["progressive"] = progressive_state(app.progressive, table, now)
        if self.flash is not None:
            state["flash"] = self.flash_state()
        _write_members(state, write)
        write(', "lamps": {')
        write_lamps(app.lamps, write)
        write("}")

    def flash_state(self):
        flash = self.flash
        info = OrderedDict()
        info["writes"] = flash.writes
        info["power_cut"] = self.cut
        info["restored"] = self.app.restored
        info["journal_seq"] = self._acked_seq if self.cut else self.journal.seq
        error = None if self.cut else self.app.journal_error  # after a cut: an artefact of the dead flash
        info["journal_fault"] = or_null(str(error.args[0]) if error is not None and error.args else None)
        return info


def open_flash(path, cut):
    """The NorFlash kept in image file `path` (erased when there is none), set
    to cut the power after its `cut`-th program or erase (0: never), half done."""
    from sim.portable.norflash import BLOCK_COUNT, BLOCK_SIZE, NorFlash

    data = None
    try:
        with open(path, "rb") as f:
            data = bytearray(BLOCK_COUNT * BLOCK_SIZE)  # read in place: the VM holds one copy
            n = f.readinto(data)
            if n != len(data) or f.read(1):
                raise ValueError(path + " is not a flash image of " + str(len(data)) + " bytes")
    except OSError:
        data = None
    flash = NorFlash(data, copy=False)
    flash.raise_cut = False  # littlefs calls the device with the heap locked: it cannot raise there
    flash.cut_mode = "half"
    flash.cut_at = cut
    return flash


def progressive_state(prog, table, now):
    """Each progressive game as the board shows it (link_progressive.status, the
    same fields): the floor's state, the meter in currency and cents, the wagers
    keyed in action, how several winning wagers are paid, and why it is closed;
    in that order on both runtimes."""
    from crapsboard.link import link_progressive
    from crapsboard.table import progressive as pg

    shown = link_progressive.status(prog, table, now)
    games = OrderedDict()
    for name in pg.GAMES:
        game = shown[name]
        games[name] = OrderedDict(
            (k, game[k]) for k in ("state", "amount", "cents", "wagers", "pays", "closed") if k in game
        )
    return games


def table_state(table):
    """The rule state a journal restores: rolls, shooter, point, Fire points, each wager's marks."""
    state = OrderedDict()
    state["rolls"] = table.rolls
    state["shooter"] = table.shooter
    state["point"] = or_null(table.point)
    state["fire_points"] = mask_numbers(table.fire_points)
    marks = OrderedDict()
    for w in range(WAGER_COUNT):
        marks[WAGER_NAMES[w]] = mask_numbers(table.marks(w))
    state["marks"] = marks
    return state


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
