# The app: keypad and buttons -> entry -> engine -> lamps, with an event log.
#
# `step(now_ms)` is one input scan and `render(now_ms)` one lamp frame (sent to
# the strip only when it changed); both
# are plain calls, so the simulator drives them on its own clock. `run()` is
# the thin asyncio shell the board uses: scan, render and watchdog tasks.
#
# The board is passed in (crapsboard/table/board.py on the ESP32, sim/portable/simboard.py on
# the desktop): `rows`, `cols` (keypad pins), `buttons` (pins in layout.BUTTONS
# order, None where absent), `show(frame)`, `feed()`, `ticks_ms()`.
#
# With a journal (crapsboard/journal/journal.py) every table event (roll, undo, end
# hand, supervisor on/off) and every wrong PIN (so the PIN lockout survives a
# restart) is appended before the next frame can show it; an
# event the journal refuses is taken back and the board shows the journal
# fault. Without one the hot path allocates nothing (tests/test_board_memory.py).
import asyncio
import gc

from micropython import const

from crapsboard.base import ticks
from crapsboard.journal import snapshot, snapshot_read
from crapsboard.rules.engine import Table
from crapsboard.table import entry as en
from crapsboard.table import keypad
from crapsboard.table import progressive as pg
from crapsboard.table.lamps import Lamps

LOG_SIZE = const(32)  # events kept in RAM (the journal, when there is one, keeps all)
_TABLE_SEQS = const(64)  # seq of recent rolls / hand ends, deeper than the engine's undo ring
RENDER_MS = const(50)
WATCHDOG_CHECK_MS = const(100)  # how often the watchdog task looks; it feeds only if all tasks ran

_KEYS_MASK = const(0x7FFFF)  # keypad keys + undo, end hand, lamp test buttons
KEYSWITCH_BIT = const(0x80000)  # 1 << (keypad.BUTTON_SHIFT + layout.BUTTONS.index("supervisor_key")): tested
KEYSWITCH_NC_BIT = const(0x100000)  # the changeover keyswitch's normally-closed contact, after the buttons
_KEYSWITCH_BITS = const(0x180000)
_BUTTON_KEYS = (en.K_UNDO, en.K_END_HAND, en.K_LAMP_TEST)  # layout.BUTTONS order
_CONFIG = const(16)  # journal_record.CONFIG, without importing the journal
_SCAN_ALIVE = const(1)
_RENDER_ALIVE = const(2)

try:
    from asyncio import sleep_ms
except ImportError:  # CPython: the simulator's smoke test of run()

    async def sleep_ms(delay):
        await asyncio.sleep(delay / 1000)


