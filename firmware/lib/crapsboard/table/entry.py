# Dealer entry: key presses in, table actions out. A pure state machine.
#
# A roll is two presses, one per die (1-6). Undo and end hand need supervisor
# authorisation: the keyswitch held on, or a PIN (D, digits, #) whose salted
# PBKDF2-HMAC-SHA256 matches config.supervisor_pin, good for AUTH_MS. Bad input
# returns ACT_ERROR with `error` set and never a table action; an error also
# drops a half-entered roll, so the next two die presses are always a whole
# roll. After a refused or interrupted PIN entry, digits up to #, * or the
# timeout are still PIN digits and are dropped: never dice.
# The progressive wagers' count is `#`, the game (1 MEA, 2 Fired Up), its
# digits (1-99), `#`: ACT_PROG_WAGER with prog_game and prog_count; whether the
# table and the floor take it is the app's to decide (docs/keys.md).
# Time comes in as now_ms; nothing here touches the table or the hardware.
from micropython import const

from crapsboard.base import ticks

# Key codes: 0-9 are the digit keys themselves.
K_CLEAR = const(10)
K_ENTER = const(11)
K_UNDO = const(12)
K_END_HAND = const(13)
K_LAMP_TEST = const(14)
K_PIN = const(15)
_ROLE_KEYS = {
    "clear": K_CLEAR,
    "enter": K_ENTER,
    "undo": K_UNDO,
    "end_hand": K_END_HAND,
    "lamp_test": K_LAMP_TEST,
    "supervisor_pin": K_PIN,
}

# Actions returned by press / chord / keyswitch / tick (also the event kinds).
ACT_NONE = const(0)
ACT_ROLL = const(1)  # die1, die2
ACT_UNDO = const(2)  # via
ACT_END_HAND = const(3)  # via
ACT_LAMP_TEST = const(4)
ACT_ERROR = const(5)  # error
ACT_AUTH_ON = const(6)  # via
ACT_AUTH_OFF = const(7)  # via
ACT_CLEAR = const(8)  # dropped: the die face of the half-entered roll
ACT_PROG_WAGER = const(23)  # prog_game, prog_count (journal kind 23, prog_wager)
ACT_PROG_HIT = const(24)  # not from the keys: the app's record of a progressive top award (kind 24)
ACT_PROG_VOID = const(25)  # not from the keys: an undo took a roll's top award back (kind 25)

# Error reasons (`error` after ACT_ERROR).
ERR_NOT_A_DIE = const(0)
ERR_TWO_KEYS = const(1)
ERR_TIMEOUT = const(2)
ERR_ROLL_PENDING = const(3)
ERR_NOT_AUTHORISED = const(4)
ERR_NOTHING_TO_UNDO = const(5)
ERR_NO_PIN = const(6)
ERR_WRONG_PIN = const(7)
ERR_PIN_LOCKED = const(8)
ERR_PIN_TOO_LONG = const(9)
ERR_UNEXPECTED_KEY = const(10)
ERR_KEYSWITCH_FAULT = const(11)  # both contacts of the changeover keyswitch, or neither
ERR_PROG_COUNT = const(12)  # a progressive count of none, 0 or more than two digits (or a total over 99)
ERR_PROG_CLOSED = const(13)  # the floor's progressive is closed or PENDING: no new wager
ERR_PROG_WINDOW = const(14)  # seed 003 does not take the wager now (its cycle has begun, or not offered)
ERROR_NAMES = (
    "not_a_die",
    "two_keys",
    "timeout",
    "roll_pending",
    "not_authorised",
    "nothing_to_undo",
    "no_pin",
    "wrong_pin",
    "pin_locked",
    "pin_too_long",
    "unexpected_key",
    "keyswitch_fault",
    "prog_count",
    "prog_closed",
    "prog_window",
)

VIA_KEY = const(0)
VIA_PIN = const(1)
VIA_NAMES = ("key", "pin")

