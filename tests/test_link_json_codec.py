"""The link's JSON reader and writer (crapsboard/link/link_json.py) against
CPython's json, the reference (docs/link.md, Framing): any request JSON can
spell within the link's limits (integers of at most 18 digits, printable
ASCII with escapes, 8 levels) is read as json.loads reads it, whatever
whitespace and escapes carry it; any reply is written so that json.loads
reads back the same value. tests/test_link_fuzz.py runs the same reader on
both runtimes."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crapsboard.link import link_json as lj

INTS = st.integers(-(10**18) + 1, 10**18 - 1)
# Any character at all: json.dumps(ensure_ascii=True) writes the rest as \u escapes
# (surrogate pairs above U+FFFF), the control characters as \n, \t, \u0001...
TEXT = st.text(st.characters(min_codepoint=1, max_codepoint=0x10FFFF, exclude_categories=("Cs",)), max_size=10)
VALUES = st.recursive(
    st.none() | st.booleans() | INTS | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=10,
)


def depth(value):
    if isinstance(value, list):
        return 1 + max([depth(v) for v in value] or [0])
    if isinstance(value, dict):
        return 1 + max([depth(v) for v in value.values()] or [0])
    return 0


def parse(text):
    data = text.encode("ascii")
    # past `end` the buffer holds other bytes, as the link's line buffer does
    return lj.parse(bytearray(data + b'"}]1'), len(data))


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :\r\n")]), st.booleans())
def test_a_request_is_read_as_json_loads_reads_it(value, separators, escape_slash):
    value = {"x": value}
    if depth(value) > 8:
        return
    text = json.dumps(value, ensure_ascii=True, separators=separators).replace("\x7f", "\\u007f")
    if escape_slash:
        text = text.replace("/", "\\/")  # an escape json.dumps never writes
    assert parse(text) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_reply_is_read_back_by_json_loads_as_the_same_value(value):
    text = lj.encode(value)
    assert json.loads(text) == value
    assert all(32 <= ord(c) <= 126 for c in text)  # one line of printable ASCII
    assert json.loads(lj.encode(value, True)) == value


@pytest.mark.parametrize(
    "text, value",
    [
        ("{}", {}),
        ("[]", []),
        ('{"a": {}, "b": []}', {"a": {}, "b": []}),
        ("[[], {}, [[]]]", [[], {}, [[]]]),
        ('"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'),
        ('"\\u0041\\u00e9\\uFFFF"', "A\xe9\uffff"),
        ('"\\ud83c\\udfb2"', "\U0001f3b2"),  # a die: a surrogate pair
        ('"\\ud800\\udc00"', "\U00010000"),  # the first and the last pair: the high half's edges
        ('"\\udbff\\udfff"', "\U0010ffff"),
        ('"\\ud7ff\\ue000"', "\ud7ff\ue000"),  # the characters either side of the surrogates
        ('"a\\u0000b"', "a\x00b"),
        ("true", True),
        ("false", False),
        ("null", None),
        ("-0", 0),
        (" 7 ", 7),
    ],
)
def test_edges_a_request_may_hold_are_read_exactly(text, value):
    assert parse(text) == value


@pytest.mark.parametrize(
    "text, error",
    [
        ('"\\x41"', "bad json at column 2"),
        ('"\\u00g1"', "bad json at column 6"),
        ('"\\u12"', "bad json at column 4"),
        ('"\\u00/1"', "bad json at column 6"),  # the bytes either side of 0-9 and a-f
        ('"\\u00:1"', "bad json at column 6"),
        ('"\\u00`1"', "bad json at column 6"),
        ('"\\u00G1"', "bad json at column 6"),
        ('"\\u0041', "bad json at column 8"),  # four hex digits, then the end: the string is unclosed
        ('"ab\\', "bad json at column 4"),
        ('"ab\\n', "bad json at column 6"),  # an escape, then the end: unclosed where it ends
        ('"\\ud800x"', "lone surrogate at column 2"),
        ('"\\ud800\\u0041"', "lone surrogate at column 2"),
        ('"\\ud800\\ue000"', "lone surrogate at column 2"),  # the first above the low surrogates
        ('"\\ud800\\udbff"', "lone surrogate at column 2"),  # a high surrogate after a high one
        ('"\\udc00"', "lone surrogate at column 2"),
        ('"\\udfff"', "lone surrogate at column 2"),  # the low surrogates' last
        ('"a\\udbff"', "lone surrogate at column 3"),  # the high surrogates' last, at the end
        ('"a\x7f"', "bad json at column 3"),
        ('"a\tb"', "bad json at column 3"),
        ('"a\x1fb"', "bad json at column 3"),  # the control byte below space
        ("[1 2]", "bad json at column 4"),
        ("[1,]", "bad json at column 4"),
        ('{"a" 1}', "bad json at column 6"),
        ('{"a": 1 "b": 2}', "bad json at column 9"),
        ("{1: 2}", "bad json at column 2"),
        ("tru", "bad json at column 1"),
        ("nul", "bad json at column 1"),
        ("-", "bad json at column 1"),
        ("01", "bad json at column 1"),
        ("1.5", "numbers are integers, at column 1"),
        ("1e3", "numbers are integers, at column 1"),
        ("1E3", "numbers are integers, at column 1"),
        ("1234567890123456789", "number longer than 18 digits at column 1"),
        ("[1] 2", "bad json at column 4"),  # where the value ended
        ('{"a": 1:2}', "bad json at column 8"),  # ':' and '/', either side of the digits, end a number
        ("[1/2]", "bad json at column 3"),
    ],
)
def test_what_json_or_the_link_does_not_take_is_refused_with_its_column(text, error):
    with pytest.raises(lj.JsonError) as e:
        parse(text)
    assert str(e.value) == error


@pytest.mark.parametrize("line", [b"[1]", b"[1,2]", b'{"a": 1}', b'{"a": 1, "b": 2}'])
def test_a_value_cut_short_at_end_is_refused_whatever_the_buffer_holds_past_end(line):
    # The link's line buffer holds an earlier, longer line's bytes past `end`: a
    # `]`, `}` or `,` there closes or continues nothing.
    end = line.index(b"1") + 1
    with pytest.raises(lj.JsonError) as e:
        lj.parse(bytearray(line), end)
    assert str(e.value) == "bad json at column %d" % (end + 1)


def test_only_a_dict_with_string_keys_is_a_frame():
    with pytest.raises(TypeError, match="a frame's members are a dict"):
        lj.line('{"id": 1, "ok": true', [1])
    with pytest.raises(TypeError, match="json keys are strings"):
        lj.encode({1: 2})
    with pytest.raises(TypeError, match="json keys are strings"):
        lj.line('{"id": 1, "ok": true', {"a": 1, 2: 3})
    assert lj.line('{"id": 1, "ok": true', {}) == bytearray(b'{"id": 1, "ok": true}\n')


def test_printable_ascii_is_written_as_itself_and_the_rest_escaped():
    # docs/link.md: a reply is ASCII; space to ~ as themselves but " and \, the rest as escapes.
    printable = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) not in '"\\')
    assert lj.encode(printable) == '"' + printable + '"'
    assert lj.encode('\x1f\x7f"\\') == '"\\u001f\\u007f\\"\\\\"'
    # the last character one escape holds, and the first that takes a surrogate pair
    assert lj.encode("\uffff\U00010000") == json.dumps("\uffff\U00010000") == '"\\uffff\\ud800\\udc00"'