class App:
    def __init__(self, board, layout, config=None, journal=None, table=None):
        self.board = board
        self.layout = layout
        self.table = Table(config) if table is None else table  # `table`: one restored before the app was built
        self.entry = en.Entry(self.table.config.supervisor_pin)
        self.lamps = Lamps(layout)
        # The last table event's HOLD and its clearance (the link's `verified`), shown by the lamps.
        self.hold = self.lamps.hold
        # The progressive wagers keyed for each game's cycle and the floor's word on it.
        self.progressive = self.lamps.progressive
        self.matrix = keypad.Matrix(board.rows, board.cols, layout.settle_us, getattr(board, "sleep_us", None))
        self.buttons = keypad.Buttons(board.buttons, layout.button_active_low)
        self.debouncer = keypad.Debouncer(layout.debounce_ms)
        self.key_codes = bytearray([en.key_code(layout.roles[i], layout.labels[i]) for i in range(len(layout.labels))])
        # seq of each roll or hand end the table may still undo, so an undo
        # event can name the event it took back (`undone_seq`).
        self._table_seqs = [0] * _TABLE_SEQS
        self._table_events = 0
        self.undone_seq = 0
        # The progressive hits an undo may take back: (the roll's place in
        # _table_events, the prog_hit's journal seq, game, wagers), oldest first.
        self._hits = []
        # The event log: a ring of the last LOG_SIZE events, seq counts them all.
        self.seq = 0
        self.log_kind = bytearray(LOG_SIZE)
        self.log_arg = [0] * LOG_SIZE
        self.log_t = [0] * LOG_SIZE
        # Hook for a journal or the simulator: on_event(app, kind, arg, t) is
        # called after each event, while the table holds its resolutions.
        self.on_event = None
        self.journal = journal  # mounted by crapsboard.journal.journal_boot before the app runs
        if journal is not None:  # the PIN lockout and the HOLD the journal restored
            self.entry.restore_pin(journal.pin_fails, journal.pin_lock_ms, board.ticks_ms())
            self.hold.restore(journal)
            self.progressive.restore(journal.prog)
        self.journal_error = None  # the exception that stopped the journal: no table event is taken after it
        self.restored = False  # restored from the journal: shown until a supervisor acknowledges
        self._maintain_due = False  # an appended event waits for the journal's slow part
        self._shown = False  # a frame was sent since the last append
        self.running = False
        self._alive = 0
        self._changeover = layout.button_pins[-1] is not None  # the keyswitch's NC contact, last
        self.keyswitch_fault = False
        # The keyswitch is judged once at power-up too: with X3 unplugged (neither
        # contact closed) no input ever changes, so waiting for a change would
        # never see the fault. None until the first scan, then its time; True
        # once the contacts have been judged.
        self._keyswitch_judged = None if self._changeover else True
        # Each lamp feed's eFuse FAULT flag (board.feed_faults, active low; none
        # in the simulator): a flag that reads the same for debounce_ms is taken.
        self._feed_flags = getattr(board, "feed_faults", None) or []
        self._flags_raw = 0
        self._flags_since = 0
        self._collected_seq = 0  # the event count at the last idle collection
        self._first_scan = True  # the records a power cut left out are journalled before it

    # ---- one scan -------------------------------------------------------------

    def step(self, now_ms):
        """Read the inputs once, feed entry, apply what it decides."""
        if self._first_scan:
            self._first_scan = False
            self._complete_restored(now_ms)
        raw = self.matrix.scan() | self.buttons.read()
        debouncer = self.debouncer
        pressed = debouncer.update(raw, now_ms)
        entry = self.entry
        action = entry.tick(now_ms)
        while action != en.ACT_NONE:
            self._apply(action, now_ms)
            action = entry.tick(now_ms)
        if debouncer.changed & _KEYSWITCH_BITS:
            self._keyswitch(debouncer.stable, now_ms)
            self._keyswitch_judged = True
        elif self._keyswitch_judged is not True:
            self._keyswitch_at_power_up(raw, now_ms)
        if self._feed_flags:
            self._read_feed_flags(now_ms)
        if self._maintain_due and self._shown and not (debouncer.stable & _KEYS_MASK) and not entry.first:
            self._maintain(now_ms)
        pressed &= _KEYS_MASK
        if pressed:
            down = debouncer.stable & _KEYS_MASK
            if down & (down - 1):  # more than one key or button down
                self._apply(entry.chord(now_ms), now_ms)
            else:
                bit = keypad.lowest_bit(pressed)
                if bit < keypad.BUTTON_SHIFT:
                    key = self.key_codes[bit]
                else:
                    key = _BUTTON_KEYS[bit - keypad.BUTTON_SHIFT]
                self._apply(entry.press(key, now_ms), now_ms)

    def ignore_held_keys(self):
        """Keys and buttons held now (a power-up gesture) are not presses: each
        counts again once released and pressed. The keyswitch is read as usual."""
        self.debouncer.hold((self.matrix.scan() | self.buttons.read()) & _KEYS_MASK)

    def _read_feed_flags(self, now_ms):
        """The eFuse FAULT flags: bit f set while feed f is latched off. The
        lamps lay the fault over what they show (lamps.Lamps.feed_fault)."""
        raw = 0
        flags = self._feed_flags
        for f in range(len(flags)):
            if not flags[f].value():
                raw |= 1 << f
        if raw != self._flags_raw:
            self._flags_raw = raw
            self._flags_since = now_ms
        elif raw != self.lamps.feed_fault and ticks.diff(now_ms, self._flags_since) >= self.debouncer.debounce_ms:
            self.lamps.feed_fault = raw

    def _keyswitch_at_power_up(self, raw, now_ms):
        """One debounce window after the first scan, judge the contacts as
        they stand, changed or not: a contact that reads closed from the
        start has been accepted by then (or, held back by another input's
        chatter, is still pending: then it is judged when accepted), so only
        a real fault remains."""
        first = self._keyswitch_judged
        if first is None:
            self._keyswitch_judged = now_ms
        elif (raw ^ self.debouncer.stable) & _KEYSWITCH_BITS:
            return
        elif ticks.diff(now_ms, first) >= self.debouncer.debounce_ms:
            self._keyswitch_judged = True
            self._keyswitch(self.debouncer.stable, now_ms)

    def _keyswitch(self, stable, now_ms):
        """The keyswitch's contacts, debounced. A changeover switch must show one
        contact closed: both or neither (a shorted or broken lead) is a fault,
        recorded once and shown on the status lamp while it lasts, and the
        keyswitch counts as off, so a short can never mean supervisor mode."""
        on = bool(stable & KEYSWITCH_BIT)
        if self._changeover:
            fault = on == bool(stable & KEYSWITCH_NC_BIT)
            if fault != self.keyswitch_fault:
                self.keyswitch_fault = fault
                if fault:
                    self._apply(self.entry.fail(en.ERR_KEYSWITCH_FAULT, now_ms), now_ms)
            if fault:
                on = False
        self._apply(self.entry.keyswitch(on, now_ms), now_ms)

    def _apply(self, action, now_ms):
        if action == en.ACT_NONE:
            return
        entry = self.entry
        table = self.table
        lamps = self.lamps
        journal = self.journal
        if journal is not None and action <= en.ACT_END_HAND and self.journal_error is not None:
            return  # the journal is stopped: no table event can be made durable, so none is taken
        if action == en.ACT_ROLL:
            points = table.fire_points
            prog = self.progressive
            mea = prog.wagers(table, pg.MEA)
            fup = prog.wagers(table, pg.FUP)
            table.roll(entry.die1, entry.die2)
            arg = entry.die1 * 8 + entry.die2
            if journal is not None:
                if not self._append(action, arg, now_ms):
                    table.undo()
                    return
                self.hold.rolled(table, points, journal.journal_id, journal.seq)
            lamps.celebrate(table, now_ms)
            self._table_event()
            if mea or fup:
                self._log(action, arg, now_ms)
                self._prog_hits(mea, fup, now_ms)
                return
        elif action == en.ACT_UNDO:
            before = None if journal is None else self._state()
            if table.undo():
                if journal is not None and not self._append(action, entry.via, now_ms):
                    self._put_back(before)
                    return
                lamps.stop_celebration()
                if journal is not None:
                    self.hold.moved(journal.journal_id, journal.seq)
                arg = entry.via
                self._table_events -= 1
                self.undone_seq = self._table_seqs[self._table_events % _TABLE_SEQS]
                if self._hits and self._hits[-1][0] == self._table_events:
                    self._log(action, arg, now_ms)
                    self._void_hits(now_ms)
                    return
            else:
                action = entry.fail(en.ERR_NOTHING_TO_UNDO, now_ms)
                arg = entry.error
        elif action == en.ACT_END_HAND:
            table.end_hand()
            arg = entry.via
            if journal is not None:
                if not self._append(action, arg, now_ms):
                    table.undo()
                    return
                self.hold.moved(journal.journal_id, journal.seq)
            lamps.celebrate(table, now_ms)
            self._table_event()
        elif action == en.ACT_PROG_WAGER:
            arg = self._prog_wager(now_ms)
            if arg == 0:
                return
        elif action == en.ACT_LAMP_TEST:
            lamps.lamp_test(now_ms)
            arg = 0
        elif action == en.ACT_ERROR:
            arg = entry.error
            if arg == en.ERR_WRONG_PIN and journal is not None:
                self._append(action, arg, now_ms)  # so the PIN lockout survives a restart
        elif action == en.ACT_CLEAR:
            arg = entry.dropped
        else:  # supervisor on / off
            arg = entry.via
            if journal is not None:
                self._append(action, arg, now_ms)  # the switch has turned all the same
            if action == en.ACT_AUTH_ON:
                self.restored = False  # a supervisor has seen the restored table
        self._log(action, arg, now_ms)

    def _prog_wager(self, now_ms):
        """The dealer keyed a count of progressive wagers: taken only while
        seed 003 takes the wager and the floor's meter is open, journalled
        (kind 23) before it shows. The event's arg (game << 8 | count), or 0 when refused."""
        entry = self.entry
        game = entry.prog_game
        count = entry.prog_count
        prog = self.progressive
        if not self.table.is_open(pg.WAGERS[game]):
            self._apply(entry.fail(en.ERR_PROG_WINDOW, now_ms), now_ms)
            return 0
        if prog.state(game, now_ms) != pg.S_OPEN:
            self._apply(entry.fail(en.ERR_PROG_CLOSED, now_ms), now_ms)
            return 0
        before = prog.count[game], prog.roll[game]
        if not prog.add(self.table, game, count):
            self._apply(entry.fail(en.ERR_PROG_COUNT, now_ms), now_ms)
            return 0
        if self.journal is not None:
            if self.journal_error is not None or not self._append(
                en.ACT_PROG_WAGER, count, now_ms, pg.payload(game, b"roll", self.table.rolls)
            ):
                prog.count[game], prog.roll[game] = before  # not durable: not taken
                return 0
        return game << 8 | count  # the event log's arg: game and count (events.py)

    def _prog_hits(self, mea, fup, now_ms):
        # A roll that paid a progressive's top award with wagers in action on
        # it: journal each hit (kind 24) with its count of winning wagers, for
        # the floor's controller (docs/progressive.md).
        for game, wagers in pg.hits(self.table, (mea, fup)):
            self._prog_hit(game, wagers, now_ms)
            seq = 0 if self.journal is None else self.journal.seq
            self._hits.append((self._table_events - 1, seq, game, wagers))

    def _prog_hit(self, game, wagers, now_ms):
        if self.journal is not None:
            self._append(en.ACT_PROG_HIT, wagers, now_ms, pg.payload(game))
        self._log(en.ACT_PROG_HIT, game << 8 | wagers, now_ms)

    def _void_hits(self, now_ms):
        # The undo took back a roll that hit: the floor must hear that each
        # hit stands no more, in the same step (kind 25, docs/progressive.md).
        hits = self._hits
        first = len(hits)
        while first and hits[first - 1][0] == self._table_events:
            first -= 1
        for i in range(first, len(hits)):
            _, seq, game, wagers = hits[i]
            self._prog_void(seq, game, wagers, now_ms)
        del hits[first:]

    def _prog_void(self, hit_seq, game, wagers, now_ms):
        if self.journal is not None:
            self._append(en.ACT_PROG_VOID, wagers, now_ms, pg.payload(game, b"hit", hit_seq))
        self._log(en.ACT_PROG_VOID, game << 8 | wagers, now_ms)

    def _complete_restored(self, now_ms):
        # A power cut after a roll's record and before all its prog_hit
        # records restores the roll without the hits it paid, and one after
        # an undo's record, without its voids: the records the journal lacks
        # are journalled now, before any input, so the floor hears of each
        # exactly once (docs/progressive.md, "A power cut").
        journal = self.journal
        if journal is None or not self.restored:
            return  # a journal started afresh holds no roll of its own yet
        for hit_seq, game, wagers in journal.voids_due:
            self._prog_void(hit_seq, game, wagers, now_ms)
        for game, wagers in self.progressive.hits_restored(self.table, self.hold):
            if game not in journal.hits_after:
                self._prog_hit(game, wagers, now_ms)

    def configure(self, config, now_ms):
        """A configuration change while running (for the serial link): applied
        and, with a journal, made durable (a CONFIG record with the table
        state) before any frame shows it. ConfigError: refused, nothing
        changed; False: the journal could not record it, so it is not applied."""
        table = self.table
        old = table.config
        table.configure(config)
        if self.journal is not None and not self._append(_CONFIG, 0, now_ms):
            table.configure(old)  # the cycles have not moved: going back is never refused
            return False
        self.entry.pin_record = config.supervisor_pin
        return True

    def record(self, kind, arg, now_ms, payload=b""):
        """A journal record that is not a table event (the link's clock set):
        True once durable; False (the journal stopped) if it could not be."""
        return self._append(kind, arg, now_ms, payload)

    # ---- the journal (only with one attached) ------------------------------------

    def _append(self, kind, arg, now_ms, payload=b""):
        """Make the event durable before any frame shows it; False (and the
        journal stopped) if it could not be."""
        journal = self.journal
        if journal is None or self.journal_error is not None:
            return False
        try:
            journal.append(kind, arg, now_ms, self.table, payload)
        except Exception as e:  # JournalError (full, ...) or OSError: not durable, so not shown
            self.journal_error = e
            return False
        self._maintain_due = True
        self._shown = False
        return True

    def _maintain(self, now_ms):
        # The journal's slow part (block copies and erases, 45-400 ms on a
        # real chip): after the event is on the lamps and no key is down.
        self._maintain_due = False
        journal = self.journal
        if journal is None:
            return
        try:
            journal.maintain(self.table, now_ms)
        except Exception as e:
            self.journal_error = e

    def _state(self):
        return snapshot.dumps(self.table, 0)

    def _put_back(self, state):
        # An undo the journal refused: the table as it was (its undo history
        # is gone, but the journal is stopped, so no table event follows).
        snapshot_read.loads(state, self.table, self.table.config)

    def _table_event(self):
        # The event about to be logged gets seq + 1.
        self._table_seqs[self._table_events % _TABLE_SEQS] = self.seq + 1
        self._table_events += 1
        hits = self._hits
        while hits and hits[0][0] <= self._table_events - _TABLE_SEQS:
            hits.pop(0)  # deeper than any undo reaches

    def _log(self, kind, arg, now_ms):
        i = self.seq % LOG_SIZE
        self.seq += 1
        self.log_kind[i] = kind
        self.log_arg[i] = arg
        self.log_t[i] = now_ms
        if self.on_event is not None:
            self.on_event(self, kind, arg, now_ms)

    def event(self, seq):
        """(kind, arg, t) of event number `seq` (1-based) if still in the ring, else None."""
        if seq < 1 or seq > self.seq or self.seq - seq >= LOG_SIZE:
            return None
        i = (seq - 1) % LOG_SIZE
        return self.log_kind[i], self.log_arg[i], self.log_t[i]

    # ---- one frame ------------------------------------------------------------

    def render(self, now_ms):
        """Render the lamps; write the strip only when the frame changed (an
        event, a blink edge, a celebration or lamp test step)."""
        if self.lamps.render(self.table, self.status(now_ms), now_ms):
            self.board.show(self.lamps.frame)
        self._shown = True  # the strip shows the state now, changed or not

    def status(self, now_ms):
        """What the status lamp shows (entry.ST_*)."""
        if self.journal_error is not None:
            return en.ST_JOURNAL_FAULT
        if self.keyswitch_fault:
            return en.ST_ERROR
        status = self.entry.status(now_ms)
        if self.restored and status == en.ST_READY:
            return en.ST_RESTORED
        return status

    # ---- the asyncio shell ------------------------------------------------------

    def collect_when_idle(self):
        """Collect garbage once after each burst of events, when the table is
        idle: its frame shown, no key down, no roll half-entered. On a PSRAM
        heap a collection scans megabytes and pauses for tens of ms; done here
        it never delays a key or a frame (nothing is allocated per scan or
        frame, so between events there is nothing to collect). True when it ran."""
        if self.seq == self._collected_seq or not self._shown or self._maintain_due:
            return False
        if self.debouncer.stable & _KEYS_MASK or self.entry.first:
            return False
        self._collected_seq = self.seq
        gc.collect()
        return True

    async def _scan_task(self):
        board = self.board
        scan_ms = self.layout.scan_ms
        while self.running:
            self.step(board.ticks_ms())
            self.collect_when_idle()
            self._alive |= _SCAN_ALIVE
            await sleep_ms(scan_ms)

    async def _render_task(self):
        while self.running:
            self.render(self.board.ticks_ms())
            self._alive |= _RENDER_ALIVE
            await sleep_ms(RENDER_MS)

    async def run(self):
        """Scan, render and feed the watchdog until stop(). The watchdog is
        fed only when both other tasks have run since the last feed, so a
        task that dies resets the board."""
        self.running = True
        scan = asyncio.create_task(self._scan_task())
        render = asyncio.create_task(self._render_task())
        while self.running:
            if self._alive == _SCAN_ALIVE | _RENDER_ALIVE:
                self._alive = 0
                self.board.feed()
            await sleep_ms(WATCHDOG_CHECK_MS)
        await scan
        await render

    def stop(self):
        self.running = False
