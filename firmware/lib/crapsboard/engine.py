# The rules engine: the table's state as a fold over dice rolls and hand ends.
#
# Pure and deterministic (no I/O, no clock). State is small ints and bitmasks
# (bit n set = number n marked); a roll that resolves nothing allocates nothing
# under MicroPython. Resolutions of the last event are left in two preallocated
# lists, `res_wager` and `res_level`, `res_count` long. See docs/rules.md.
from micropython import const

from crapsboard import paytables as pt
from crapsboard.config import Config, ConfigError

_POINTS = const(0x0770)  # 4, 5, 6, 8, 9, 10
_SMALL = const(0x007C)  # 2, 3, 4, 5, 6
_TALL = const(0x1F00)  # 8, 9, 10, 11, 12
_ALL = const(0x1F7C)  # every total but 7

FIRE_WINDOW = const(0)  # new shooter, no point established yet: Fire Bets accepted
FIRE_WORKING = const(1)  # bets in action, window closed
FIRE_DONE = const(2)  # paid at six points; no new Fire Bet until the next shooter

_END_HAND = const(0)  # event code in the undo ring; a roll is d1 * 8 + d2
_HISTORY = const(16)  # events kept for undo beyond the last checkpoint
_STATE_FIELDS = const(14)

# Wager indexes (as in paytables), folded at compile time on MicroPython.
_FIRE = const(0)
_ALL_SMALL = const(1)
_ALL_TALL = const(2)
_MAKE_EM_ALL = const(3)
_MEA_PROGRESSIVE = const(4)
_FIRED_UP = const(5)

# Bit (1 << wager index) of each wager, for `offered` and `bonus_done`.
_SMALL_BIT = const(2)
_TALL_BIT = const(4)
_ALL_BIT = const(8)
_MEA_BIT = const(16)
_FIRED_BIT = const(32)


