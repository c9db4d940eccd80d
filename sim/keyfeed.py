"""The dealer's hands at the virtual board (`python -m sim device --keys/--key-feed`).

What is held down on the keypad, the buttons and the keyswitch, over time, on
the CPython side of the VM: a fixed key script (`--keys SCRIPT`) and/or a key
feed (`--key-feed FILE`), a file in the key-script format of docs/keys.md that
may be appended to while the board runs. Lines appended later are pressed when
they arrive (after whatever was still being pressed). Nothing of it lives on
the firmware's MicroPython heap: sim/device.py writes each change of the held
inputs to the VM as one 8-byte word, which the board's machine.Pin stand-in
reads (sim/portable/vboard_machine.py), so a script of any length leaves the
firmware the same heap.

The hands start when the app first starts its watchdog (the app is running),
and go on across resets, as a dealer's would: presses that fall while the
board restarts are lost.

A line of the feed is taken once, ever: how far the feed has been read is kept
beside it (FILE.pos, rewritten atomically as lines are taken), so a new
`sim device` on the same feed (a restart by a supervisor, a new floor) goes on
from there rather than pressing again what was pressed before. A line taken
but not yet pressed when the device stops is lost, as a press that falls while
the board restarts is.
"""

import collections
import json
import os
import struct
import time

from crapsboard.table.app import KEYSWITCH_BIT, KEYSWITCH_NC_BIT
from sim.portable import keyscript

_CONTACTS = KEYSWITCH_BIT | KEYSWITCH_NC_BIT
# One change of the held inputs on the pipe to the VM (atomic: < PIPE_BUF): the inputs held
# from now on, and how many ms after the change before it the dealer made it (the VM holds a
# press that was meant to last it that long: sim/portable/vboard_machine.py).
WORD = struct.Struct("<II")
MAX_AFTER_MS = 0x3FFFFFFF  # a MicroPython small int: reading it allocates nothing
FEED_POLL_S = 0.05  # how often the feed file is looked at for appended lines
LINE_PRESSED = "line pressed"  # a step after a feed line's last key: logged once the hands are free of it


def _contacts(layout, position):
    # The keyswitch input bits closed in `position` (as sim/portable/run_core.py).
    nc = KEYSWITCH_NC_BIT if layout.button_pins[-1] is not None else 0
    return (0, KEYSWITCH_BIT, KEYSWITCH_BIT | nc, 0)[position] | (nc if position == keyscript.KEY_OFF else 0)


def idle_inputs(layout):
    """The inputs held with nobody at the table: the keyswitch off."""
    return _contacts(layout, keyscript.KEY_OFF)


def script_steps(script, layout):
    """The steps of a key script for the virtual board; KeyScriptError names a bad token."""
    found = []
    for token in keyscript.tokens(script):
        step = keyscript.step(token, layout)
        if step[0] == keyscript.CHATTER:
            raise keyscript.KeyScriptError("chatter: is not available on the virtual board (use `sim run`)")
        found.append(step)
    return found


