"""Integers through the link's JSON (docs/link.md, Frames): a reply writes an
integer exactly as CPython's `json.dumps` does, whatever its number of digits,
sign or neighbours; a request's integer is read back as the same value
(crapsboard/link/link_json.py under CPython; tests/test_link_fuzz.py runs
both runtimes)."""

import json

import pytest

from crapsboard.link import link_json as lj

# Every count of digits and each edge of one: 9 / 10, 99 / 100, ...
EDGES = sorted({s * (10**k + d) for k in range(19) for d in (-1, 0, 1) for s in (1, -1)} | {0})
SMALL = list(range(-1000, 1001))


@pytest.mark.parametrize("numbers", [SMALL, EDGES], ids=["-1000..1000", "digit-edges"])
def test_an_integer_is_written_as_json_dumps_writes_it(numbers):
    for n in numbers:
        assert lj.encode(n) == json.dumps(n), n
    assert lj.encode(numbers) == json.dumps(numbers)


def test_integers_beside_other_members_of_a_reply_are_written_as_json_dumps_writes_them():
    members = {"a": 90, "b": [99, 100, -9], "c": {"d": 2147483647}, "e": "x"}
    frame = lj.line('{"id": 9, "ok": true', members)
    assert frame.decode() == json.dumps({"id": 9, "ok": True, **members}) + "\n"


def test_an_integer_in_a_request_is_read_as_its_value():
    for n in SMALL + [n for n in EDGES if len(str(abs(n))) <= 18]:
        text = json.dumps({"n": n}).encode()
        assert lj.parse(text, len(text)) == {"n": n}


@pytest.mark.parametrize(
    "line, column",
    [
        (b'{"id":', 7),
        (b'{"id": 9, "cmd": ', 18),
        (b'{"a": [', 8),
        (b'{"a": [1,', 10),
        (b"{", 2),
        (b'{"a": "x', 9),
        (b'{"a": 1', 8),
        (b'{"a"', 5),
    ],
)
def test_a_line_cut_short_is_bad_json_at_its_end_whatever_the_buffer_holds_after_it(line, column):
    # the link's line buffer holds older bytes past a short line: parse reads buf[0:end] only
    from crapsboard.link import link_json as lj

    for after in (b"", b'7, "b": [1]}', b'"}]}]}', b"\x00" * 8):
        with pytest.raises(lj.JsonError) as e:
            lj.parse(bytearray(line + after), len(line))
        assert str(e.value) == "bad json at column %d" % column
