# The serial link's JSON: a strict parser for request lines and the encoder for
# replies, identical on MicroPython and CPython.
#
# The runtimes' own `json` modules differ: MicroPython's loads accepts trailing
# commas, missing colons, leading zeros, raw control characters and trailing
# garbage, and its dumps leaves non-ASCII raw and escapes \b as \u0008. The link
# must answer the same bytes on the board and in the simulator, and a signed
# request must mean one thing, so both directions are written here.
#
# The link's subset of JSON (RFC 8259): frames are ASCII (other characters
# travel as \uXXXX escapes, as CPython's json.dumps writes them by default);
# numbers are integers of at most 18 digits; containers nest at most DEPTH
# deep; an object's keys are unique. Anything else is refused with JsonError.
#
# `encode` writes what CPython's json.dumps(obj, sort_keys=True,
# ensure_ascii=True) writes, with ", " and ": " separators, or "," and ":"
# when compact (the signed canonical form): keys sorted, no floats.
from micropython import const

DEPTH = const(8)
_DIGITS = const(18)
_ESCAPES = {0x22: '"', 0x5C: "\\", 0x2F: "/", 0x62: "\b", 0x66: "\f", 0x6E: "\n", 0x72: "\r", 0x74: "\t"}
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


class JsonError(Exception):
    pass


class Raw:
    """JSON text made elsewhere (report.py), inserted as it is. Checked to be
    printable ASCII, so a reply still holds no control byte and no newline."""

    def __init__(self, text):
        data = text.encode()
        if data and (len(data) != len(text) or min(data) < 0x20 or max(data) > 0x7E):
            raise ValueError("raw JSON must be printable ASCII")
        self.text = text


# ---- parsing ------------------------------------------------------------------


def parse(buf, end):
    """The JSON value in buf[0:end] (bytes or bytearray) with only whitespace
    around it; JsonError("... at column N") otherwise."""
    value, i = _value(buf, _ws(buf, 0, end), end, 0)
    if _ws(buf, i, end) != end:
        raise _bad(i)
    return value


def _ws(buf, i, end):
    while i < end and buf[i] in (0x20, 0x09, 0x0D, 0x0A):
        i += 1
    return i


def _bad(i):
    return JsonError("bad json at column %d" % (i + 1))


def _value(buf, i, end, depth):
    if i >= end:
        raise _bad(i)
    c = buf[i]
    if c == 0x7B:  # {
        return _object(buf, i, end, depth + 1)
    if c == 0x5B:  # [
        return _array(buf, i, end, depth + 1)
    if c == 0x22:  # "
        return _string(buf, i, end)
    if c == 0x2D or 0x30 <= c <= 0x39:
        return _number(buf, i, end)
    for word, value in ((b"true", True), (b"false", False), (b"null", None)):
        if buf[i : i + len(word)] == word:
            return value, i + len(word)
    raise _bad(i)


def _object(buf, i, end, depth):
    if depth > DEPTH:
        raise JsonError("json nested deeper than %d at column %d" % (DEPTH, i + 1))
    obj = {}
    i = _ws(buf, i + 1, end)
    if i < end and buf[i] == 0x7D:
        return obj, i + 1
    while True:
        if i >= end or buf[i] != 0x22:
            raise _bad(i)
        key, i = _string(buf, i, end)
        if key in obj:
            raise JsonError("duplicate key at column %d" % (i + 1))
        i = _ws(buf, i, end)
        if i >= end or buf[i] != 0x3A:  # :
            raise _bad(i)
        obj[key], i = _value(buf, _ws(buf, i + 1, end), end, depth)
        i = _ws(buf, i, end)
        if i < end and buf[i] == 0x2C:  # ,
            i = _ws(buf, i + 1, end)
        elif i < end and buf[i] == 0x7D:
            return obj, i + 1
        else:
            raise _bad(i)


