"""The serial link's core (firmware/lib/crapsboard/link/link.py, docs/link.md):
frames, replies and refusals written out by hand from the protocol text, then
the same vectors through the MicroPython VM, byte for byte."""

import binascii
import json

import pytest
from vm import link_vectors as lv

from crapsboard.link import link_json as lj
from crapsboard.link.link import LINE_MAX, PROTOCOL, Link, LinkError
from sim import runtime


def feed(chunks):
    link, board = lv.session()
    before = board.state()
    out = b"".join(link.feed(c) for c in chunks)
    return out, board, before


def test_documented_numbers():
    assert LINE_MAX == 1024
    assert PROTOCOL == 1


def test_hello_reports_what_the_caller_supplies_and_the_protocol():
    out, _, _ = feed([b'{"id": 1, "cmd": "hello"}\n'])
    assert out == (
        b'{"id": 1, "ok": true, "board": "table-7", "boot_count": 3, "ctr": 0, "firmware": "1.4.0",'
        b' "line_max": 1024, "protocol": 1, "uptime_ms": 61000}\n'
    )


def test_the_largest_id_is_answered_with_it():
    """docs/link.md: an id is an integer 0..2147483647; both ends are served."""
    out, _, _ = feed([b'{"id": 2147483647, "cmd": "ping"}\n{"id": 0, "cmd": "ping"}\n'])
    assert out == b'{"id": 2147483647, "ok": true, "data": ""}\n{"id": 0, "ok": true, "data": ""}\n'


def test_any_chunking_gives_the_same_replies():
    stream = b'{"id": 7, "cmd": "ping", "data": "abc"}\r\n\n{"id":8,"cmd":"hello"}\n'
    whole, _, _ = feed([stream])
    assert whole.startswith(b'{"id": 7, "ok": true, "data": "abc"}\n{"id": 8, "ok": true, ')
    assert whole.count(b"\n") == 2  # the blank line gets no reply
    assert feed([stream[i : i + 1] for i in range(len(stream))])[0] == whole
    assert feed([stream[:5], stream[5:40], stream[40:]])[0] == whole


def test_a_reply_never_holds_byte_3_it_is_escaped():
    out, _, _ = feed([b'{"id": 2, "cmd": "ping", "data": "x\\u0003y\\u001b\\u00e9\\ud83d\\ude00"}\n'])
    assert out == b'{"id": 2, "ok": true, "data": "x\\u0003y\\u001b\\u00e9\\ud83d\\ude00"}\n'
    assert b"\x03" not in out
    assert json.loads(out)["data"] == "x\x03y\x1b\u00e9\U0001f600"
    assert lj.encode('\x03\b\f\n\r\t\x7f"\\') == '"\\u0003\\b\\f\\n\\r\\t\\u007f\\"\\\\"'


def test_replies_are_what_cpython_json_dumps_writes():
    link, _ = lv.session()
    out = link.feed(b'{"id": 3, "cmd": "events", "since": 4, "limit": 2}\n')
    reply = json.loads(out)
    assert out == (json.dumps(reply) + "\n").encode()  # same spacing, escapes and order (id, ok, sorted)
    assert reply == {
        "id": 3,
        "ok": True,
        "events": [{"d1": 6, "d2": 2, "kind": "roll", "seq": 5}, {"d1": 1, "d2": 1, "kind": "roll", "seq": 6}],
        "more": True,
        "next": 6,
    }


def test_events_page_to_the_end():
    link, _ = lv.session()
    since, seen = 0, []
    while True:
        reply = json.loads(link.feed(b'{"id": 1, "cmd": "events", "since": %d}\n' % since))
        seen += [e["seq"] for e in reply["events"]]
        since = reply["next"]
        if not reply["more"]:
            break
    assert seen == list(range(1, 31))


def test_a_line_of_exactly_the_limit_is_served_one_byte_more_is_refused_and_skipped():
    head = b'{"id": 5, "cmd": "ping", "data": "'
    exact = head + b"a" * (LINE_MAX - len(head) - 2) + b'"}'
    assert len(exact) == 1024
    out, _, _ = feed([exact + b"\n"])
    assert out.startswith(b'{"id": 5, "ok": true, "data": "aaa')
    over = exact[:-2] + b'a"}'
    out, _, _ = feed([over[:600], over[600:] + b'\n{"id": 6, "cmd": "ping"}\n'])
    assert out == (
        b'{"id": null, "ok": false, "error": "line longer than 1024 bytes: skipped to its newline"}\n'
        b'{"id": 6, "ok": true, "data": ""}\n'
    )


