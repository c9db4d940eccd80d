"""The serial link from the host's side (docs/link.md): frames, signatures, a connection.

`BoardLink(port)` opens the port without resetting the ESP32 (DTR and RTS
cleared before the port opens, docs/architecture.md), sends one request at a
time and reads lines until the reply with that request's id; pushed events
that arrive meanwhile are kept in `link.events`, and lines that are not the
link's JSON (boot messages, a REPL prompt) in `link.noise`. Every failure is a
HostToolError with one line: the board refused (exit 1), or it could not be
reached or did not answer in time (exit 3).
"""

import hashlib
import hmac
import itertools
import json
import time

from host_tools import EXIT_BOARD_OUT_OF_MEMORY, EXIT_FAILED, EXIT_NO_BOARD, EXIT_USAGE, HostToolError, keys

LINE_MAX = 1024  # the board's line limit (link.LINE_MAX), the newline not counted
BAUD = 115200
DEFAULT_TIMEOUT = 3.0  # seconds for one reply; a slow flash erase on the board is ~0.4 s
SIGNED = ("config_set", "time", "maintenance", "journal_reset", "verified")
CTR_MAX = 10**18 - 1  # the board's parser takes integers of at most 18 digits


# ---- frames and signatures (pure) ----------------------------------------------------

# How the board's refusals begin when its heap ran out (docs/link.md): a reply it
# could not build ("out of memory: ...", the request's id) or a link it could
# not load ("link not loaded: out of memory, ...", id null).
OUT_OF_MEMORY = "out of memory"


def canonical(request):
    """The bytes a tag signs: the request without "tag", keys sorted, no spaces, ASCII."""
    rest = {k: v for k, v in request.items() if k != "tag"}
    return json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()


def sign(key, request):
    """The request with its "tag": HMAC-SHA256 under `key` (bytes) of its canonical form."""
    signed = dict(request)
    signed["tag"] = hmac.new(key, canonical(request), hashlib.sha256).hexdigest()
    return signed


def frame(request):
    """One request line: JSON, ASCII (other characters as \\u escapes), never byte 0x03."""
    line = json.dumps(request).encode("ascii") + b"\n"
    if len(line) - 1 > LINE_MAX:
        raise HostToolError(
            "request of %d bytes is longer than the board's %d-byte line" % (len(line) - 1, LINE_MAX), EXIT_USAGE
        )
    return line


def parse_line(line):
    """A received line as ("reply", obj), ("event", obj) or ("noise", text)."""
    text = line.decode("ascii", "replace").strip()
    if not text.startswith("{"):
        return "noise", text
    try:
        obj = json.loads(text)
    except ValueError:
        return "noise", text
    if isinstance(obj, dict) and "event" in obj:
        return "event", obj
    if isinstance(obj, dict) and "ok" in obj and "id" in obj:
        return "reply", obj
    return "noise", text


# ---- the connection ----------------------------------------------------------------------


def open_serial(port, baud=BAUD):
    """An open pyserial port that did not reset the board: DTR and RTS are
    cleared before opening (a CP210x/CH340 DevKitC resets when only one changes)."""
    import serial

    try:
        ser = serial.serial_for_url(port, do_not_open=True, baudrate=baud, timeout=0.05, exclusive=True)
        ser.dtr = False
        ser.rts = False
        ser.open()
    except (serial.SerialException, OSError, ValueError) as e:
        raise HostToolError("cannot open %s: %s" % (port, _reason(e)), EXIT_NO_BOARD)
    return ser


def _reason(e):
    text = getattr(e, "strerror", None) or str(e)
    return text.splitlines()[0] if text else type(e).__name__


