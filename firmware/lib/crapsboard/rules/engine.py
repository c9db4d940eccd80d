# The rules engine: the table's state as a fold over dice rolls and hand ends.
#
# Pure and deterministic (no I/O, no clock). State is small ints and bitmasks
# (bit n set = number n marked); a roll that resolves nothing allocates nothing
# under MicroPython. Resolutions of the last event are left in preallocated
# lists, `res_count` long: `res_wager`, `res_level`, `res_outcome` (pt.OUT_*)
# and `res_marks` (the mask the wager settled with). See docs/engine.md.
from micropython import const

from crapsboard.rules import paytables as pt
from crapsboard.rules.config_type import BONUS_IDLE, FIRE_FIRST_ROLL, Config, ConfigError

_POINTS = const(0x0770)  # 4, 5, 6, 8, 9, 10
_SMALL = const(0x007C)  # 2, 3, 4, 5, 6
_TALL = const(0x1F00)  # 8, 9, 10, 11, 12
_ALL = const(0x1F7C)  # every total but 7

# No point established yet: bets accepted (with fire_window "first_roll" only
# until the shooter's first roll), returned at an end hand.
FIRE_WINDOW = const(0)
FIRE_WORKING = const(1)  # a point established: bets in action, settled by points made
FIRE_DONE = const(2)  # paid at six points; no new Fire Bet until the next shooter