def test_a_huge_line_costs_one_reply_and_no_memory():
    link, _ = lv.session()
    out = b"".join(link.feed(b"x" * 4096) for _ in range(256))  # 1 MiB without a newline
    assert out.count(b"\n") == 1 and b"longer than 1024" in out
    assert link.length == 0 and len(link.buf) == LINE_MAX
    assert (link.lines, link.refused) == (1, 1)  # counted once, as one refused line
    assert link.feed(b'\n{"id": 1, "cmd": "ping"}\n') == b'{"id": 1, "ok": true, "data": ""}\n'
    assert (link.lines, link.refused) == (2, 1)


NOT_ASCII = b'{"id": null, "ok": false, "error": "not ASCII: other characters travel as \\\\u escapes"}'
GARBAGE = [
    (b"\xff\xfe{}", NOT_ASCII),
    (b"\xff{}", NOT_ASCII),  # only the line's first byte past ASCII
    (b"\x80", NOT_ASCII),  # a line of one byte
    (b'{"id": 1, "cmd": "ping", "data": "\xc3\xa9"}', None),
    # the first bytes past printable ASCII (docs/link.md: a byte >= 0x7F), where the JSON itself is fine
    (b'{"id": 1, "cmd": "ping", "data": "\x7f"}', NOT_ASCII),
    (b'{"id": 1, "cmd": "ping", "data": "\x80"}', NOT_ASCII),
    (b'{"id": 1, "cmd": "ping", "data": "\xfe"}', NOT_ASCII),
    (b"hello", b'{"id": null, "ok": false, "error": "bad json at column 1"}'),
    (b"[1, 2]", b'{"id": null, "ok": false, "error": "a request is a JSON object"}'),
    (b'"text"', b'{"id": null, "ok": false, "error": "a request is a JSON object"}'),
    (b'{"cmd": "hello"}', b'{"id": null, "ok": false, "error": "id must be an integer 0..2147483647"}'),
    (b'{"id": -1, "cmd": "hello"}', b'{"id": null, "ok": false, "error": "id must be an integer 0..2147483647"}'),
    (b'{"id": 2147483648, "cmd": "hello"}', None),
    (b'{"id": "1", "cmd": "hello"}', None),
    (b'{"id": true, "cmd": "hello"}', None),
    (b'{"id": 1.0, "cmd": "hello"}', b'{"id": null, "ok": false, "error": "numbers are integers, at column 8"}'),
    (b'{"id": 9}', b'{"id": 9, "ok": false, "error": "cmd must be a string"}'),
    (b'{"id": 9, "cmd": 4}', b'{"id": 9, "ok": false, "error": "cmd must be a string"}'),
    (b'{"id": 9, "cmd": "fly"}', b'{"id": 9, "ok": false, "error": "unknown command: fly"}'),
    (b'{"id": 9, "cmd": "events"}', b'{"id": 9, "ok": false, "error": "missing argument: since"}'),
    (
        b'{"id": 9, "cmd": "events", "since": "3"}',
        b'{"id": 9, "ok": false, "error": "argument since must be an integer"}',
    ),
    (
        b'{"id": 9, "cmd": "subscribe", "on": 1}',
        b'{"id": 9, "ok": false, "error": "argument on must be true or false"}',
    ),
    (b'{"id": 9, "cmd": "hello", "x": 1}', b'{"id": 9, "ok": false, "error": "unexpected argument: x"}'),
    (b'{"id": 9, "cmd": "hello", "ctr": 1}', b'{"id": 9, "ok": false, "error": "unexpected argument: ctr"}'),
    (b'{"id": 9, "cmd": "selftest"}', b'{"id": 9, "ok": false, "error": "selftest is not available on this board"}'),
    (b'{"id": 9, "cmd": "events", "since": 0, "limit": 99}', None),
    # What MicroPython's own json.loads accepts and JSON does not:
    (b'{"id": 9, "cmd": "hello",}', b'{"id": null, "ok": false, "error": "bad json at column 26"}'),
    (b'{"id" 9, "cmd": "hello"}', None),
    (b'{"id": 09, "cmd": "hello"}', None),
    (b'{"id": 9, "cmd": "hello"} x', None),
    (b'{"id": 9, "cmd": "ping", "data": "a\x03b"}', None),
    (b'{"id": 9, "cmd": "ping", "data": "\\x41"}', None),
    (
        b'{"id": 9, "cmd": "ping", "data": "\\ud800"}',
        b'{"id": null, "ok": false, "error": "lone surrogate at column 35"}',
    ),
    (b'{"id": 9, "id": 10, "cmd": "hello"}', b'{"id": null, "ok": false, "error": "duplicate key at column 15"}'),
    (b'{"id": 9, "cmd": "ping", "x": ' + b"[" * 9 + b"]" * 9 + b"}", None),
    (b'{"id": 1' + b"0" * 20 + b', "cmd": "hello"}', None),
]