class Hands:
    """The inputs held over time: steps queued from a script and a feed file,
    turned into changes of the held bitmap on the monotonic clock (seconds),
    timed as `python -m sim run` presses keys (docs/keys.md)."""

    def __init__(self, layout, steps=(), feed_path=None, log=None, clock=time.monotonic):
        self.layout = layout
        self.clock = clock  # the device's clock (monotonic seconds), read again after a slow write
        self.log = log or (lambda line: None)
        self.base = idle_inputs(layout)  # held with no key pressed (the keyswitch's contacts)
        self.held = self.base
        # Every change of the held inputs, as words, until the device has sent them: a device
        # held up past a press and its release still sends both (the VM holds each in turn),
        # never only the last.
        self.unsent = bytearray()
        self.changed_at = None  # when the held inputs last changed (the dealer's time)
        self.steps = collections.deque((None, step) for step in steps)  # (arrival or None, step)
        self.changes = collections.deque()  # (time, held bitmap), in time order
        self.free_at = None  # when the hands are free for the next step
        self.started = False
        self.feed_path = feed_path
        self.feed_offset = 0
        self.feed_partial = b""
        self.feed_line = 0
        self.feed_next_poll = 0.0
        self.feed_resumed = False  # the kept position looked at (once, when the feed is first there)
        self.lines_pressed = collections.deque()  # (when the hands are free after it, feed line number)

    def start(self, now):
        """The app runs: the script starts now, the feed is read from its start."""
        self.started = True
        self.free_at = now
        self.feed_next_poll = now

    # ---- the feed file ------------------------------------------------------

    def position_path(self):
        return self.feed_path + ".pos"

    def _resume(self, stat):
        """Go on from where an earlier device left this same feed file."""
        self.feed_resumed = True
        try:
            with open(self.position_path(), encoding="utf-8") as f:
                kept = json.load(f)
            same = (kept["dev"], kept["ino"]) == (stat.st_dev, stat.st_ino)
            offset, line = int(kept["offset"]), int(kept["line"])
        except (OSError, ValueError, KeyError, TypeError):
            return  # none kept (or unreadable): the feed is read from its start
        if same and 0 <= offset <= stat.st_size:
            self.feed_offset, self.feed_line = offset, line
            self.log("keys: %s read from line %d on (the lines before were taken already)" % (self.feed_path, line + 1))

    def _keep_position(self, stat, line):
        tmp = self.position_path() + ".tmp"
        taken = self.feed_offset - len(self.feed_partial)  # whole lines only
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"dev": stat.st_dev, "ino": stat.st_ino, "offset": taken, "line": line}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.position_path())
        except OSError as e:
            self.log("keys: cannot keep the feed's position in %s: %s" % (self.position_path(), e.strerror or e))

    def _read_feed(self, now):
        """Queue the steps of the whole lines appended to the feed since the last look."""
        self.feed_next_poll = now + FEED_POLL_S
        try:
            with open(self.feed_path, "rb") as f:
                stat = os.fstat(f.fileno())
                size = stat.st_size
                if not self.feed_resumed:
                    self._resume(stat)
                again = size < self.feed_offset
                if again:  # cut short or replaced: read it again from its start
                    self.log("keys: %s is shorter than what was read: reading it from its start" % self.feed_path)
                    self.feed_offset, self.feed_partial, self.feed_line = 0, b"", 0
                f.seek(self.feed_offset)
                data = f.read()
        except FileNotFoundError:
            return  # not made yet: nothing to press
        except OSError as e:
            self.log("keys: cannot read %s: %s" % (self.feed_path, e.strerror or e))
            return
        self.feed_offset += len(data)
        data = self.feed_partial + data
        *lines, self.feed_partial = data.split(b"\n")  # a line is pressed once it is whole
        if lines or again:
            # Kept before the lines are pressed (taken once, ever), and their presses timed from
            # after it: a slow write (fsync) must not eat into the first press's 80 ms.
            self._keep_position(stat, self.feed_line + len(lines))
            now = self.clock()
        for line in lines:
            self.feed_line += 1
            self._queue_line(line, now)

    def _queue_line(self, line, now):
        try:
            steps = script_steps(line.decode("utf-8"), self.layout)
        except UnicodeDecodeError:
            self.log("keys: %s line %d: not UTF-8 text: nothing of it pressed" % (self.feed_path, self.feed_line))
            return
        except keyscript.KeyScriptError as e:
            self.log("keys: %s line %d: %s: nothing of it pressed" % (self.feed_path, self.feed_line, e))
            return
        self.steps.extend((now, step) for step in steps)
        self.steps.append((now, (LINE_PRESSED, self.feed_line, 0)))

    # ---- the timeline ---------------------------------------------------------

    def _schedule(self, arrival, step):
        kind, bits, ms = step
        t = self.free_at if arrival is None else max(self.free_at, arrival)
        if kind == LINE_PRESSED:
            self.lines_pressed.append((max(t, self.free_at), bits))
        elif kind == keyscript.WAIT:
            self.free_at = t + ms / 1000
        elif kind == keyscript.KEYSWITCH:
            self.base = (self.base & ~_CONTACTS) | _contacts(self.layout, bits)
            self.changes.append((t, self.base))
            self.free_at = t + keyscript.GAP_MS / 1000
        else:
            self.changes.append((t, self.base | bits))
            self.changes.append((t + ms / 1000, self.base))
            self.free_at = t + (ms + keyscript.GAP_MS) / 1000

    def advance(self, now):
        """Bring the hands to `now`; True when the held inputs changed."""
        if not self.started:
            return False
        if self.feed_path is not None and now >= self.feed_next_poll:
            self._read_feed(now)
        changed = False
        while True:
            if self.changes and self.changes[0][0] <= now:
                at, held = self.changes.popleft()
                if held != self.held:
                    after = 0 if self.changed_at is None else round((at - self.changed_at) * 1000)
                    self.held, self.changed_at = held, at
                    self.unsent += WORD.pack(held, min(max(after, 0), MAX_AFTER_MS))
                    changed = True
            elif not self.changes and self.steps:
                self._schedule(*self.steps.popleft())
            else:
                break
        while self.lines_pressed and self.lines_pressed[0][0] <= now:
            self.log("keys: %s line %d pressed" % (self.feed_path, self.lines_pressed.popleft()[1]))
        return changed

    def next_change(self):
        """When advance() next has something to do (monotonic seconds), or None."""
        if not self.started:
            return None
        times = []
        if self.changes:
            times.append(self.changes[0][0])
        if self.lines_pressed:
            times.append(self.lines_pressed[0][0])
        if self.feed_path is not None:
            times.append(self.feed_next_poll)
        return min(times) if times else None

    def word(self):
        """The held inputs now, as the VM reads them (what a VM powering up is given)."""
        return WORD.pack(self.held, 0)