def _array(buf, i, end, depth):
    if depth > DEPTH:
        raise JsonError("json nested deeper than %d at column %d" % (DEPTH, i + 1))
    items = []
    i = _ws(buf, i + 1, end)
    if i < end and buf[i] == 0x5D:
        return items, i + 1
    while True:
        value, i = _value(buf, i, end, depth)
        items.append(value)
        i = _ws(buf, i, end)
        if i < end and buf[i] == 0x2C:
            i = _ws(buf, i + 1, end)
        elif i < end and buf[i] == 0x5D:
            return items, i + 1
        else:
            raise _bad(i)


def _number(buf, i, end):
    start = i
    negative = buf[i] == 0x2D
    if negative:
        i += 1
    value = 0
    first = i
    while i < end and 0x30 <= buf[i] <= 0x39:
        value = value * 10 + buf[i] - 0x30
        i += 1
    digits = i - first
    if digits == 0 or (digits > 1 and buf[first] == 0x30):
        raise _bad(start)
    if i < end and buf[i] in (0x2E, 0x65, 0x45):  # . e E
        raise JsonError("numbers are integers, at column %d" % (start + 1))
    if digits > _DIGITS:
        raise JsonError("number longer than %d digits at column %d" % (_DIGITS, start + 1))
    return (-value if negative else value), i


def _hex4(buf, i, end):
    if i + 4 > end:
        raise _bad(i)
    value = 0
    for k in range(i, i + 4):
        c = buf[k] | 0x20  # lower case
        if 0x30 <= c <= 0x39:
            value = value * 16 + c - 0x30
        elif 0x61 <= c <= 0x66:
            value = value * 16 + c - 0x57
        else:
            raise _bad(k)
    return value


def _string(buf, i, end):
    start = i + 1
    i = start
    parts = None
    while True:
        if i >= end:
            raise _bad(i)
        c = buf[i]
        if c == 0x22:
            break
        if c < 0x20 or c > 0x7E:
            raise _bad(i)
        if c != 0x5C:
            i += 1
            continue
        if parts is None:
            parts = []
        parts.append(bytes(buf[start:i]).decode())
        if i + 1 >= end:
            raise _bad(i)
        e = buf[i + 1]
        if e == 0x75:  # u
            code = _hex4(buf, i + 2, end)
            i += 6
            if 0xDC00 <= code <= 0xDFFF:
                raise JsonError("lone surrogate at column %d" % (i - 5))
            if 0xD800 <= code <= 0xDBFF:
                if buf[i : i + 2] != b"\\u":
                    raise JsonError("lone surrogate at column %d" % (i - 5))
                low = _hex4(buf, i + 2, end)
                if not 0xDC00 <= low <= 0xDFFF:
                    raise JsonError("lone surrogate at column %d" % (i - 5))
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
            parts.append(chr(code))
        elif e in _ESCAPES:
            parts.append(_ESCAPES[e])
            i += 2
        else:
            raise _bad(i)
        start = i
    text = bytes(buf[start:i]).decode()
    if parts is not None:
        parts.append(text)
        text = "".join(parts)
    return text, i + 1


# ---- encoding -----------------------------------------------------------------
#
# A reply is written twice over: once to count its bytes, once into a
# bytearray of exactly that size, the only block the size of the reply. Each
# character is read and each byte stored one at a time, digits are worked out
# by arithmetic and an object's keys are taken in order by search, not from a
# sorted copy. The writer's state lives in its attributes and each method
# keeps few locals: a MicroPython call whose frame is larger than a few words
# puts that frame on the heap (docs/link.md, Memory).


def encode(obj, compact=False):
    """One line of ASCII JSON (see the header); TypeError for what JSON cannot say."""
    return str(_frame("", obj, compact), "ascii")


def line(head, obj):
    """The frame `head` + the members of the dict `obj` + "}" and a newline,
    as a bytearray (`head` opens an object and ends with a member: '{"id": 1,
    "ok": true'). TypeError for what JSON cannot say."""
    if type(obj) is not dict:
        raise TypeError("a frame's members are a dict")
    return _frame(head, obj, False)