def popcount(x):
    """Set bits of a mark mask (13 bits at most)."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


def mask_numbers(mask):
    """The numbers 2..12 marked in `mask`, ascending."""
    return [n for n in range(2, 13) if mask & (1 << n)]


class Table:
    """One craps table's shooter hand and side-bet cycles."""

    def __init__(self, config=None):
        self.res_wager = [0] * pt.WAGER_COUNT
        self.res_level = [0] * pt.WAGER_COUNT
        self.res_count = 0
        self._checkpoint_state = [0] * _STATE_FIELDS
        self._events = [0] * _HISTORY
        self._event_count = 0
        self._config = Config()
        self._fired_start = [-1] * 13  # total -> index of the sequence it starts
        self.reset()
        if config is not None:
            self.configure(config)

    # ---- configuration -------------------------------------------------

    @property
    def config(self):
        return self._config

    def configure(self, config):
        """Apply a checked Config. A change to a wager whose cycle is in
        progress is refused (ConfigError) and nothing changes: bets in
        action keep the paytable they were made under."""
        old = self._config
        for w in range(pt.WAGER_COUNT):
            changed = config.paytables[w] is not old.paytables[w] or (config.is_offered(w) != old.is_offered(w))
            if changed and self.in_progress(w):
                key = "paytables." if config.is_offered(w) == old.is_offered(w) else "offered."
                raise ConfigError(
                    key + pt.WAGER_NAMES[w],
                    "a " + pt.WAGER_NAMES[w] + " cycle is in progress; change it when the wager is open for betting",
                )
        self._set_config(config)
        self._event_count = 0  # undo never crosses a configuration change
        self._save_checkpoint()

    def _set_config(self, config):
        self._config = config
        self._offered = config.offered
        self._rebet = config.rebet_after_win
        fired = config.paytables[_FIRED_UP]
        self._fired_sequences = fired.sequences
        for total in range(13):
            self._fired_start[total] = -1
        for i in range(len(fired.sequences)):
            self._fired_start[fired.sequences[i][0]] = i

    # ---- state ---------------------------------------------------------

    def reset(self):
        """A fresh table: first shooter coming out, every cycle empty."""
        self.rolls = 0
        self.shooter = 1
        self.point = 0
        self.die1 = 0
        self.die2 = 0
        self.fire_state = FIRE_WINDOW
        self.fire_points = 0
        self.small_marks = 0
        self.tall_marks = 0
        self.all_marks = 0
        self.bonus_done = 0  # bit w: wager w won and waits for a 7 (rebet_after_win off)
        self.mea_marks = 0
        self.fired_sequence = 0
        self.fired_count = 0
        self.res_count = 0
        self._set_config(self._config)
        self._event_count = 0
        self._save_checkpoint()

    def marks(self, w):
        """Mark mask of wager w's current cycle (Fire: points made by this shooter;
        Fired Up: the numbers matched so far)."""
        if w == _FIRE:
            return self.fire_points
        if w == _ALL_SMALL:
            return self.small_marks
        if w == _ALL_TALL:
            return self.tall_marks
        if w == _MAKE_EM_ALL:
            return self.all_marks
        if w == _MEA_PROGRESSIVE:
            return self.mea_marks
        mask = 0
        if self.fired_count:
            sequence = self._fired_sequences[self.fired_sequence]
            for i in range(self.fired_count):
                mask |= 1 << sequence[i]
        return mask

    def fired_matched(self):
        """The numbers Fired Up has matched, in sequence order."""
        sequence = self._fired_sequences[self.fired_sequence]
        return list(sequence[: self.fired_count])

    def is_open(self, w):
        """Wager w is offered and open for betting before the next roll."""
        if not self._offered & (1 << w):
            return False
        if w == _FIRE:
            return self.fire_state == FIRE_WINDOW
        if w == _FIRED_UP:
            return self.fired_count == 0
        if self.bonus_done & (1 << w):
            return False
        return self.marks(w) == 0

    def in_progress(self, w):
        """Wager w has bets in action that the next rolls will settle."""
        if w == _FIRE:
            return self.fire_state == FIRE_WORKING
        if self.bonus_done & (1 << w):
            return False
        return self.marks(w) != 0

    def pays(self, w, level):
        """Pay per unit for wager w at `level` under the current paytable."""
        return self._config.paytables[w].pays[level]

    # ---- events --------------------------------------------------------

    def end_hand(self):
        """Operator action: the shooter leaves without a seven-out."""
        self._record(_END_HAND)
        self.res_count = self._new_shooter(0)
        return self.res_count

    def undo(self):
        """Restore the state before the last roll or hand end. False when no
        event is left to undo (at most _HISTORY back, never past a reconfigure)."""
        if self._event_count == 0:
            return False
        # Re-feeding the events rewrites the same ring slots with the same codes.
        count = self._event_count - 1
        self._load_checkpoint()
        self._event_count = 0
        events = self._events
        for i in range(count):
            code = events[i]
            if code == _END_HAND:
                self.end_hand()
            else:
                self.roll(code >> 3, code & 7)
        self.res_count = 0
        return True

    def _record(self, code):
        if self._event_count == _HISTORY:
            self._save_checkpoint()
            self._event_count = 0
        self._events[self._event_count] = code
        self._event_count += 1

    def _resolve(self, n, w, level):
        # Only offered wagers are reported; returns the new resolution count.
        if self._offered & (1 << w):
            self.res_wager[n] = w
            self.res_level[n] = level
            return n + 1
        return n

    def _new_shooter(self, n):
        if self.fire_state != FIRE_DONE:
            n = self._resolve(n, _FIRE, popcount(self.fire_points))
        self.shooter += 1
        self.point = 0
        self.fire_points = 0
        self.fire_state = FIRE_WINDOW
        return n

    def roll(self, die1, die2):
        """Apply one roll; returns how many wager cycles it resolved."""
        # The hot path: one call per roll, resolutions written inline, because
        # a method call costs as much as the rest of a quiet roll.
        if die1 < 1 or die1 > 6 or die2 < 1 or die2 > 6:
            raise ValueError("die faces must be 1-6")
        count = self._event_count
        if count == _HISTORY:
            self._save_checkpoint()
            count = 0
        self._events[count] = die1 * 8 + die2
        self._event_count = count + 1
        total = die1 + die2
        bit = 1 << total
        self.die1 = die1
        self.die2 = die2
        self.rolls += 1
        offered = self._offered
        res_wager = self.res_wager
        res_level = self.res_level
        n = 0
        if total == 7:
            if self.point:
                n = self._new_shooter(n)  # seven-out
            n = self._seven(n)
        else:
            point = self.point
            if point == 0:
                if bit & _POINTS:
                    self.point = total
                    if self.fire_state == FIRE_WINDOW:
                        self.fire_state = FIRE_WORKING
            elif total == point:
                self.point = 0
                made = self.fire_points
                if self.fire_state == FIRE_WORKING and not made & bit:
                    made |= bit
                    self.fire_points = made
                    if made == _POINTS:
                        n = self._resolve(n, _FIRE, 6)
                        self.fire_state = FIRE_DONE
            done = self.bonus_done
            if bit & _SMALL:
                marks = self.small_marks
                if not (done & _SMALL_BIT or marks & bit):
                    marks |= bit
                    if marks == _SMALL:
                        n = self._win_bonus(n, _ALL_SMALL, 5)
                        marks = 0
                    self.small_marks = marks
            else:
                marks = self.tall_marks
                if not (done & _TALL_BIT or marks & bit):
                    marks |= bit
                    if marks == _TALL:
                        n = self._win_bonus(n, _ALL_TALL, 5)
                        marks = 0
                    self.tall_marks = marks
            marks = self.all_marks
            if not (done & _ALL_BIT or marks & bit):
                marks |= bit
                if marks == _ALL:
                    n = self._win_bonus(n, _MAKE_EM_ALL, 10)
                    marks = 0
                self.all_marks = marks
            marks = self.mea_marks
            if marks & bit:
                if offered & _MEA_BIT:
                    res_wager[n] = _MEA_PROGRESSIVE
                    res_level[n] = popcount(marks)
                    n += 1
                self.mea_marks = 0
            else:
                marks |= bit
                if marks == _ALL:
                    n = self._resolve(n, _MEA_PROGRESSIVE, 10)
                    marks = 0
                self.mea_marks = marks
        # Fired Up: a 7 is simply a roll that matches no sequence.
        count = self.fired_count
        if count == 0:
            start = self._fired_start[total]
            if start >= 0:
                self.fired_sequence = start
                self.fired_count = 1
            elif offered & _FIRED_BIT:
                res_wager[n] = _FIRED_UP
                res_level[n] = 0
                n += 1
        else:
            sequence = self._fired_sequences[self.fired_sequence]
            if sequence[count] == total:
                count += 1
                if count < len(sequence):
                    self.fired_count = count
                    self.res_count = n
                    return n
            if offered & _FIRED_BIT:
                res_wager[n] = _FIRED_UP
                res_level[n] = count
                n += 1
            self.fired_count = 0
        self.res_count = n
        return n

    def _seven(self, n):
        # Every Bonus Craps bet in action and the MEA Progressive lose.
        open_bonus = ~self.bonus_done & self._offered
        res_wager = self.res_wager
        res_level = self.res_level
        if open_bonus & _SMALL_BIT:
            res_wager[n] = _ALL_SMALL
            res_level[n] = popcount(self.small_marks)
            n += 1
        if open_bonus & _TALL_BIT:
            res_wager[n] = _ALL_TALL
            res_level[n] = popcount(self.tall_marks)
            n += 1
        if open_bonus & _ALL_BIT:
            res_wager[n] = _MAKE_EM_ALL
            res_level[n] = popcount(self.all_marks)
            n += 1
        if self._offered & _MEA_BIT:
            res_wager[n] = _MEA_PROGRESSIVE
            res_level[n] = popcount(self.mea_marks)
            n += 1
        self.small_marks = 0
        self.tall_marks = 0
        self.all_marks = 0
        self.bonus_done = 0
        self.mea_marks = 0
        return n

    def _win_bonus(self, n, w, level):
        # Paid and taken down; with rebet_after_win the cycle restarts empty on
        # the next roll, otherwise the wager waits for a 7.
        if not self._rebet:
            self.bonus_done |= 1 << w
        return self._resolve(n, w, level)

    # ---- checkpoint for undo --------------------------------------------

    def _save_checkpoint(self):
        s = self._checkpoint_state
        s[0] = self.rolls
        s[1] = self.shooter
        s[2] = self.point
        s[3] = self.die1
        s[4] = self.die2
        s[5] = self.fire_state
        s[6] = self.fire_points
        s[7] = self.small_marks
        s[8] = self.tall_marks
        s[9] = self.all_marks
        s[10] = self.bonus_done
        s[11] = self.mea_marks
        s[12] = self.fired_sequence
        s[13] = self.fired_count

    def _load_checkpoint(self):
        s = self._checkpoint_state
        self.rolls = s[0]
        self.shooter = s[1]
        self.point = s[2]
        self.die1 = s[3]
        self.die2 = s[4]
        self.fire_state = s[5]
        self.fire_points = s[6]
        self.small_marks = s[7]
        self.tall_marks = s[8]
        self.all_marks = s[9]
        self.bonus_done = s[10]
        self.mea_marks = s[11]
        self.fired_sequence = s[12]
        self.fired_count = s[13]