class BoardLink:
    """A link to one board. Use as a context manager, or call close()."""

    def __init__(self, port, timeout=DEFAULT_TIMEOUT, baud=BAUD, serial_port=None):
        self.port = port
        self.timeout = timeout
        self.serial = serial_port if serial_port is not None else open_serial(port, baud)
        self.events = []  # pushed events received and not yet taken
        self.noise = []  # lines that were not the link's (boot messages, REPL text)
        self.sent = []  # the request lines sent, as sent
        self._ids = itertools.count(int(time.time() * 1000) % 1000000)
        self._pending = b""
        self._ctr = None  # the last counter this host sent or read from hello
        # A tool that died half-way through a line leaves the board mid-line:
        # a newline first puts it back at the start of one (docs/link.md).
        self._write(b"\n")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.serial.close()
        except OSError:
            pass

    # ---- requests ------------------------------------------------------------------

    def request(self, cmd, timeout=None, **args):
        """The board's reply (a dict without id and ok) to `cmd`; HostToolError
        (exit 1) when the board refuses it, (exit 3) when it does not answer."""
        request = dict(args, id=next(self._ids), cmd=cmd)
        return self._send(request, timeout)

    def signed(self, cmd, key, timeout=None, role_key=False, **args):
        """A signed request (`key`: the board's link key, bytes, from which the
        key of the command's role is derived; with `role_key`, that role's key
        itself: a gateway's), with a counter above every one the board has
        accepted (read from hello)."""
        if key is None:
            raise HostToolError(cmd + " is signed: give the board's key (--key FILE)", EXIT_USAGE)
        if not role_key:
            key = keys.command_key(key, cmd)
        ctr = self.hello()["ctr"] + 1
        if self._ctr is not None:
            ctr = max(ctr, self._ctr + 1)
        if ctr > CTR_MAX:
            raise HostToolError(
                "board's counter %d is at the link's 18-digit limit: no signed command can follow"
                " (provision the board again)" % (ctr - 1),
                EXIT_FAILED,
            )
        self._ctr = ctr
        request = sign(key, dict(args, id=next(self._ids), cmd=cmd, ctr=ctr))
        return self._send(request, timeout)

    def forward(self, request, timeout=None):
        """Send `request` (a dict signed elsewhere: the page's `verified`) exactly
        as it is; the board's whole reply, a refusal included (`ok` false,
        `error`). HostToolError when the board does not answer."""
        line = frame(request)
        self.sent.append(line)
        self._write(line)
        return self._wait_reply(
            request.get("id"), self.timeout if timeout is None else timeout, str(request.get("cmd"))
        )

    @property
    def last_ctr(self):
        """The last counter this host sent or read from the board's hello (None before either)."""
        return self._ctr

    def hello(self):
        reply = self.request("hello")
        if not isinstance(reply.get("ctr"), int):
            raise HostToolError("the board's hello has no counter: not this project's link", EXIT_FAILED)
        self._ctr = reply["ctr"] if self._ctr is None else max(self._ctr, reply["ctr"])
        return reply

    def _send(self, request, timeout):
        line = frame(request)
        self.sent.append(line)
        self._write(line)
        reply = self._wait_reply(request["id"], self.timeout if timeout is None else timeout, request["cmd"])
        if not reply.get("ok"):
            error = str(reply.get("error", "no reason given"))
            if error.startswith(OUT_OF_MEMORY):
                raise HostToolError(
                    "board out of memory: %s refused (%s)" % (request["cmd"], error), EXIT_BOARD_OUT_OF_MEMORY
                )
            raise HostToolError("board refused %s: %s" % (request["cmd"], error))
        return {k: v for k, v in reply.items() if k not in ("id", "ok")}

    def _write(self, data):
        try:
            self.serial.write(data)
            self.serial.flush()
        except Exception as e:  # OSError, or serial.SerialException (not always an OSError)
            raise HostToolError("cannot write to %s: %s" % (self.port, _reason(e)), EXIT_NO_BOARD)

    def _wait_reply(self, rid, timeout, cmd):
        deadline = time.monotonic() + timeout
        refused = None  # a refusal with id null that came after our request
        while True:
            line = self._read_line(deadline)
            if line is None and refused is not None:
                # The board answers every line, in order: nothing else came, so
                # that refusal was of our line (it could not read its id).
                raise HostToolError("board refused %s: %s" % (cmd, refused), EXIT_FAILED)
            if line is None:
                hint = " (last text from the port: %r)" % self.noise[-1] if self.noise else ""  # whole: a reason
                raise HostToolError(
                    "no reply to %s from %s within %g s: is the board running the app?%s"
                    % (cmd, self.port, timeout, hint),
                    EXIT_NO_BOARD,
                )
            kind, obj = parse_line(line)
            if kind == "event":
                self.events.append(obj)
            elif kind == "noise":
                if obj:
                    self.noise.append(obj)
            elif obj["id"] == rid:
                return obj
            elif obj["id"] is None and OUT_OF_MEMORY in str(obj.get("error")):
                # the link could not load to read our line (link_wait: out of memory)
                raise HostToolError(
                    "board out of memory: %s not read (%s)" % (cmd, obj.get("error")), EXIT_BOARD_OUT_OF_MEMORY
                )
            elif obj["id"] is None:
                # a refusal of a line that was not ours (bytes left on the line
                # before we came: our frames are whole JSON); kept for the error
                self.noise.append("refused: " + str(obj.get("error")))
                refused = str(obj.get("error"))
            # a reply to another id: left over from an earlier tool, skipped

    # ---- lines and events ----------------------------------------------------------

    def _read_line(self, deadline):
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                chunk = self.serial.read(max(1, self.serial.in_waiting))
            except Exception as e:  # the port went away (unplugged, the virtual board stopped)
                raise HostToolError("lost %s: %s" % (self.port, _reason(e)), EXIT_NO_BOARD)
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def next_event(self, timeout):
        """The next pushed event (dict), or None when none came within `timeout` s."""
        if self.events:
            return self.events.pop(0)
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            if line is None:
                return None
            kind, obj = parse_line(line)
            if kind == "event":
                return obj
            if kind == "noise" and obj:
                self.noise.append(obj)
