# The lamp renderer: table + entry status + now_ms -> every logical lamp's
# colour and blink, and the LED strip frame. Pure; the colour scheme is in
# docs/lamps.md.
#
# Each lamp has a colour, a blink rate and an `alt` colour it blinks to (off,
# unless a win is being celebrated: then the lamp flashes white and its own
# state in turn, so the celebration never hides the state). `frame` is a
# preallocated bytearray in the strip's byte order, brightness-capped;
# `render` says whether it changed, so an idle board writes no frames (a
# 47-pixel write blocks ~1.4 ms). A lamp-feed fault (a feed's eFuse latched
# off) is laid over the state: `feed_fault` says which feeds are dead;
# `unlit(i)` whether lamp i is meant to be lit on one of them. A HOLD
# surveillance has cleared (`hold`, a hold_state.HoldState the app keeps) shows
# "verified — pay": both alert lamps green, the held wager's lamps flashing
# white slowly with their own state.
from micropython import const

from crapsboard.base import ticks
from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import popcount
from crapsboard.table import progressive as pg
from crapsboard.table.hold_state import HoldState
from crapsboard.table.layout import LAMP_NAMES

C_OFF = const(0)
C_WHITE = const(1)
C_GREEN = const(2)
C_ORANGE = const(3)
C_YELLOW = const(4)
C_VIOLET = const(5)
C_CYAN = const(6)
C_RED = const(7)
C_BLUE = const(8)
RGB = (0x000000, 0xFFFFFF, 0x00FF00, 0xFF5000, 0xFFC000, 0xA000FF, 0x00C0FF, 0xFF0000, 0x0040FF)

BLINK_NONE = const(0)
BLINK_SLOW = const(1)  # SLOW_BLINK_MS on, SLOW_BLINK_MS off
BLINK_FAST = const(2)  # FAST_BLINK_MS on, FAST_BLINK_MS off
# Blink phases are bits of the clock, so a frame needs no per-lamp timers.
_SLOW_SHIFT = const(9)
_FAST_SHIFT = const(7)
SLOW_BLINK_MS = const(1 << _SLOW_SHIFT)  # 512 ms
FAST_BLINK_MS = const(1 << _FAST_SHIFT)  # 128 ms

CELEBRATE_MS = const(4000)
_TEST_STEP_MS = const(500)
LAMP_TEST_MS = const(2000)  # red, green, blue, white: _TEST_STEP_MS each
_TEST_COLORS = (C_RED, C_GREEN, C_BLUE, C_WHITE)

_POINTS = (4, 5, 6, 8, 9, 10)
_NUMBERS = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)

# Logical lamps (layout.LAMP_NAMES names them, in this order).
L_STATUS = const(0)
L_FLOOR = const(1)
L_MANAGER = const(2)
L_POINT_OFF = const(3)
L_POINT = const(4)  # + index in _POINTS
L_FIRE_OPEN = const(10)
L_FIRE = const(11)  # + index in _POINTS
L_SMALL_OPEN = const(17)
L_TALL_OPEN = const(18)
L_ALL_OPEN = const(19)
L_BONUS = const(20)  # + index in _NUMBERS
L_MEA_OPEN = const(30)
L_MEA = const(31)  # + index in _NUMBERS
L_FIRED_OPEN = const(41)
L_FIRED = const(42)  # fired.1 .. fired.5
LAMP_COUNT = const(47)
_OPEN_LAMP = (L_FIRE_OPEN, L_SMALL_OPEN, L_TALL_OPEN, L_ALL_OPEN, L_MEA_OPEN, L_FIRED_OPEN)

