# The serial link's core: bytes in, reply bytes out (docs/link.md).
#
# Requests are lines of JSON, {"id": N, "cmd": "...", ...}; every non-blank
# line gets exactly one reply line, {"id": N, "ok": true, ...} or
# {"id": N, "ok": false, "error": "..."}; pushed events are {"event": ...}.
# Feed it bytes in any chunking; it returns the reply bytes. It holds one
# preallocated line buffer of LINE_MAX bytes: a longer line is refused with one
# reply and skipped to its newline, and garbage costs one error reply and
# resynchronises at the next newline. What it writes is printable ASCII plus
# the newline, so it never holds byte 0x03 and mpremote can always break in.
#
# Commands are handler callables passed in (the app, the journal and the
# status providers fill the slots of SPECS); `handler(request) -> dict or None`,
# raising LinkError to refuse. Signed commands pass link_auth first.
from micropython import const

from crapsboard.base.link_key import ROLE_FLOOR, ROLE_GATEWAY
from crapsboard.link import link_json as lj

PROTOCOL = const(1)
LINE_MAX = const(1024)  # bytes of one request line, its newline not counted
NAME_MAX = const(32)  # longest command or argument name echoed in an error
ID_MAX = const(0x7FFFFFFF)

T_INT = const(1)
T_STR = const(2)
T_BOOL = const(3)
T_OBJ = const(4)
_TYPE_WORDS = {T_INT: "an integer", T_STR: "a string", T_BOOL: "true or false", T_OBJ: "an object"}
_TYPES = {T_INT: int, T_STR: str, T_BOOL: bool, T_OBJ: dict}

# The protocol's commands: name -> (arguments, signed); an argument is
# (name, type, required). `signed`: False, True (the link key itself: the
# technician's), or a role's label (link_key.ROLE_*): the command is signed
# with that role's key, HMAC(link key, label), and no other (docs/link.md, "Keys").
# docs/link.md gives each one's reply.
SPECS = {
    "hello": ((), False),
    "ping": ((("data", T_STR, False),), False),
    "status": ((), False),
    "events": ((("since", T_INT, True), ("limit", T_INT, False)), False),
    "subscribe": ((("on", T_BOOL, True),), False),
    "config_get": ((), False),
    "config_set": ((("config", T_OBJ, True),), True),
    "selftest": ((), False),
    "time": ((("unix", T_INT, True),), ROLE_GATEWAY),
    "maintenance": ((), True),
    "journal_reset": (
        (("journal", T_INT, True), ("seq", T_INT, True), ("head", T_STR, True), ("receipt", T_STR, True)),
        True,
    ),
    "received": (
        (("journal", T_INT, True), ("seq", T_INT, True), ("head", T_STR, True), ("receipt", T_STR, True)),
        False,  # the recorder's receipt in it is its proof (link_auth.receipt_ok)
    ),
    "verified": (
        (("journal", T_INT, True), ("seq", T_INT, True), ("by", T_STR, True), ("alert", T_STR, True)),
        ROLE_FLOOR,
    ),
    "progressive": (
        (
            ("game", T_STR, True),
            ("state", T_STR, True),
            ("amount", T_INT, True),
            ("at", T_INT, True),
            ("rule", T_STR, False),
            ("why", T_STR, False),
        ),
        ROLE_GATEWAY,
    ),
}
_ENVELOPE = ("id", "cmd")
_SIGNATURE = ("ctr", "tag")
_REPLY_KEYS = ("id", "ok", "error")
# A reply that cannot be built in the heap is refused with this reason and the
# request's own id (host tools: "board out of memory", exit 4).
OUT_OF_MEMORY = "out of memory: the reply could not be built"
_TOO_LONG = b'{"id": null, "ok": false, "error": "line longer than %d bytes: skipped to its newline"}\n' % LINE_MAX


class LinkError(Exception):
    """A handler's refusal; its message is the reply's error."""


class Command:
    def __init__(self, handler, args=(), signed=False):
        self.handler = handler
        self.args = args
        self.signed = signed


def _ping(request):
    return {"data": request.get("data", "")}