@pytest.mark.parametrize("line, reply", GARBAGE, ids=lambda v: repr(v)[:40])
def test_garbage_gets_one_error_reply_and_the_next_line_is_served(line, reply):
    out, board, before = feed([line + b'\n{"id": 77, "cmd": "ping"}\n'])
    first, second, rest = out.split(b"\n")
    assert json.loads(first)["ok"] is False
    if reply is not None:
        assert first == reply
    assert second == b'{"id": 77, "ok": true, "data": ""}' and rest == b""
    assert board.state() == before


def test_depth_and_number_limits_are_errors_with_reasons():
    link, _ = lv.session()
    deep = link.feed(b'{"id": 9, "cmd": "ping", "x": ' + b"[" * 8 + b"]" * 8 + b"}\n")
    assert deep == b'{"id": null, "ok": false, "error": "json nested deeper than 8 at column 38"}\n'
    # objects count alike: the 8th '{"a": ' inside the request opens at column 30 + 7 * 6 + 1
    deep = link.feed(b'{"id": 9, "cmd": "ping", "x": ' + b'{"a": ' * 8 + b"1" + b"}" * 9 + b"\n")
    assert deep == b'{"id": null, "ok": false, "error": "json nested deeper than 8 at column 73"}\n'
    fits = link.feed(b'{"id": 9, "cmd": "ping", "x": ' + b'{"a": ' * 7 + b"1" + b"}" * 8 + b"\n")
    assert fits == b'{"id": 9, "ok": false, "error": "unexpected argument: x"}\n'
    long = link.feed(b'{"id": 1' + b"0" * 20 + b', "cmd": "hello"}\n')
    assert long == b'{"id": null, "ok": false, "error": "number longer than 18 digits at column 8"}\n'
    fits = link.feed(b'{"id": 9, "cmd": "ping", "x": ' + b"[" * 7 + b"]" * 7 + b"}\n")
    assert fits == b'{"id": 9, "ok": false, "error": "unexpected argument: x"}\n'  # parsed: 8 levels with the request


def test_handler_refusals_and_failures_are_replies_not_exceptions():
    link = Link()

    def refuses(request):
        raise LinkError("keys held: 3, 4")

    def breaks(request):
        return 1 // 0

    link.add("refuses", refuses)
    link.add("breaks", breaks)
    link.add("float", lambda request: {"x": 0.5})
    link.add("clash", lambda request: {"ok": 1})
    out = link.feed(
        b'{"id":1,"cmd":"refuses"}\n{"id":2,"cmd":"breaks"}\n{"id":3,"cmd":"float"}\n{"id":4,"cmd":"clash"}\n'
    )
    assert out.split(b"\n") == [
        b'{"id": 1, "ok": false, "error": "keys held: 3, 4"}',
        b'{"id": 2, "ok": false, "error": "internal error: ZeroDivisionError"}',
        b'{"id": 3, "ok": false, "error": "internal error: handler reply is not JSON"}',
        b'{"id": 4, "ok": false, "error": "internal error: handler reply uses ok"}',
        b"",
    ]
    assert link.lines == 4 and link.refused == 4


def test_a_line_that_fails_before_its_id_is_read_is_answered_with_id_null(monkeypatch):
    # docs/link.md: a refusal names the request's id once it was read, else null;
    # never the id of the line before, which a host would take for that request's answer.
    link = Link()
    assert link.feed(b'{"id": 7, "cmd": "ping"}\n') == b'{"id": 7, "ok": true, "data": ""}\n'

    def parse_out_of_memory(buf, n):
        raise MemoryError

    monkeypatch.setattr(lj, "parse", parse_out_of_memory)
    assert link.feed(b'{"id": 8, "cmd": "ping"}\n') == (
        b'{"id": null, "ok": false, "error": "out of memory: the reply could not be built"}\n'
    )


def test_hello_works_before_the_integration_fills_anything():
    assert Link().feed(b'{"id": 0, "cmd": "hello"}\n') == (
        b'{"id": 0, "ok": true, "ctr": 0, "line_max": 1024, "protocol": 1}\n'
    )


