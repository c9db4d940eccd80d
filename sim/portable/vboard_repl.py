# The virtual board's REPL, as MicroPython's pyexec.c runs it on the ESP32:
# friendly REPL (`>>> `, continuation lines, paste mode), raw REPL (Ctrl-A:
# code, Ctrl-D, `OK`, output, 0x04, error text, 0x04, `>`), raw-paste (0x05
# 'A' 0x01, with its flow-control window), Ctrl-B, and Ctrl-D soft reboot.
# The unix port's own REPL has no raw mode, so mpremote could not use it.
#
# Code runs in one persistent globals dict shared by main.py, the friendly and
# the raw REPL, as on the board. Ctrl-C is byte 0x03, read here (or by the
# app's link task, which raises KeyboardInterrupt); when nothing reads it, the
# CPython side sends a SIGINT, which interrupts whatever runs, as the ESP32's
# UART driver does. Every Ctrl-C taken is reported (`intr`), so the SIGINT is
# not sent after all.
#
# A soft reboot cannot be done inside the unix VM (its heap and modules
# would stay): the REPL tells the CPython side, which starts a new VM on the
# same flash with the watchdog left running, and waits for the end.
import gc
import io
import select
import sys

from sim.portable import vboard_machine as machine

CTRL_A = 1
CTRL_B = 2
CTRL_C = 3
CTRL_D = 4
CTRL_E = 5
RAW_PASTE_WINDOW = 128  # half MicroPython's default 256-byte stdin buffer, as pyexec.c offers
_COMPOUND = ("if", "while", "for", "try", "with", "def", "class", "async")


class EndOfInput(Exception):
    """The CPython side closed standard input: the board is going away."""


def interrupted():
    """A Ctrl-C was taken. As pyexec's REPL does, make sure the heap is usable
    again: a KeyboardInterrupt from a SIGINT can leave the collector's lock
    set if it landed in a finaliser, and a collection clears it."""
    try:
        bytearray(8)
    except MemoryError:
        gc.collect()
    machine.tell("intr")


def soft_reboot(mode):
    """Soft reboot: run boot.py (and main.py after a friendly one) in a fresh VM."""
    out(b"MPY: soft reboot\r\n")
    machine.tell("soft " + mode)
    machine.halt()


def out(data):
    if isinstance(data, str):
        data = data.encode()
    sys.stdout.buffer.write(data)


def banner():
    version = sys.version
    at = version.find("MicroPython ")
    version = version[at:] if at >= 0 else "MicroPython " + version
    return (
        version + '; virtual ESP32 (python -m sim device) on the unix port\r\nType "help()" for more information.\r\n'
    )


def traceback_text(e, hide):
    """The exception as the board prints it, without the frames of the REPL itself."""
    buf = io.StringIO()
    sys.print_exception(e, buf)
    lines = []
    for line in buf.getvalue().split("\n"):
        if line.startswith('  File "') and hide in line:
            continue
        lines.append(line)
    return "\r\n".join(lines)


def continues(line):
    """mp_repl_continue_with_input: more lines are needed after `line` (bytes)."""
    try:
        text = line.decode()
    except UnicodeError:  # not UTF-8: no more lines; compile() then refuses it as the board does
        return False
    if not text:
        return False
    first = text.split("\n", 1)[0]
    word = first.split("(")[0].split(" ")[0].split(":")[0]
    compound = first.startswith("@") or word in _COMPOUND
    depth = 0
    quote = None
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if quote is not None:
            if c == "\\":
                i += 1
            elif text.startswith(quote, i):
                i += len(quote) - 1
                quote = None
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "'\"":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote) - 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    if quote is not None and len(quote) == 3:
        return True
    if depth > 0 or quote is not None:
        return True
    if text.endswith("\\"):
        return True
    return compound and not text.endswith("\n")