# What the status lamp shows.
ST_READY = const(0)
ST_HALF = const(1)
ST_PIN = const(2)
ST_SUPERVISOR = const(3)
ST_ERROR = const(4)
# Shown by the app, not entry: the table was restored from the journal and a
# supervisor has not yet acknowledged it; the journal refused an event.
ST_RESTORED = const(5)
ST_JOURNAL_FAULT = const(6)
STATUS_NAMES = ("ready", "half", "pin", "supervisor", "error", "restored", "journal_fault")

HALF_MS = const(10000)  # a half-entered roll or PIN left this long is refused
ERROR_MS = const(2000)  # the status lamp shows an error this long (or to the next key)
AUTH_MS = const(30000)  # a good PIN authorises for this long (clear ends it sooner)
PIN_DIGITS = const(8)
PIN_TRIES = const(3)  # wrong PINs in a row before the PIN key locks
LOCK_MS = const(60000)


def key_code(role, label):
    """The key code of a keypad key from its board.json role and label."""
    if role == "die" or role == "digit":
        return ord(label) - 48
    return _ROLE_KEYS[role]


def pin_record(pin, salt, iterations):
    """(salt, iterations, digest) of a PIN given as a string of digits: the
    form config.supervisor_pin holds."""
    return (salt, iterations, _pbkdf2(pin.encode(), salt, iterations))


def _pbkdf2(password, salt, iterations):
    # Imported when a PIN is checked, not at boot: a board without a PIN (or
    # one never in PIN mode) keeps about 2 KB of heap free for the journal.
    from crapsboard.base.hmac256 import pbkdf2_sha256

    return pbkdf2_sha256(password, salt, iterations)