def test_pushed_events_are_lines_of_their_own():
    link = Link()
    assert link.event("roll", {"d1": 3, "d2": 4, "note": "\x03"}) == (
        b'{"event": "roll", "d1": 3, "d2": 4, "note": "\\u0003"}\n'
    )
    assert link.event("hand_end") == b'{"event": "hand_end"}\n'
    assert lj.encode({"a": lj.Raw('{"x": [1, 2]}')}) == '{"a": {"x": [1, 2]}}'
    with pytest.raises(ValueError):
        lj.Raw('{"x": "\x03"}')


@pytest.mark.parametrize("text", ['" "', '"~"', '" !}~"'])
def test_raw_json_of_printable_ascii_is_inserted_as_it_is(text):
    # link_json.Raw: printable ASCII, space (0x20) to tilde (0x7E) both included.
    assert lj.encode([lj.Raw(text)]) == "[" + text + "]"


@pytest.mark.parametrize("char", ["\x1f", "\x7f", "\x80", "\xfe", "\u00e9", "\n"])
def test_raw_json_with_a_byte_outside_printable_ascii_is_refused(char):
    # One byte either side of 0x20..0x7E, bytes past 0x7F and a non-ASCII
    # character: a reply must never hold a control byte, a newline or non-ASCII.
    with pytest.raises(ValueError, match="printable ASCII"):
        lj.Raw('"' + char + '"')


def test_a_reply_of_many_pieces_is_the_line_json_dumps_writes():
    # Hundreds of pieces (the status reply's shape): joined in chunks, the
    # frame must still be byte for byte one JSON line, its members after the head.
    result = {
        "lamps": {"lamp.%02d" % i: {"on": True, "color": "#%06x" % (i * 4099), "blink": i % 3 == 0} for i in range(60)},
        "marks": {"w%d" % w: list(range(2, 2 + w)) for w in range(6)},
        "note": '\x03 \u00e9 "q"',
        "raw": lj.Raw('{"x": [1, 2]}'),
    }
    frame = lj.line('{"id": 9, "ok": true', result)
    expected = dict(result, raw={"x": [1, 2]})
    assert frame == ('{"id": 9, "ok": true, ' + json.dumps(expected, sort_keys=True)[1:] + "\n").encode()
    assert frame.count(b"\n") == 1 and frame.endswith(b"}}\n")
    assert lj.line('{"id": 1, "ok": true', {}) == b'{"id": 1, "ok": true}\n'
    assert lj.encode(result) == "{" + frame.decode()[len('{"id": 9, "ok": true, ') : -1]
    with pytest.raises(TypeError, match="^not in the link's json: float$"):
        lj.line('{"id": 1, "ok": true', {"x": 1.5})


def test_unknown_command_names_are_cut_short_in_the_error():
    out, _, _ = feed([b'{"id": 1, "cmd": "' + b"z" * 200 + b'"}\n'])
    assert out == b'{"id": 1, "ok": false, "error": "unknown command: ' + b"z" * 32 + b'"}\n'


# ---- the same vectors on both runtimes ------------------------------------------------


def all_sessions():
    sessions = [[line + b"\n"] for line, _ in GARBAGE]
    stream = b'{"id": 7, "cmd": "ping", "data": "abc"}\r\n\n{"id":8,"cmd":"hello"}\n'
    sessions.append([stream[i : i + 1] for i in range(len(stream))])
    sessions.append([b"x" * 3000, b'\n{"id": 1, "cmd": "status"}\n'])
    sessions.append([b'{"id": 3, "cmd": "events", "since": 4, "limit": 2}\n{"id": 4, "cmd": "config_get"}\n'])
    sessions.append([b'{"id": 5, "cmd": "subscribe", "on": true}\n', b'{"id": 2, "cmd": "ping", "data": "\\u0003"}\n'])
    return sessions


def run_cpython(sessions):
    lines = []
    for chunks in sessions:
        link, board = lv.session()
        for chunk in chunks:
            lines.append(binascii.hexlify(link.feed(chunk)).decode() + " " + board.state())
    return lines


