# The ESP32's `machine` module on the virtual board (`python -m sim device`).
#
# The board program (vboard.py) installs it as sys.modules["machine"], so the
# firmware's board.py, and anything typed at the REPL, gets it. The power lives
# on the CPython side (sim/device.py), outside the VM like the ESP32's reset
# circuit and watchdog timer: reset(), soft_reset() and the watchdog's start
# and feeds are one line each on the control channel, and the CPython side
# restarts the VM. A reset never returns: the VM waits to be killed.
#
# Pins: the keypad and buttons of the board description (the `pins` settings
# CPython wrote from hardware/board.json). What is held down comes from the
# CPython side (sim/keyfeed.py: --keys, --key-feed), one 8-byte word per change
# on a pipe this module polls at most once a millisecond into a buffer made
# once: the key timeline never lives on the firmware's heap, and reading it
# allocates nothing. Every other input reads its pull; outputs remember their
# level.
import sys
import time

# What the virtual board says it is (host_tools deploy accepts it as itself,
# not as an ESP32 with the pinned MicroPython).
VIRTUAL_BOARD = "python -m sim device"
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5

_channel = [None]
_soft_reboot = [None]  # vboard_repl.soft_reboot, set by setup()
_cause = [PWRON_RESET]
_uid = [b"\x24\x0a\xc4\x00\x00\x01"]
_keys = {"rows": [], "cols": [], "buttons": []}
_keys_in = [None]  # the pipe of held-input words (non-blocking)
# A word: the inputs held from then on, and how many ms after the change before it the
# dealer made it (both little-endian 32-bit; sim/keyfeed.py's WORD).
WORD_BYTES = 8
_keys_buf = bytearray(64)  # a multiple of the word: every read ends on a word
_held_now = [0]
_polled_at = [None]  # ticks_ms of the last look at the pipe
# A VM held up by a loaded machine must still see each press its keypad's
# debounce would have seen: a word the dealer held at least CATCH_UP_HOLD_MS is
# replaced only after a look has shown it at that age, and SCAN_SPAN_MS later
# (so every read of that keypad scan showed it too), however late the next word
# came. A change the dealer made sooner (a contact bounce) is applied as it
# comes, so it stays as short as the stall lets it be. A VM that keeps up gets
# each word as it comes.
CATCH_UP_HOLD_MS = 50
SCAN_SPAN_MS = 5
_QUEUE_WORDS = 128  # far more changes than a stall of seconds makes (10 a second at the dealer's pace)
_queue = bytearray(WORD_BYTES * _QUEUE_WORDS)  # a ring of words: made once, nothing allocated per scan
_queue_at = [0, 0]  # ring: first word, count
_applied_at = [0]  # ticks_ms the word held now was applied
_shown_at = [None]  # ticks_ms a look first showed the word held now at CATCH_UP_HOLD_MS of age, or None


def setup(channel, cause, uid, keys, keys_fd, soft_reboot):
    """Called once by vboard.py before anything imports machine."""
    _channel[0] = channel
    _soft_reboot[0] = soft_reboot
    _cause[0] = cause
    _uid[0] = uid
    _keys.update(keys)
    _keys_in[0] = open(keys_fd, "rb")


def tell(line):
    """One line to the CPython side (the power and the watchdog)."""
    channel = _channel[0]
    if channel is not None:
        channel.write(line.encode() + b"\n")


def halt():
    """Wait for the CPython side to cut the power (a reset never returns)."""
    try:
        sys.stdout.flush()
    except (AttributeError, OSError):
        pass
    while True:
        try:
            time.sleep_ms(1000)
        except KeyboardInterrupt:
            pass


def _word(at, k):
    """The 32-bit field k (0: the held inputs, 1: ms after the change before) of the word at byte `at`."""
    queue = _queue
    at += 4 * k
    return queue[at] | queue[at + 1] << 8 | queue[at + 2] << 16 | queue[at + 3] << 24


def _held():
    """The input bitmap held down now (keypad.py's bit order): the words the
    CPython side wrote, in order, each shown as long as the keypad needs to see
    a press the dealer held (above). Allocates nothing (it runs in every keypad scan)."""
    source = _keys_in[0]
    now = time.ticks_ms()
    if source is None or now == _polled_at[0]:
        return _held_now[0]
    _polled_at[0] = now
    buf = _keys_buf
    queue = _queue
    while True:
        n = source.readinto(buf)  # None: nothing new (EAGAIN)
        if not n:
            break
        for i in range(0, n - n % WORD_BYTES, WORD_BYTES):
            first, count = _queue_at
            if count == _QUEUE_WORDS:  # more waiting than a stall makes: keep the newest
                first = (first + 1) % _QUEUE_WORDS
                count -= 1
            at = WORD_BYTES * ((first + count) % _QUEUE_WORDS)
            for k in range(WORD_BYTES):
                queue[at + k] = buf[i + k]
            _queue_at[0] = first
            _queue_at[1] = count + 1
        if n < len(buf):
            break
    first, count = _queue_at
    shown = _shown_at[0]
    if count and (
        _word(WORD_BYTES * first, 1) < CATCH_UP_HOLD_MS
        or shown is not None
        and time.ticks_diff(now, shown) >= SCAN_SPAN_MS
    ):
        _held_now[0] = _word(WORD_BYTES * first, 0)
        _applied_at[0] = now
        _shown_at[0] = None
        _queue_at[0] = (first + 1) % _QUEUE_WORDS
        _queue_at[1] = count - 1
    elif shown is None and time.ticks_diff(now, _applied_at[0]) >= CATCH_UP_HOLD_MS:
        _shown_at[0] = now
    return _held_now[0]


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_DOWN = 1
    PULL_UP = 2
    IRQ_RISING = 1
    IRQ_FALLING = 2
    _made = {}

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 1 if value is None else value
        Pin._made[id] = self

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.level = value

    def value(self, v=None):
        if v is not None:
            self.level = 1 if v else 0
            return None
        if self.mode == Pin.OUT or self.mode == Pin.OPEN_DRAIN:
            return self.level
        return self._input()

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.level = 1

    def off(self):
        self.level = 0

    def _input(self):
        keys = _keys
        cols = keys["cols"]
        if self.id in cols:
            c = cols.index(self.id)
            held = _held()
            ncols = len(cols)
            rows = keys["rows"]
            for r in range(len(rows)):
                row = Pin._made.get(rows[r])
                if row is not None and row.level == 0 and held & (1 << (r * ncols + c)):
                    return 0
            return 1
        for button in keys["buttons"]:
            if button[0] == self.id:
                pressed = bool(_held() & (1 << button[1]))
                return 0 if pressed == bool(button[2]) else 1
        # Every other input on this board idles high: its internal pull-up, or
        # one on the carrier (the eFuse FAULT flags on GPIO34-36 have no other).
        return 0 if self.pull == Pin.PULL_DOWN else 1


class WDT:
    def __init__(self, id=0, timeout=5000):
        tell("wdt " + str(timeout))

    def feed(self):
        tell("feed")


def reset():
    tell("reset")
    halt()


def soft_reset():
    _soft_reboot[0]("friendly")


def reset_cause():
    return _cause[0]


def unique_id():
    return _uid[0]


def freq(hz=None):
    return 160000000


def idle():
    time.sleep_ms(0)


def disable_irq():
    return 0


def enable_irq(state=0):
    return None