def _frame(head, obj, compact):
    w = _Writer(compact)
    w.frame(head, obj)  # counted
    buf = bytearray(w.pos)
    w.buf = buf
    w.pos = 0
    w.frame(head, obj)  # written
    return buf


class _Writer:
    def __init__(self, compact):
        self.buf = None  # type: bytearray | None  # None while counting
        self.pos = 0
        self.comma = "," if compact else ", "
        self.colon = ":" if compact else ": "

    def frame(self, head, obj):
        if not head:
            self.value(obj)
            return
        self.text(head)
        if obj:
            self.text(self.comma)
            self.members(obj)
        self.text("}\n")

    def text(self, text):
        """ASCII `text` as it is: its length counted, or its bytes stored."""
        buf = self.buf
        pos = self.pos
        self.pos = pos + len(text)
        if buf is not None:
            i = 0
            while i < len(text):
                buf[pos + i] = ord(text[i])
                i += 1

    def byte(self, code):
        if self.buf is not None:
            self.buf[self.pos] = code
        self.pos += 1

    def value(self, obj):
        if obj is None:
            self.text("null")
        elif obj is True:
            self.text("true")
        elif obj is False:
            self.text("false")
        elif type(obj) is int:
            self.int(obj)
        elif type(obj) is str:
            self.str(obj)
        elif type(obj) is list or type(obj) is tuple:
            self.array(obj)
        elif type(obj) is dict:
            self.text("{")
            self.members(obj)
            self.text("}")
        elif isinstance(obj, Raw):
            self.text(obj.text)
        else:
            raise TypeError("not in the link's json: %s" % type(obj).__name__)

    def array(self, items):
        self.text("[")
        i = 0
        while i < len(items):
            if i:
                self.text(self.comma)
            self.value(items[i])
            i += 1
        self.text("]")

    def members(self, obj):
        """An object's members, keys in sorted order: each the least key after
        the last one written, found by a search over the keys."""
        key = None
        left = len(obj)
        while left:
            if key is not None:
                self.text(self.comma)
            key = _next_key(obj, key)
            self.str(key)
            self.text(self.colon)
            self.value(obj[key])
            left -= 1

    def int(self, n):
        if n < 0:
            self.text("-")
            n = -n
        digits, rest = 1, n
        while rest >= 10:
            rest //= 10
            digits += 1
        if self.buf is not None:
            at = self.pos + digits
            while at > self.pos:
                at -= 1
                self.buf[at] = 0x30 + n % 10
                n //= 10
        self.pos += digits

    def str(self, s):
        self.byte(0x22)
        i = 0
        while i < len(s):
            self.char(s[i])
            i += 1
        self.byte(0x22)

    def char(self, ch):
        code = ord(ch)
        if 0x20 <= code <= 0x7E and code != 0x22 and code != 0x5C:
            self.byte(code)
        elif ch in _SHORT:
            self.text(_SHORT[ch])
        elif code < 0x10000:
            self.hex4(code)
        else:  # a UTF-16 surrogate pair, as CPython writes it
            code -= 0x10000
            self.hex4(0xD800 + (code >> 10))
            self.hex4(0xDC00 + (code & 0x3FF))

    def hex4(self, code):
        """A \\uXXXX escape: four lowercase hex digits, as CPython writes them."""
        self.text("\\u")
        shift = 12
        while shift >= 0:
            digit = (code >> shift) & 0xF
            self.byte(0x30 + digit if digit < 10 else 0x57 + digit)
            shift -= 4


def _next_key(obj, last):
    """The least key of `obj` greater than `last` (the least of all when None)."""
    key = None
    for candidate in obj:
        if type(candidate) is not str:
            raise TypeError("json keys are strings")
        if (last is None or candidate > last) and (key is None or candidate < key):
            key = candidate
    return key