class Repl:
    def __init__(self, hide):
        self.globals = {"__name__": "__main__"}
        self.hide = hide  # the REPL's own file names, kept out of tracebacks
        stream = sys.stdin.buffer
        self._read = stream.read
        self._poll = select.poll()
        self._poll.register(stream, select.POLLIN)
        self._pushback = bytearray()  # bytes read ahead (drop_unread_ctrl_c)

    # ---- input ----------------------------------------------------------------

    def byte(self):
        """The next byte from the host; a Ctrl-C (SIGINT) while waiting is 0x03."""
        pushback = self._pushback
        if pushback:
            c = pushback[0]
            pushback[0:1] = b""
            return c
        try:
            b = self._read(1)
        except KeyboardInterrupt:
            interrupted()
            return CTRL_C
        if not b:
            raise EndOfInput()
        if b[0] == CTRL_C:
            interrupted()
        return b[0]

    def drop_unread_ctrl_c(self):
        """After code was interrupted: drop the 0x03 that caused it if it is
        still waiting (code that reads no input got a SIGINT instead), so the
        prompt is not cleared once more; what came before it is kept."""
        ahead = bytearray()
        while self._poll.poll(0):
            b = self._read(1)
            if not b or b[0] == CTRL_C:
                break
            ahead.append(b[0])
        self._pushback[:0] = ahead

    # ---- running code ---------------------------------------------------------

    def execute(self, source, mode, name="<stdin>"):
        """Run `source`; None, or the exception it raised (SystemExit: a soft reboot)."""
        try:
            exec(compile(source, name, mode), self.globals)
        except BaseException as e:  # KeyboardInterrupt and SystemExit too: the REPL goes on
            if isinstance(e, KeyboardInterrupt):
                interrupted()
                self.drop_unread_ctrl_c()
            return e
        return None

    def run_file(self, name):
        """Run boot.py or main.py from the flash if it is there, as pyexec_file_if_exists:
        False when it failed (the board then skips main.py after boot.py)."""
        try:
            with open(name) as f:
                source = f.read()
        except OSError:
            return True
        error = self.execute(source, "exec", name)
        if isinstance(error, SystemExit):
            soft_reboot("friendly")
        if error is not None:
            out(traceback_text(error, self.hide))
            return False
        return True

    # ---- the friendly REPL -------------------------------------------------------

    def readline(self, prompt, line):
        """Read one line into `line` (bytearray); 0 at Enter, or the control byte that ended it."""
        out(prompt)
        start = len(line)
        while True:
            c = self.byte()
            if c == CTRL_C:
                return CTRL_C
            if c in (CTRL_A, CTRL_B, CTRL_D, CTRL_E) and len(line) == start:
                return c
            if c == 13:
                out(b"\r\n")
                return 0
            if c in (8, 127):
                if len(line) > start:
                    line.pop()
                    out(b"\x08 \x08")
            elif c == 27:  # an escape sequence (cursor keys): not supported, dropped
                c = self.byte()
                if c == 91:
                    while not 64 <= self.byte() <= 126:
                        pass
            elif c == 9:
                line.extend(b"    ")
                out(b"    ")
            elif c >= 32:
                line.append(c)
                out(bytes((c,)))

    def friendly(self):
        """The friendly REPL until Ctrl-A (returns "raw") or a soft reboot."""
        out(banner())
        while True:
            line = bytearray()
            ret = self.readline(">>> ", line)
            mode = "single"
            if ret == CTRL_A:
                out(b"\r\n")
                return "raw"
            if ret == CTRL_B:
                out(b"\r\n")
                out(banner())
                continue
            if ret == CTRL_C:
                out(b"\r\n")
                continue
            if ret == CTRL_D:
                out(b"\r\n")
                soft_reboot("friendly")
            if ret == CTRL_E:
                if not self._paste(line):
                    continue
                mode = "exec"
            elif not line:
                continue
            else:
                cancelled = False
                while continues(line):
                    line.append(10)
                    ret = self.readline("... ", line)
                    if ret == CTRL_C:
                        out(b"\r\n")
                        cancelled = True
                        break
                    if ret == CTRL_D:
                        break
                if cancelled:
                    continue
            error = self.execute(bytes(line), mode)
            if isinstance(error, SystemExit):
                soft_reboot("friendly")
            if error is not None:
                out(traceback_text(error, self.hide))

    def _paste(self, line):
        out(b"\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== ")
        while True:
            c = self.byte()
            if c == CTRL_C:
                out(b"\r\n")
                return False
            if c == CTRL_D:
                out(b"\r\n")
                return True
            line.append(c)
            out(b"\r\n=== " if c == 13 else bytes((c,)))

    # ---- the raw REPL ------------------------------------------------------------

    def raw(self):
        """The raw REPL until Ctrl-B (returns "friendly") or a soft reboot."""
        out(b"raw REPL; CTRL-B to exit\r\n")
        while True:
            out(b">")
            line = bytearray()
            while True:
                c = self.byte()
                if c == CTRL_A:
                    if len(line) == 2 and line[0] == CTRL_E:
                        self._raw_paste(line[1])
                        line = bytearray()
                        out(b">")
                        continue
                    out(b"raw REPL; CTRL-B to exit\r\n>")
                    line = bytearray()
                elif c == CTRL_B:
                    out(b"\r\n")
                    return "friendly"
                elif c == CTRL_C:
                    line = bytearray()
                elif c == CTRL_D:
                    break
                else:
                    line.append(c)
            out(b"OK")
            if not line:
                out(b"\r\n")
                soft_reboot("raw")
            self._raw_run(line)

    def _raw_run(self, source):
        error = self.execute(bytes(source), "exec")
        out(b"\x04")
        if error is not None and not isinstance(error, SystemExit):
            out(traceback_text(error, self.hide))
        out(b"\x04")
        if isinstance(error, SystemExit):
            soft_reboot("raw")

    def _raw_paste(self, command):
        if command != 65:  # 'A'
            out(b"R\x00")
            return
        out(b"R\x01")
        out(bytes((RAW_PASTE_WINDOW & 0xFF, RAW_PASTE_WINDOW >> 8, 1)))
        remain = RAW_PASTE_WINDOW
        source = bytearray()
        while True:
            c = self.byte()
            if c == CTRL_C or c == CTRL_D:
                out(b"\x04")  # the end, seen
                break
            source.append(c)
            remain -= 1
            if remain == 0:
                out(b"\x01")  # room for another window
                remain = RAW_PASTE_WINDOW
        if c == CTRL_C:
            out(b"\x04" + traceback_text(KeyboardInterrupt(), self.hide).encode() + b"\x04")
            return
        self._raw_run(source)

    # ---- the loop ----------------------------------------------------------------

    def serve(self, mode):
        """The REPL in `mode` ("friendly" or "raw") until the input ends."""
        while True:
            try:
                mode = self.raw() if mode == "raw" else self.friendly()
            except KeyboardInterrupt:  # a Ctrl-C between two reads: start the prompt again
                interrupted()
                out(b"\r\n")
            except EndOfInput:
                return
            except Exception as e:  # whatever bytes came, the REPL must outlive them, as the board's does
                out(b"\r\n" + traceback_text(e, self.hide).encode() + b"\r\n")