class Entry:
    def __init__(self, pin_record=None):
        self.pin_record = pin_record  # config.supervisor_pin, or None: keyswitch only
        self.first = 0  # die face of a half-entered roll, 0 = none
        self.die1 = 0
        self.die2 = 0
        self.error = 0
        self.via = VIA_KEY
        self.dropped = 0
        self.key_on = False  # supervisor keyswitch
        self._pin = bytearray(PIN_DIGITS)
        self._pin_len = 0
        self._pin_mode = False
        self._pin_refused = False  # PIN entry refused or cut short: digits are dropped
        self._pin_auth = False
        self._fails = 0
        self._locked = False
        self._showing_error = False
        self._first_t = 0
        self._pin_t = 0
        self._auth_t = 0
        self._lock_t = 0
        self._error_t = 0
        self.prog_game = 0  # the last progressive count keyed: game (progressive.MEA, FUP) and count
        self.prog_count = 0
        self._prog = 0  # progressive count entry: 0 none, 1 after `#` (the game next), 2 its digits
        self._prog_digits = 0
        self._prog_t = 0

    # ---- queries ---------------------------------------------------------

    def authorised(self, now_ms):
        if self.key_on:
            return True
        return self._pin_auth and ticks.diff(now_ms, self._auth_t) < AUTH_MS

    def status(self, now_ms):
        if self._showing_error and ticks.diff(now_ms, self._error_t) < ERROR_MS:
            return ST_ERROR
        if self._pin_mode or self._pin_refused:
            return ST_PIN
        if self.first or self._prog:
            return ST_HALF
        if self.authorised(now_ms):
            return ST_SUPERVISOR
        return ST_READY

    # ---- inputs ------------------------------------------------------------

    def press(self, key, now_ms):
        """One debounced key press (a key code); returns an ACT_*."""
        self._showing_error = False  # any key ends the error display
        if key == K_LAMP_TEST:
            return ACT_LAMP_TEST  # shows lamps only; a half-entered roll stays
        if self._expired(now_ms):
            return self.fail(ERR_TIMEOUT, now_ms)  # the timeout is the news; this key is not taken
        if self._pin_refused:
            if key != K_PIN and ticks.diff(now_ms, self._pin_t) < HALF_MS:
                return self._refused_pin_key(key, now_ms)
            self._pin_refused = False  # timed out, or D: a PIN entry afresh
        if self._pin_mode:
            return self._pin_key(key, now_ms)
        if self._prog:
            return self._prog_key(key, now_ms)
        if key <= 9:
            if key < 1 or key > 6:
                return self.fail(ERR_NOT_A_DIE, now_ms)
            if not self.first:
                self.first = key
                self._first_t = now_ms
                return ACT_NONE
            self.die1 = self.first
            self.die2 = key
            self.first = 0
            return ACT_ROLL
        if key == K_CLEAR:
            if self.first:
                self.dropped = self.first
                self.first = 0
                return ACT_CLEAR
            if self._pin_auth:
                return self._pin_auth_off()
            return ACT_NONE
        if self.first:
            if key == K_PIN:  # a PIN key refused all the same: its digits are no dice
                return self._refuse_pin(ERR_ROLL_PENDING, now_ms)
            return self.fail(ERR_ROLL_PENDING, now_ms)
        if key == K_PIN:
            if self.pin_record is None:
                return self._refuse_pin(ERR_NO_PIN, now_ms)
            if self._locked and ticks.diff(now_ms, self._lock_t) < LOCK_MS:
                return self._refuse_pin(ERR_PIN_LOCKED, now_ms)
            self._locked = False
            self._pin_mode = True
            self._pin_len = 0
            self._pin_t = now_ms
            return ACT_NONE
        if key == K_UNDO or key == K_END_HAND:
            if not self.authorised(now_ms):
                return self.fail(ERR_NOT_AUTHORISED, now_ms)
            self.via = VIA_KEY if self.key_on else VIA_PIN
            return ACT_UNDO if key == K_UNDO else ACT_END_HAND
        if key == K_ENTER:
            self._prog = 1
            self._prog_t = now_ms
            self.prog_count = 0
            self._prog_digits = 0
            return ACT_NONE
        return self.fail(ERR_UNEXPECTED_KEY, now_ms)

    def chord(self, now_ms):
        """Two or more keys (keypad or buttons) down at once: refused."""
        return self.fail(ERR_TWO_KEYS, now_ms)

    def keyswitch(self, on, now_ms):
        """The supervisor keyswitch's debounced level."""
        if on == self.key_on:
            return ACT_NONE
        self._showing_error = False
        self.key_on = on
        self.via = VIA_KEY
        return ACT_AUTH_ON if on else ACT_AUTH_OFF

    def tick(self, now_ms):
        """Timeouts; call every scan until it returns ACT_NONE."""
        if self._expired(now_ms):
            return self.fail(ERR_TIMEOUT, now_ms)
        if self._pin_auth and ticks.diff(now_ms, self._auth_t) >= AUTH_MS:
            return self._pin_auth_off()
        if self._locked and ticks.diff(now_ms, self._lock_t) >= LOCK_MS:
            self._locked = False
        if self._pin_refused and ticks.diff(now_ms, self._pin_t) >= HALF_MS:
            self._pin_refused = False  # the refused entry timed out: keys are dice again
        if self._showing_error and ticks.diff(now_ms, self._error_t) >= ERROR_MS:
            self._showing_error = False
        return ACT_NONE

    def _expired(self, now_ms):
        # A half-entered roll or PIN left too long.
        if self.first and ticks.diff(now_ms, self._first_t) >= HALF_MS:
            return True
        if self._prog and ticks.diff(now_ms, self._prog_t) >= HALF_MS:
            return True
        return self._pin_mode and ticks.diff(now_ms, self._pin_t) >= HALF_MS

    def fail(self, reason, now_ms):
        """Refuse: show the error, drop any half-entered roll or PIN. A PIN
        entry cut short by the error leaves its remaining digits to be dropped."""
        interrupted = self._pin_mode or self._pin_refused or self._prog
        self._prog = 0
        self.error = reason
        self._showing_error = True
        self._error_t = now_ms
        self.first = 0
        self._end_pin_mode()
        if interrupted and reason != ERR_TIMEOUT:
            self._pin_refused = True
            self._pin_t = now_ms
        return ACT_ERROR

    def _refuse_pin(self, reason, now_ms):
        # The PIN key refused: the digits the supervisor types next are a PIN.
        action = self.fail(reason, now_ms)
        self._pin_refused = True
        self._pin_t = now_ms
        return action

    def _refused_pin_key(self, key, now_ms):
        # Digits after a refused PIN entry are dropped; # or * ends it.
        if key <= 9:
            self._pin_t = now_ms
            return ACT_NONE
        if key == K_ENTER or key == K_CLEAR:
            self._pin_refused = False
            return ACT_NONE
        return self.fail(ERR_UNEXPECTED_KEY, now_ms)

    # ---- the progressive wagers' count ----------------------------------------

    def _prog_key(self, key, now_ms):
        # `#` game digits `#`; an error here drops the digits that follow
        # (as after a refused PIN), so a count's digits are never dice.
        self._prog_t = now_ms
        if key <= 9:
            if self._prog == 1:
                if key != 1 and key != 2:
                    return self.fail(ERR_UNEXPECTED_KEY, now_ms)
                self.prog_game = key - 1
                self._prog = 2
                return ACT_NONE
            if self._prog_digits == 2:
                return self.fail(ERR_PROG_COUNT, now_ms)
            self.prog_count = self.prog_count * 10 + key
            self._prog_digits += 1
            return ACT_NONE
        if key == K_CLEAR:
            self._prog = 0
            return ACT_NONE
        if key != K_ENTER:
            return self.fail(ERR_UNEXPECTED_KEY, now_ms)
        stage = self._prog
        self._prog = 0  # ended by `#`: the keys after it are dice again, refused or not
        if stage != 2 or self.prog_count == 0:
            return self.fail(ERR_PROG_COUNT, now_ms)
        return ACT_PROG_WAGER

    # ---- supervisor PIN ------------------------------------------------------

    def _pin_key(self, key, now_ms):
        if key <= 9:
            if self._pin_len == PIN_DIGITS:
                return self.fail(ERR_PIN_TOO_LONG, now_ms)
            self._pin[self._pin_len] = 48 + key
            self._pin_len += 1
            self._pin_t = now_ms
            return ACT_NONE
        if key == K_PIN:  # start again
            self._pin_len = 0
            self._pin_t = now_ms
            return ACT_NONE
        if key == K_CLEAR:
            self._end_pin_mode()
            return ACT_NONE
        if key != K_ENTER:
            return self.fail(ERR_UNEXPECTED_KEY, now_ms)
        record = self.pin_record  # (salt, iterations, digest); PIN mode needs one
        good = record is not None and _pbkdf2(bytes(self._pin[: self._pin_len]), record[0], record[1]) == record[2]
        self._end_pin_mode()
        if not good:
            self._fails += 1
            if self._fails >= PIN_TRIES:
                self._fails = 0
                self._locked = True
                self._lock_t = now_ms
            return self.fail(ERR_WRONG_PIN, now_ms)
        self._fails = 0
        self._pin_auth = True
        self._auth_t = now_ms
        self.via = VIA_PIN
        return ACT_AUTH_ON

    def restore_pin(self, fails, lock_ms, now_ms):
        """The PIN rule's state as the journal restored it: `fails` wrong PINs
        in a row so far, and a lockout with `lock_ms` still to run (0: none)."""
        self._fails = fails
        if lock_ms > 0:
            self._locked = True
            self._lock_t = ticks.add(now_ms, lock_ms - LOCK_MS)

    def _end_pin_mode(self):
        self._pin_mode = False
        for i in range(PIN_DIGITS):
            self._pin[i] = 0
        self._pin_len = 0

    def _pin_auth_off(self):
        self._pin_auth = False
        self.via = VIA_PIN
        return ACT_AUTH_OFF