_END_HAND = const(0)  # event code in the undo ring; a roll is d1 * 8 + d2
# Undo: the ring holds up to _RING events after the checkpoint; when it fills,
# the checkpoint moves _HISTORY events on, so at least _HISTORY events can
# always be undone, wherever the ring stands.
_HISTORY = const(16)
_RING = const(32)
_RING_MASK = const(31)
_STATE_FIELDS = const(16)
_BONUS_BITS = const(14)  # bits of All Small, All Tall, Make 'Em All (_SMALL_BIT | _TALL_BIT | _ALL_BIT)

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
        self.res_outcome = bytearray(pt.WAGER_COUNT)
        self.res_marks = [0] * pt.WAGER_COUNT
        self.res_count = 0
        # What the last undo reversed: the event code (0 = end hand, else
        # d1 * 8 + d2) and that event's resolutions.
        self.undone = 0
        self.rev_wager = [0] * pt.WAGER_COUNT
        self.rev_level = [0] * pt.WAGER_COUNT
        self.rev_outcome = bytearray(pt.WAGER_COUNT)
        self.rev_count = 0
        self._checkpoint_state = [0] * _STATE_FIELDS
        self._checkpoint_next = [0] * _STATE_FIELDS  # the state _HISTORY events after the checkpoint
        self._scratch_state = [0] * _STATE_FIELDS
        self._events = [0] * _RING
        self._event_start = 0
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
        action keep the paytable they were made under. The windows
        (fire_window, bonus_window) only decide when bets are accepted, so
        they may change at any time."""
        old = self._config
        for w in range(pt.WAGER_COUNT):
            changed = config.paytables[w] is not old.paytables[w] or (config.is_offered(w) != old.is_offered(w))
            if changed and self.in_progress(w):
                key = "paytables." if config.is_offered(w) == old.is_offered(w) else "offered."
                raise ConfigError(
                    key + pt.WAGER_NAMES[w],
                    ("an " if pt.WAGER_NAMES[w][0] in "aeiou" else "a ")
                    + pt.WAGER_NAMES[w]
                    + " cycle is in progress; change it when the wager is open for betting",
                )
        self._set_config(config)
        self._event_count = 0  # undo never crosses a configuration change
        self._save_checkpoint(self._checkpoint_state)

    def _set_config(self, config):
        self._config = config
        self._offered = config.offered
        self._outcomes = [config.paytables[w].outcomes for w in range(pt.WAGER_COUNT)]
        self._rebet = config.rebet_after_win
        self._fire_first_roll = config.fire_window == FIRE_FIRST_ROLL
        self._bonus_idle = config.bonus_window == BONUS_IDLE
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
        self.shooter_start = 0  # `rolls` when this shooter took the dice
        self.bonus_fresh = _BONUS_BITS  # bit w: wager w's cycle has not had a roll yet
        self.small_marks = 0
        self.tall_marks = 0
        self.all_marks = 0
        self.bonus_done = 0  # bit w: wager w won and waits for a 7 (rebet_after_win off)
        self.mea_marks = 0
        self.fired_sequence = 0
        self.fired_count = 0
        self.res_count = 0
        self.rev_count = 0
        self._set_config(self._config)
        self._event_count = 0
        self._save_checkpoint(self._checkpoint_state)

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
        count = self.fired_count
        if not count:  # none in progress: the last one's index may name another paytable's sequence
            return []
        return list(self._fired_sequences[self.fired_sequence][:count])

    def is_open(self, w):
        """Wager w is offered and open for betting before the next roll."""
        if not self._offered & (1 << w):
            return False
        if w == _FIRE:
            return self.fire_state == FIRE_WINDOW and not self._fire_closed_early()
        if w == _FIRED_UP:
            return self.fired_count == 0
        if w == _MEA_PROGRESSIVE:
            return self.mea_marks == 0
        if self.bonus_done & (1 << w):
            return False
        if self._bonus_idle:
            return self.marks(w) == 0
        return bool(self.bonus_fresh & (1 << w))

    def in_progress(self, w):
        """Wager w has bets in action that the next rolls will settle: its
        window has closed and it has not resolved (marks or not)."""
        if w == _FIRE:
            return self.fire_state == FIRE_WORKING or (self.fire_state == FIRE_WINDOW and self._fire_closed_early())
        if w == _FIRED_UP or w == _MEA_PROGRESSIVE:
            return self.marks(w) != 0
        if self.bonus_done & (1 << w):
            return False
        if self._bonus_idle:
            return self.marks(w) != 0
        return not self.bonus_fresh & (1 << w)

    def _fire_closed_early(self):
        # fire_window "first_roll": closed once the shooter has rolled, point or not.
        return self._fire_first_roll and self.rolls != self.shooter_start

    def pays(self, w, level):
        """Pay per unit for wager w at `level` under the current paytable."""
        return self._config.paytables[w].pays[level]

    # ---- events --------------------------------------------------------

    def end_hand(self):
        """Operator action: the shooter leaves without a seven-out. Fire Bets
        in their window (no point established yet) are returned, never lost."""
        self._record(_END_HAND)
        returned = self.fire_state == FIRE_WINDOW
        n = self._new_shooter(0)
        if n:
            self._settle(n)
            if returned:
                self.res_outcome[0] = pt.OUT_RETURNED  # Fire is the only resolution
        self.res_count = n
        return n

    def undo(self):
        """Restore the state before the last roll or hand end; `undone` and
        rev_* then tell what was reversed. False when no event is left to undo
        (at least _HISTORY back are always kept; never past a reconfigure)."""
        count = self._event_count
        if count == 0:
            return False
        # Re-feeding the events rewrites the same ring slots with the same codes.
        events = self._events
        start = self._event_start
        last = events[(start + count - 1) & _RING_MASK]
        self._load_checkpoint(self._checkpoint_state)
        self._event_count = 0
        for i in range(count - 1):
            self._apply(events[(start + i) & _RING_MASK])
        # Apply the last event once more to learn what it resolved, then step back.
        self._save_checkpoint(self._scratch_state)
        self._apply(last)
        n = self.res_count
        for i in range(n):
            self.rev_wager[i] = self.res_wager[i]
            self.rev_level[i] = self.res_level[i]
            self.rev_outcome[i] = self.res_outcome[i]
        self.rev_count = n
        self.undone = last
        self._load_checkpoint(self._scratch_state)
        self._event_count = count - 1
        self.res_count = 0
        return True

    def _apply(self, code):
        if code == _END_HAND:
            self.end_hand()
        else:
            self.roll(code >> 3, code & 7)

    def _record(self, code):
        count = self._event_count
        if count == _HISTORY or count == _RING:  # the only counts where the ring moves on
            count = self._keep_history(count)
        self._events[(self._event_start + count) & _RING_MASK] = code
        self._event_count = count + 1

    def _keep_history(self, count):
        # Called before recording an event when _HISTORY or _RING are held.
        if count == _RING:  # move the checkpoint _HISTORY events on
            s = self._checkpoint_state
            t = self._checkpoint_next
            for i in range(_STATE_FIELDS):
                s[i] = t[i]
            self._event_start = (self._event_start + _HISTORY) & _RING_MASK
            count = _HISTORY
        if count == _HISTORY:
            self._save_checkpoint(self._checkpoint_next)
        return count

    def _resolve(self, n, w, level, marks):
        # Only offered wagers are reported; returns the new resolution count.
        if self._offered & (1 << w):
            self.res_wager[n] = w
            self.res_level[n] = level
            self.res_marks[n] = marks
            return n + 1
        return n

    def _settle(self, n):
        # The outcome of each resolution, decided by its paytable (Paytable.outcomes).
        outcomes = self._outcomes
        res_wager = self.res_wager
        res_level = self.res_level
        res_outcome = self.res_outcome
        for i in range(n):
            res_outcome[i] = outcomes[res_wager[i]][res_level[i]]

    def _new_shooter(self, n):
        if self.fire_state != FIRE_DONE:
            n = self._resolve(n, _FIRE, popcount(self.fire_points), self.fire_points)
        self.shooter += 1
        self.point = 0
        self.fire_points = 0
        self.fire_state = FIRE_WINDOW
        self.shooter_start = self.rolls
        return n

    def roll(self, die1, die2):
        """Apply one roll; returns how many wager cycles it resolved."""
        # The hot path: one call per roll, resolutions written inline, because
        # a method call costs as much as the rest of a quiet roll.
        if die1 < 1 or die1 > 6 or die2 < 1 or die2 > 6:
            raise ValueError("die faces must be 1-6")
        count = self._event_count
        if count == _HISTORY or count == _RING:  # the only counts where the ring moves on
            count = self._keep_history(count)
        self._events[(self._event_start + count) & _RING_MASK] = die1 * 8 + die2
        self._event_count = count + 1
        total = die1 + die2
        bit = 1 << total
        self.die1 = die1
        self.die2 = die2
        self.rolls += 1
        offered = self._offered
        res_wager = self.res_wager
        res_level = self.res_level
        res_marks = self.res_marks
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
                        n = self._resolve(n, _FIRE, 6, made)
                        self.fire_state = FIRE_DONE
            self.bonus_fresh = 0  # a win below may open its wager again
            done = self.bonus_done
            if bit & _SMALL:
                marks = self.small_marks
                if not (done & _SMALL_BIT or marks & bit):
                    marks |= bit
                    if marks == _SMALL:
                        n = self._win_bonus(n, _ALL_SMALL, 5, marks)
                        marks = 0
                    self.small_marks = marks
            else:
                marks = self.tall_marks
                if not (done & _TALL_BIT or marks & bit):
                    marks |= bit
                    if marks == _TALL:
                        n = self._win_bonus(n, _ALL_TALL, 5, marks)
                        marks = 0
                    self.tall_marks = marks
            marks = self.all_marks
            if not (done & _ALL_BIT or marks & bit):
                marks |= bit
                if marks == _ALL:
                    n = self._win_bonus(n, _MAKE_EM_ALL, 10, marks)
                    marks = 0
                self.all_marks = marks
            marks = self.mea_marks
            if marks & bit:
                if offered & _MEA_BIT:
                    res_wager[n] = _MEA_PROGRESSIVE
                    res_level[n] = popcount(marks)
                    res_marks[n] = marks
                    n += 1
                self.mea_marks = 0
            else:
                marks |= bit
                if marks == _ALL:
                    n = self._resolve(n, _MEA_PROGRESSIVE, 10, marks)
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
                res_marks[n] = 0
                n += 1
        else:
            sequence = self._fired_sequences[self.fired_sequence]
            if sequence[count] == total and count + 1 < len(sequence):
                self.fired_count = count + 1
            else:
                if sequence[count] == total:
                    count += 1  # the whole sequence: the top award
                if offered & _FIRED_BIT:
                    res_wager[n] = _FIRED_UP
                    res_level[n] = count
                    res_marks[n] = self._fired_mask(sequence, count)
                    n += 1
                self.fired_count = 0
        # The outcome of each resolution, decided by its paytable (Paytable.outcomes).
        if n:
            outcomes = self._outcomes
            res_outcome = self.res_outcome
            for i in range(n):
                res_outcome[i] = outcomes[res_wager[i]][res_level[i]]
        self.res_count = n
        return n

    def _fired_mask(self, sequence, count):
        mask = 0
        for i in range(count):
            mask |= 1 << sequence[i]
        return mask

    def _seven(self, n):
        # Every Bonus Craps bet in action and the MEA Progressive lose.
        open_bonus = ~self.bonus_done & self._offered
        if open_bonus & _SMALL_BIT:
            n = self._resolve(n, _ALL_SMALL, popcount(self.small_marks), self.small_marks)
        if open_bonus & _TALL_BIT:
            n = self._resolve(n, _ALL_TALL, popcount(self.tall_marks), self.tall_marks)
        if open_bonus & _ALL_BIT:
            n = self._resolve(n, _MAKE_EM_ALL, popcount(self.all_marks), self.all_marks)
        n = self._resolve(n, _MEA_PROGRESSIVE, popcount(self.mea_marks), self.mea_marks)
        self.bonus_fresh = _BONUS_BITS  # every Bonus Craps cycle begins with the next roll
        self.small_marks = 0
        self.tall_marks = 0
        self.all_marks = 0
        self.bonus_done = 0
        self.mea_marks = 0
        return n

    def _win_bonus(self, n, w, level, marks):
        # Paid and taken down; with rebet_after_win the cycle restarts empty on
        # the next roll (open again, as after a 7), otherwise the wager waits for a 7.
        if self._rebet:
            self.bonus_fresh |= 1 << w
        else:
            self.bonus_done |= 1 << w
        return self._resolve(n, w, level, marks)

    # ---- checkpoint for undo --------------------------------------------

    def _save_checkpoint(self, s):
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
        s[14] = self.shooter_start
        s[15] = self.bonus_fresh

    def _load_checkpoint(self, s):
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
        self.shooter_start = s[14]
        self.bonus_fresh = s[15]