class Link:
    def __init__(self, handlers=None, key=None, store=None):
        """`handlers`: name -> callable for the SPECS slots (a missing one
        answers "not available"); `key`: the board's HMAC key (bytes) or None;
        `store`: where the signed counter lives (CounterFile, below)."""
        handlers = handlers or {}
        self.commands = {}
        for name in SPECS:
            args, signed = SPECS[name]
            self.commands[name] = Command(handlers.get(name), args, signed)
        for name in handlers:
            if name not in SPECS:
                raise ValueError("not a link command: " + name)
        if self.commands["ping"].handler is None:
            self.commands["ping"].handler = _ping
        self.key = key
        self.store = store if store is not None else CounterMemory()
        self.buf = bytearray(LINE_MAX)
        self.view = memoryview(self.buf)
        self.length = 0
        self.skipping = False
        self.lines = 0  # non-blank lines answered, refusals included
        self.hold = False  # a handler needs the link kept loaded (a subscription): link_task
        self.rid = None  # the id of the request being answered (None until read)
        self.refused = 0

    def add(self, name, handler, args=(), signed=False):
        """A command beyond SPECS (the simulator's, a test's)."""
        self.commands[name] = Command(handler, args, signed)

    # ---- bytes in, bytes out -----------------------------------------------------

    def feed(self, data):
        """Take request bytes (bytes or bytearray, any chunking); return the replies
        (bytes or a bytearray)."""
        out = b""
        i = 0
        end = len(data)
        while i < end:
            j = data.find(b"\n", i)
            stop = end if j < 0 else j
            if not self.skipping:
                n = self.length
                k = stop - i
                if n + k > LINE_MAX:
                    self.skipping = True
                    self.length = 0
                    self.lines += 1
                    self.refused += 1
                    out += _TOO_LONG
                else:
                    self.buf[n : n + k] = data[i:stop]
                    self.length = n + k
            if j < 0:
                break
            if self.skipping:
                self.skipping = False
            else:
                reply = self._line(self.length)
                out = out + reply if out else reply  # one reply, as it was built: no copy

            self.length = 0
            i = j + 1
        return out

    def event(self, name, fields=None):
        """A pushed event's line: {"event": name, ...fields}."""
        return lj.line('{"event": ' + lj.encode(name), fields or {})

    # ---- one line ----------------------------------------------------------------

    def _line(self, n):
        buf = self.buf
        i = 0
        while i < n and buf[i] in (0x20, 0x09, 0x0D):
            i += 1
        if i == n:
            return b""  # a blank line: how a host clears a half-sent line
        self.lines += 1
        self.rid = None  # the request's id once read: every refusal after that names it
        try:
            return self._request(n)
        except MemoryError:  # the reply could not be built: its pieces are garbage now
            return self._error(self.rid, OUT_OF_MEMORY)
        except Exception as e:  # nothing a host sends escapes
            return self._error(self.rid, "internal error: " + type(e).__name__)

    def _request(self, n):
        if max(self.view[0:n]) > 0x7E:
            return self._error(None, "not ASCII: other characters travel as \\u escapes")
        try:
            request = lj.parse(self.buf, n)
        except lj.JsonError as e:
            return self._error(None, str(e))
        if not isinstance(request, dict):
            return self._error(None, "a request is a JSON object")
        rid = request.get("id")
        if type(rid) is not int or not 0 <= rid <= ID_MAX:
            return self._error(None, "id must be an integer 0..%d" % ID_MAX)
        self.rid = rid
        name = request.get("cmd")
        if type(name) is not str:
            return self._error(rid, "cmd must be a string")
        command = self.commands.get(name)
        if command is None:
            return self._error(rid, "unknown command: " + name[:NAME_MAX])
        problem = _check_args(command, request)
        if problem:
            return self._error(rid, problem)
        if command.handler is None and name != "hello":
            return self._error(rid, name + " is not available on this board")
        if command.signed:
            from crapsboard.link import link_auth  # the HMAC code loads for a signed request only

            try:
                link_auth.Auth(self.key, self.store, command.signed).check(request)
            except link_auth.AuthError as e:
                return self._error(rid, str(e))
        try:
            result = command.handler(request) if command.handler else None
        except LinkError as e:
            return self._error(rid, str(e))
        except MemoryError:
            return self._error(rid, OUT_OF_MEMORY)
        except Exception as e:  # a handler's bug is the host's answer, never the app's crash
            return self._error(rid, "internal error: " + type(e).__name__)
        if name == "hello":
            result = self._hello(result)
        return self._ok(rid, result)

    def _hello(self, fields):
        hello = dict(fields) if fields else {}
        hello["protocol"] = PROTOCOL
        hello["line_max"] = LINE_MAX
        hello["ctr"] = self.store.load()
        return hello

    def _ok(self, rid, result):
        if result is None:
            result = {}
        for key in _REPLY_KEYS:
            if key in result:
                return self._error(rid, "internal error: handler reply uses " + key)
        try:
            return lj.line('{"id": %d, "ok": true' % rid, result)
        except TypeError:
            return self._error(rid, "internal error: handler reply is not JSON")

    def _error(self, rid, message):
        self.refused += 1
        rid_text = "null" if rid is None else str(rid)
        return ('{"id": ' + rid_text + ', "ok": false, "error": ' + lj.encode(message) + "}\n").encode()


class CounterFile:
    """The signed requests' counter in a small file, overwritten in place
    (atomic on littlefs for a file this small: it lives inline in its
    metadata pair). Here, not in link_auth, so a board that is never sent a
    signed request does not load the HMAC code."""

    def __init__(self, path):
        self.path = path
        self._last = None

    def load(self):
        if self._last is None:
            try:
                f = open(self.path)
            except OSError:  # never saved: a freshly provisioned board
                self._last = 0
                return 0
            with f:
                self._last = int(f.read())  # a damaged file raises: refuse, never restart at 0
        return self._last

    def save(self, value):
        with open(self.path, "w") as f:
            f.write("%d" % value)
        self._last = value


class CounterMemory:
    """The counter in RAM: the simulator and tests."""

    def __init__(self, value=0):
        self.value = value

    def load(self):
        return self.value

    def save(self, value):
        self.value = value


def _check_args(command, request):
    """None, or the one-line reason the request's arguments do not fit the command."""
    specs = command.args
    for key in request:
        if key in _ENVELOPE or (command.signed and key in _SIGNATURE):
            continue
        for spec in specs:
            if spec[0] == key:
                break
        else:
            return "unexpected argument: " + key[:NAME_MAX]
    for key, kind, required in specs:
        if key not in request:
            if required:
                return "missing argument: " + key
        elif type(request[key]) is not _TYPES[kind]:
            return "argument %s must be %s" % (key, _TYPE_WORDS[kind])
    return None


def hello_handler(firmware, board, uptime_ms, extra=None):
    """hello's handler: the firmware version text, the board id, an injected
    clock giving milliseconds since boot, and `extra()` for the fields the
    integration adds (hash, reset cause, boot count, free heap, journal)."""

    def hello(request):
        fields = dict(extra()) if extra else {}
        fields["firmware"] = firmware
        fields["board"] = board
        fields["uptime_ms"] = uptime_ms()
        return fields

    return hello