def run_micropython(sessions):
    text = "".join("-\n" + "".join(binascii.hexlify(c).decode() + "\n" for c in chunks) for chunks in sessions)
    out = runtime.run("tests/vm/link_vectors.py", input=text, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.splitlines()


def test_micropython_answers_the_vectors_byte_for_byte_like_cpython():
    sessions = all_sessions()
    expected = run_cpython(sessions)
    assert len(expected) == sum(len(s) for s in sessions) and any(
        '"ok": true' in bytes.fromhex(e.partition(" ")[0]).decode() for e in expected
    )
    assert run_micropython(sessions) == expected


def test_the_link_serves_floods_in_the_esp32_like_heap_and_keeps_nothing():
    # sim/portable/mp_link_bench.py's memory run: 2,000 lines of random bytes and a
    # 10,000-byte line through one Link in the VM's 128 KB heap.
    out = runtime.run("sim/portable/mp_link_bench.py", ["2000", "memory"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    memory = json.loads(out.stdout)
    assert LINE_MAX < memory["held_bytes"] < 4 * LINE_MAX  # the line buffer and the command table
    assert memory["held_after_serving_bytes"] - memory["held_bytes"] < 2 * LINE_MAX  # (the GC is conservative)


def documented_commands():
    """docs/link.md's command table: cmd -> ([(argument, type word, required)], signed)."""
    import os
    import re

    from conftest import ROOT

    out = {}
    with open(os.path.join(ROOT, "docs", "link.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")[1:-1]]
            if len(cells) != 5 or not re.fullmatch(r"`\w+`", cells[0]) or cells[2] not in SIGNED_WORDS:
                continue
            args = cells[1].split(":")[0]
            found = [(m.group(1), m.group(2) or "") for m in re.finditer(r"`(\w+)`(?: \(([^)]*)\))?", args)]
            typed = []
            for i, (name, words) in enumerate(found):
                # "`journal`, `seq` (integers)": an argument without words takes the next one's type
                words = words or next(w for _, w in found[i:] if w)
                typed.append((name, words.split(",")[0].split(" ")[0], "optional" not in words))
            out[cells[0].strip("`")] = (typed, SIGNED_WORDS[cells[2]])
    return out


# docs/link.md's "signed" column: no, yes (the link key itself: the technician's), or the role whose key signs
SIGNED_WORDS = {"no": False, "yes": True, "gateway": b"crapsboard role gateway", "floor": b"crapsboard role floor"}


def test_every_command_takes_the_arguments_docs_link_md_lists_and_is_signed_as_it_says():
    from crapsboard.link import link

    words = {"integer": link.T_INT, "integers": link.T_INT, "string": link.T_STR, "strings": link.T_STR}
    words["true/false"] = link.T_BOOL
    words["object"] = link.T_OBJ
    documented = documented_commands()
    assert (
        len(documented) == 14
        and "verified" in documented
        and "progressive" in documented
        and documented["time"] == ([("unix", "integer", True)], b"crapsboard role gateway")
        and documented["verified"][1] == b"crapsboard role floor"
        and documented["config_set"][1] is True
    )
    assert documented["events"] == ([("since", "integer", True), ("limit", "integer", False)], False)
    assert sorted(documented) == sorted(link.SPECS)
    for cmd, (args, signed) in documented.items():
        assert link.SPECS[cmd] == (tuple((name, words[w], req) for name, w, req in args), signed), cmd


def test_a_counter_never_saved_reads_0_every_time(tmp_path):
    """A freshly provisioned board: no counter file, the last counter is 0
    (so ctr 1 is the first accepted), however often it is read."""
    from crapsboard.link.link import CounterFile

    counter = CounterFile(str(tmp_path / "link_ctr"))
    assert [counter.load(), counter.load()] == [0, 0]


def test_a_handler_for_a_command_the_link_does_not_have_is_refused_at_build():
    # A typo in the firmware's handler table fails at once, not as "not available" at a host.
    with pytest.raises(ValueError, match="not a link command: stauts"):
        Link({"stauts": lambda request: {}})


def test_a_reply_that_fails_after_the_handler_is_an_internal_error_too():
    # a handler returning no dict fails in building the reply, not in the
    # handler: the host still gets one line naming it, with the request's id
    link = Link()
    link.add("number", lambda request: 42)
    link.add("hello", lambda request: 7)
    out = link.feed(b'{"id":5,"cmd":"number"}\n{"id":6,"cmd":"hello"}\n{"id":7,"cmd":"number"}\n')
    assert out.split(b"\n") == [
        b'{"id": 5, "ok": false, "error": "internal error: TypeError"}',
        b'{"id": 6, "ok": false, "error": "internal error: TypeError"}',
        b'{"id": 7, "ok": false, "error": "internal error: TypeError"}',
        b"",
    ]
    assert link.lines == 3 and link.refused == 3