# Status lamp: colour and blink for each entry status (entry.ST_*); the
# printed key card (hardware/draw_cards.py) reads these too.
# Restored — verify: cyan, slow blink; journal fault: orange, fast blink (no
# other status or start-up pattern uses those colours).
STATUS_COLOR = (C_GREEN, C_YELLOW, C_BLUE, C_BLUE, C_RED, C_CYAN, C_ORANGE)
STATUS_BLINK = (BLINK_NONE, BLINK_SLOW, BLINK_SLOW, BLINK_NONE, BLINK_FAST, BLINK_SLOW, BLINK_FAST)
# A lamp-feed fault, laid over the state (docs/lamps.md): red, slow blink.
FEED_FAULT_COLOR = C_RED
FEED_FAULT_BLINK = BLINK_SLOW


class Lamps:
    def __init__(self, layout):
        for name in layout.pixels:
            if name not in LAMP_NAMES:
                raise ValueError("board.json lamp " + repr(name) + " is not a known lamp")
        self.pixel = bytearray(LAMP_COUNT)
        for i in range(LAMP_COUNT):
            if LAMP_NAMES[i] not in layout.pixels:
                raise ValueError("board.json has no lamp " + repr(LAMP_NAMES[i]))
            self.pixel[i] = layout.pixels[LAMP_NAMES[i]]
        self.frame = bytearray(3 * layout.pixel_count)
        self.color = bytearray(LAMP_COUNT)
        self.alt = bytearray(LAMP_COUNT)
        self.blink = bytearray(LAMP_COUNT)
        # Palette in the strip's byte order, scaled to the brightness cap.
        self._palette = bytearray(3 * len(RGB))
        top = layout.max_brightness
        for c in range(len(RGB)):
            for k in range(3):
                shift = (16, 8, 0)["RGB".index(layout.order[k])]
                self._palette[3 * c + k] = (((RGB[c] >> shift) & 0xFF) * top + 127) // 255
        self._fresh = True  # the first frame is new whatever it shows
        self._testing = False
        self._test_t = 0
        self._cel_wagers = 0  # bit w: wager w's win is being celebrated
        self._cel_masks = [0] * pt.WAGER_COUNT  # numbers to flash (Fired Up: matches)
        self._cel_t = [0] * pt.WAGER_COUNT
        self._feed_first = layout.feed_first  # board.json strip.feed_first_pixels
        self.feed_count = len(layout.feed_first)
        self.feed_fault = 0  # bit f: feed f is latched off (App sets it)
        self.hold = HoldState()  # the last table event's HOLD (the app keeps it): "verified — pay" once cleared
        self.progressive = pg.Progressive()  # the progressive wagers keyed and the floor's meter (the app keeps it)

    # ---- what to show besides the state --------------------------------

    def lamp_test(self, now_ms):
        self._testing = True
        self._test_t = now_ms

    def celebrate(self, table, now_ms):
        """After an event: flash the lamps of each wager it won for CELEBRATE_MS,
        with the marks the engine says it won with. Celebrations of earlier
        wins run on to their end."""
        for i in range(table.res_count):
            if table.res_outcome[i] != pt.OUT_WIN:
                continue
            w = table.res_wager[i]
            marks = table.res_marks[i]
            self._cel_masks[w] = popcount(marks) if w == pt.FIRED_UP else marks  # Fired Up: lamps lit
            self._cel_wagers |= 1 << w
            self._cel_t[w] = now_ms

    def stop_celebration(self):
        self._cel_wagers = 0

    # ---- rendering ---------------------------------------------------------

    def render(self, table, status, now_ms):
        """Fill color/alt/blink from the state, then the strip frame; True
        when the frame's bytes differ from the last render's (or it is the first)."""
        color = self.color
        for i in range(LAMP_COUNT):
            color[i] = C_OFF
            self.alt[i] = C_OFF
            self.blink[i] = BLINK_NONE
        since = ticks.diff(now_ms, self._test_t)
        if self._testing and 0 <= since < LAMP_TEST_MS:
            c = _TEST_COLORS[since // _TEST_STEP_MS]
            for i in range(LAMP_COUNT):
                color[i] = c
            return self._write_frame(now_ms)
        self._testing = False
        color[L_STATUS] = STATUS_COLOR[status]
        self.blink[L_STATUS] = STATUS_BLINK[status]
        if table.point:
            color[L_POINT + _POINTS.index(table.point)] = C_WHITE
        else:
            color[L_POINT_OFF] = C_WHITE
        offered = table.config.offered
        for w in range(pt.WAGER_COUNT):
            if table.is_open(w):  # offered and open
                color[_OPEN_LAMP[w]] = C_GREEN
        self._progressive(table, now_ms)
        if offered & (1 << pt.FIRE):
            self._fire(table.fire_points)
        self._bonus(table, offered)
        if offered & (1 << pt.MEA_PROGRESSIVE):
            for i in range(10):
                if table.mea_marks & (1 << _NUMBERS[i]):
                    color[L_MEA + i] = C_YELLOW
        if offered & (1 << pt.FIRED_UP):
            for i in range(table.fired_count):
                color[L_FIRED + i] = C_YELLOW
        if self._cel_wagers:
            self._celebration(now_ms)
        if self.hold.verified:
            self._verified(self.hold)
        if self.feed_fault:
            self._feed_fault()
        return self._write_frame(now_ms)

    def feed_of(self, lamp):
        """The power feed (0 = F1) of a logical lamp."""
        first = self._feed_first
        f = 0
        while f + 1 < len(first) and self.pixel[lamp] >= first[f + 1]:
            f += 1
        return f

    def unlit(self, lamp):
        """Lamp is meant to be lit (after the last render) but its feed is dead."""
        return self.color[lamp] != C_OFF and (self.feed_fault >> self.feed_of(lamp)) & 1

    def _feed_fault(self):
        # Red, slow blink on the status lamp, or, when the status lamp's own
        # feed is dead, on the first lamp of every feed still powered.
        dead = self.feed_fault
        for i in range(LAMP_COUNT):
            f = self.feed_of(i)
            if (dead >> f) & 1 or (
                i != L_STATUS and (self.pixel[i] != self._feed_first[f] or not (dead >> self.feed_of(L_STATUS)) & 1)
            ):
                continue
            self.color[i] = FEED_FAULT_COLOR
            self.alt[i] = C_OFF
            self.blink[i] = FEED_FAULT_BLINK

    def _fire(self, points):
        for i in range(6):
            if points & (1 << _POINTS[i]):
                self.color[L_FIRE + i] = C_ORANGE
        made = popcount(points)
        if made >= 4:
            self.color[L_FLOOR] = C_YELLOW
            self.blink[L_FLOOR] = BLINK_SLOW
        if made >= 5:
            self.color[L_MANAGER] = C_RED
            self.blink[L_MANAGER] = BLINK_SLOW

    def _bonus(self, table, offered):
        # bonus.N belongs to All Small (2-6) or All Tall (8-12) and to Make 'Em
        # All. Yellow: marked in every offered cycle that has N. After a rebet
        # the cycles differ: violet = only Make 'Em All has it, cyan = only
        # All Small / All Tall has it.
        all_on = offered & (1 << pt.MAKE_EM_ALL)
        for i in range(10):
            n = _NUMBERS[i]
            bit = 1 << n
            if n < 7:
                side_on = offered & (1 << pt.ALL_SMALL)
                in_side = side_on and table.small_marks & bit
            else:
                side_on = offered & (1 << pt.ALL_TALL)
                in_side = side_on and table.tall_marks & bit
            in_all = all_on and table.all_marks & bit
            if in_side and (in_all or not all_on) or (in_all and not side_on):
                self.color[L_BONUS + i] = C_YELLOW
            elif in_all:
                self.color[L_BONUS + i] = C_VIOLET
            elif in_side:
                self.color[L_BONUS + i] = C_CYAN

    def _progressive(self, table, now_ms):
        # mea.open / fired.open (docs/lamps.md): blue while keyed wagers are in
        # action; over green, red while the floor says closed (or went
        # silent) and violet, slow blink, while its meter is locked or PENDING.
        # A board that never heard the floor shows the window as before.
        prog = self.progressive
        for game in range(2):  # pg.MEA, pg.FUP; a range allocates nothing per frame
            lamp = _OPEN_LAMP[pg.WAGERS[game]]
            if prog.wagers(table, game):
                self.color[lamp] = C_BLUE
            elif self.color[lamp] == C_GREEN and prog.heard[game] is not None:
                state = prog.state(game, now_ms)
                if state == pg.S_CLOSED:
                    self.color[lamp] = C_RED
                elif state != pg.S_OPEN:
                    self.color[lamp] = C_VIOLET
                    self.blink[lamp] = BLINK_SLOW

    def _celebration(self, now_ms):
        for w in range(pt.WAGER_COUNT):
            if not self._cel_wagers & (1 << w):
                continue
            if ticks.diff(now_ms, self._cel_t[w]) >= CELEBRATE_MS:
                self._cel_wagers &= ~(1 << w)
                continue
            self._wager_lamps(w, self._cel_masks[w], BLINK_FAST)

    def _wager_lamps(self, w, mask, blink):
        # Wager w's open lamp and the lamps of `mask` (Fired Up: the count lit).
        self._flash(_OPEN_LAMP[w], blink)
        if w == pt.FIRE:
            for i in range(6):
                if mask & (1 << _POINTS[i]):
                    self._flash(L_FIRE + i, blink)
        elif w == pt.FIRED_UP:
            for i in range(mask):
                self._flash(L_FIRED + i, blink)
        else:
            base = L_MEA if w == pt.MEA_PROGRESSIVE else L_BONUS
            for i in range(10):
                if mask & (1 << _NUMBERS[i]):
                    self._flash(base + i, blink)

    def _flash(self, lamp, blink=BLINK_FAST):
        # White in turn with the lamp's own state; once only per lamp (a
        # win's fast flash first: "verified — pay" after a HOLD's own win
        # shows once its 4 s are over).
        if self.blink[lamp] != BLINK_FAST and self.color[lamp] != C_WHITE:
            self.alt[lamp] = self.color[lamp]
            self.color[lamp] = C_WHITE
            self.blink[lamp] = blink

    def _verified(self, hold):
        # "Verified — pay" (docs/lamps.md): both alert lamps green, steady; the
        # held wagers' lamps (its open lamp and the lamps it won with) flash
        # white at the slow rate with their own state.
        self.color[L_FLOOR] = C_GREEN
        self.blink[L_FLOOR] = BLINK_NONE
        self.color[L_MANAGER] = C_GREEN
        self.blink[L_MANAGER] = BLINK_NONE
        for w in range(pt.WAGER_COUNT):
            if hold.wagers & (1 << w):
                self._wager_lamps(w, hold.marks[w], BLINK_SLOW)

    def _write_frame(self, now_ms):
        slow_off = (now_ms >> _SLOW_SHIFT) & 1
        fast_off = (now_ms >> _FAST_SHIFT) & 1
        frame = self.frame
        palette = self._palette
        changed = self._fresh
        self._fresh = False
        for i in range(LAMP_COUNT):
            c = self.color[i]
            b = self.blink[i]
            if b and (slow_off if b == BLINK_SLOW else fast_off):
                c = self.alt[i]
            p = 3 * self.pixel[i]
            q = 3 * c
            if frame[p] != palette[q] or frame[p + 1] != palette[q + 1] or frame[p + 2] != palette[q + 2]:
                frame[p] = palette[q]
                frame[p + 1] = palette[q + 1]
                frame[p + 2] = palette[q + 2]
                changed = True
        return changed

    # ---- reading back ------------------------------------------------------

    def lamp(self, i):
        """Lamp i as (rgb, blink, alt_rgb) after the last render; rgb 0 = dark."""
        return RGB[self.color[i]], self.blink[i], RGB[self.alt[i]]
