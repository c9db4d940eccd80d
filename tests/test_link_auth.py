"""Signed commands (docs/link.md, "Signed requests"): HMAC-SHA256 against
RFC 4231 and CPython's hmac on both runtimes, the canonical form against
CPython's json.dumps, and the refusals: missing, wrong, forged, replayed or
older, tampered, unprovisioned; a refused request changes nothing."""

import hashlib
import hmac
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm import link_vectors as lv

from crapsboard.base.hmac256 import hmac_sha256
from crapsboard.link.link import CounterFile, Link
from crapsboard.link.link_auth import canonical
from host_tools import keys
from sim import runtime

# RFC 4231 section 4: (key, data, HMAC-SHA-256); case 5's output is truncated to 128 bits there.
RFC4231 = [
    ("0b" * 20, b"Hi There".hex(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (
        b"Jefe".hex(),
        b"what do ya want for nothing?".hex(),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ),
    ("aa" * 20, "dd" * 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    (
        "0102030405060708090a0b0c0d0e0f10111213141516171819",
        "cd" * 50,
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ),
    ("0c" * 20, b"Test With Truncation".hex(), "a3b6167473100ee06e0c796c2955552b"),
    (
        "aa" * 131,
        b"Test Using Larger Than Block-Size Key - Hash Key First".hex(),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ),
    (
        "aa" * 131,
        (
            b"This is a test using a larger than block-size key and a larger than block-size data."
            b" The key needs to be hashed before being used by the HMAC algorithm."
        ).hex(),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ),
]


def test_hmac_sha256_matches_rfc4231_and_cpython():
    for key, data, expected in RFC4231:
        tag = hmac_sha256(bytes.fromhex(key), bytes.fromhex(data))
        assert tag.hex().startswith(expected)
        assert tag == hmac.new(bytes.fromhex(key), bytes.fromhex(data), hashlib.sha256).digest()


def test_hmac_sha256_under_micropython_matches_cpython():
    cases = [(k, d) for k, d, _ in RFC4231] + [("", ""), ("00" * 64, "ff"), ("11" * 65, "22" * 200)]
    # Empty keys or messages cannot be a hex field: CPython covers those below.
    text = "".join("%s %s\n" % (k, d) for k, d in cases if k and d)
    out = runtime.run("tests/vm/hmac_vectors.py", input=text, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    expected = [hmac.new(bytes.fromhex(k), bytes.fromhex(d), hashlib.sha256).hexdigest() for k, d in cases if k and d]
    assert out.stdout.split() == expected
    assert hmac_sha256(b"", b"") == hmac.new(b"", b"", hashlib.sha256).digest()


# ---- the canonical form --------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**18) + 1, 10**18 - 1) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_canonical_form_is_cpython_json_dumps_sorted_and_compact(request):
    request = dict(request, tag="ignored")
    rest = {k: v for k, v in request.items() if k != "tag"}
    assert canonical(request) == json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()


# ---- signed requests through the link ------------------------------------------------


def host_sign(request, key=lv.KEY):
    """What a host does, written with CPython's own json and hmac (not the firmware's): `key` the
    board's link key, the tag under the key of the command's role (`time`: the gateway's)."""
    body = json.dumps({k: v for k, v in request.items() if k != "tag"}, sort_keys=True, separators=(",", ":"))
    key = keys.command_key(key, request.get("cmd"))
    return dict(request, tag=hmac.new(key, body.encode(), hashlib.sha256).hexdigest())


def line(request):
    return (json.dumps(request) + "\n").encode()


def send(link, request):
    return json.loads(link.feed(line(request)))


def test_a_good_tag_is_applied_and_the_counter_moves_on():
    link, board = lv.session()
    reply = send(link, host_sign({"id": 1, "cmd": "config_set", "config": {"fire": "4"}, "ctr": 5}))
    assert reply == {"id": 1, "ok": True, "config": {"bonus": "A", "fire": "4"}}
    assert board.config["fire"] == "4" and board.store.value == 5
    assert send(link, {"id": 2, "cmd": "hello"})["ctr"] == 5
    assert send(link, host_sign({"id": 3, "cmd": "time", "unix": 1795000000, "ctr": 6}))["ok"]
    assert board.clock == 1795000000
    assert send(link, host_sign({"id": 4, "cmd": "maintenance", "ctr": 9}))["ok"] and board.maintenance


def test_key_order_and_spacing_of_the_line_do_not_matter():
    link, board = lv.session()
    signed = host_sign({"id": 1, "cmd": "time", "unix": 77, "ctr": 1})
    text = '{ "tag":"%s" ,"ctr":1,  "unix":77,"cmd":"time","id":1}\r\n' % signed["tag"]
    assert json.loads(link.feed(text.encode()))["ok"] and board.clock == 77


def two_bytes_off_alike(tag):
    flipped = chr(ord(tag[0]) ^ 1) + chr(ord(tag[1]) ^ 1) + tag[2:]
    assert flipped != tag and len(flipped) == len(tag)
    return flipped


def good():
    return host_sign({"id": 8, "cmd": "config_set", "config": {"fire": "9"}, "ctr": 3})


REFUSALS = [
    ("missing tag", {k: v for k, v in good().items() if k != "tag"}, "signed command: needs ctr (a counter) and tag"),
    ("missing ctr", {k: v for k, v in good().items() if k != "ctr"}, "signed command: needs ctr (a counter) and tag"),
    (
        "negative ctr",
        host_sign({"id": 8, "cmd": "time", "unix": 1, "ctr": -1}),
        "signed command: needs ctr (a counter) and tag",
    ),
    (
        "counter 0",  # a counter, but never above the last accepted (a new board's is 0)
        host_sign({"id": 8, "cmd": "time", "unix": 1, "ctr": 0}),
        "replayed or old counter: last accepted is 0",
    ),
    ("wrong tag", dict(good(), tag=good()["tag"][:-1] + ("0" if good()["tag"][-1] != "0" else "1")), "bad tag"),
    ("upper-case tag", dict(good(), tag=good()["tag"].upper()), "bad tag"),
    ("short tag", dict(good(), tag=good()["tag"][:32]), "bad tag"),
    (
        "other key",
        host_sign({"id": 8, "cmd": "config_set", "config": {"fire": "9"}, "ctr": 3}, b"the next table's key"),
        "bad tag",
    ),
    ("tampered argument", dict(good(), config={"fire": "10"}), "bad tag"),
    # Two bytes wrong by the same difference: an XOR-accumulated compare
    # (diff ^= a ^ b) would cancel them out; every byte must count on its own.
    ("two bytes off alike", dict(good(), tag=two_bytes_off_alike(good()["tag"])), "bad tag"),
    ("tampered counter", dict(good(), ctr=4), "bad tag"),
    ("tampered id", dict(good(), id=9), "bad tag"),
]


@pytest.mark.parametrize("why, request_, error", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refused_requests_change_nothing(why, request_, error):
    link, board = lv.session()
    before = board.state()
    reply = send(link, request_)
    assert reply == {"id": request_["id"], "ok": False, "error": error}
    assert board.state() == before


def test_a_replayed_or_older_counter_is_refused():
    link, board = lv.session()
    first = host_sign({"id": 1, "cmd": "time", "unix": 100, "ctr": 10})
    assert send(link, first)["ok"] and board.clock == 100
    assert send(link, host_sign({"id": 2, "cmd": "time", "unix": 200, "ctr": 11}))["ok"]
    before = board.state()
    replay = send(link, first)
    assert replay == {"id": 1, "ok": False, "error": "replayed or old counter: last accepted is 11"}
    older = send(link, host_sign({"id": 3, "cmd": "time", "unix": 300, "ctr": 11}))
    assert older["error"] == "replayed or old counter: last accepted is 11"
    assert board.state() == before and board.clock == 200


def test_a_counter_too_far_ahead_is_refused_so_the_counter_cannot_be_used_up():
    # one signed request with ctr 999999999999999999 used to disable
    # every signed command for good (the next counter needs 19 digits).
    link, board = lv.session()
    assert send(link, host_sign({"id": 1, "cmd": "time", "unix": 100, "ctr": 7}))["ok"]
    before = board.state()
    for ctr in (999999999999999999, 7 + 1001):
        reply = send(link, host_sign({"id": 2, "cmd": "time", "unix": 200, "ctr": ctr}))
        assert reply == {
            "id": 2,
            "ok": False,
            "error": "counter too far ahead: at most 1000 above the last accepted, 7",
        }
        assert board.state() == before and board.clock == 100
    assert send(link, host_sign({"id": 3, "cmd": "time", "unix": 300, "ctr": 7 + 1000}))["ok"]
    assert board.store.value == 1007 and board.clock == 300
    assert send(link, host_sign({"id": 4, "cmd": "time", "unix": 400, "ctr": 1008}))["ok"]


def test_a_board_without_a_key_refuses_every_signed_command():
    board = lv.Board()
    link = Link({"time": board.set_time}, None, board.store)
    reply = send(link, host_sign({"id": 1, "cmd": "time", "unix": 5, "ctr": 1}))
    assert reply["error"] == "no key on this board: deploy one" and board.clock == 0


def test_an_authentic_request_the_handler_refuses_still_uses_up_its_counter():
    link, board = lv.session()
    request = host_sign({"id": 1, "cmd": "config_set", "config": {"nope": "1"}, "ctr": 2})
    assert send(link, request) == {"id": 1, "ok": False, "error": "config: unknown key nope"}
    assert board.config == {"fire": "3", "bonus": "A"} and board.store.value == 2
    assert send(link, request)["error"] == "replayed or old counter: last accepted is 2"


def test_a_counter_that_cannot_be_stored_refuses_the_command():
    class FullFlash:
        def load(self):
            return 0

        def save(self, value):
            raise OSError(28)

    board = lv.Board()
    link = Link({"time": board.set_time}, lv.KEY, FullFlash())
    reply = send(link, host_sign({"id": 1, "cmd": "time", "unix": 5, "ctr": 1}))
    assert reply["error"] == "counter not stored: nothing done" and board.clock == 0


def test_the_counter_file_survives_a_restart_and_a_damaged_one_refuses(tmp_path):
    path = str(tmp_path / "link_ctr")
    board = lv.Board()
    link = Link({"time": board.set_time}, lv.KEY, CounterFile(path))
    assert send(link, host_sign({"id": 1, "cmd": "time", "unix": 5, "ctr": 41}))["ok"]
    # on the running board too: the counter it just saved is the one it checks against
    assert send(link, host_sign({"id": 2, "cmd": "time", "unix": 7, "ctr": 41}))["error"].startswith("replayed")
    assert board.clock == 5
    restarted = Link({"time": board.set_time}, lv.KEY, CounterFile(path))
    assert send(restarted, {"id": 2, "cmd": "hello"})["ctr"] == 41
    assert send(restarted, host_sign({"id": 1, "cmd": "time", "unix": 5, "ctr": 41}))["error"].startswith("replayed")
    (tmp_path / "link_ctr").write_text("4\x00\x00")
    damaged = Link({"time": board.set_time}, lv.KEY, CounterFile(path))
    reply = send(damaged, host_sign({"id": 3, "cmd": "time", "unix": 9, "ctr": 99}))
    assert reply["error"] == "counter unreadable: provision the board again" and board.clock == 5


def test_signed_vectors_on_both_runtimes_byte_for_byte():
    from test_link_core import run_cpython, run_micropython

    first = host_sign({"id": 1, "cmd": "time", "unix": 100, "ctr": 10})
    sessions = [
        [
            line(first),
            line(first),
            line(host_sign({"id": 2, "cmd": "config_set", "config": {"fire": "\u00e9"}, "ctr": 12})),
        ],
        [line(r) for _, r, _ in REFUSALS],
        [
            line(host_sign({"id": 4, "cmd": "maintenance", "ctr": 1})),
            line(host_sign({"id": 5, "cmd": "time", "unix": 2, "ctr": 1}, b"x")),
            line(host_sign({"id": 6, "cmd": "time", "unix": 3, "ctr": 1002})),
            line(host_sign({"id": 7, "cmd": "time", "unix": 4, "ctr": 1001})),
        ],
    ]
    expected = run_cpython(sessions)
    assert '"ctr":12' in expected[2].replace(" ", "") and '"maintenance":true' in expected[-2].replace(" ", "")
    assert run_micropython(sessions) == expected


def test_the_counter_file_on_littlefs_under_micropython():
    out = runtime.run("tests/vm/link_counter_lfs.py", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == [
        '{"id": 1, "ok": true}',
        '{"id": 2, "ok": true, "ctr": 41, "line_max": 1024, "protocol": 1}',
        '{"id": 3, "ok": false, "error": "replayed or old counter: last accepted is 41"}',
        '{"id": 4, "ok": false, "error": "counter unreadable: provision the board again"}',
        "100",
    ]


# Every signed command with its arguments, and the one key that signs it (docs/link.md, "Keys").
SIGNED = {
    "config_set": ({"config": {"fire": "4"}}, "link"),
    "maintenance": ({}, "link"),
    "journal_reset": ({"journal": 1, "seq": 2, "head": "00", "receipt": "00"}, "link"),
    "time": ({"unix": 1795000000}, "gateway"),
    "progressive": ({"game": "MEA", "state": "open", "amount": 1, "at": 1795000000}, "gateway"),
    "verified": ({"journal": 1, "seq": 2, "by": "ann", "alert": "a1"}, "floor"),
}


def test_each_signed_command_is_taken_under_its_roles_key_and_refused_under_any_other():
    from crapsboard.link.link import SPECS, CounterMemory

    assert sorted(SIGNED) == sorted(cmd for cmd, (_, signed) in SPECS.items() if signed)
    every = {
        "link": lv.KEY,
        "gateway": keys.role_key(lv.KEY, "gateway"),
        "floor": keys.role_key(lv.KEY, "floor"),
        "receipt": keys.role_key(lv.KEY, "receipt"),
        "journal": hmac.new(lv.KEY, b"crapsboard journal v2", hashlib.sha256).digest(),
    }
    for cmd, (args, role) in SIGNED.items():
        ran = []
        link = Link({cmd: lambda request, ran=ran: ran.append(request["cmd"])}, lv.KEY, CounterMemory())
        ctr = 0
        for name, key in every.items():
            ctr += 1
            request = dict(args, id=ctr, cmd=cmd, ctr=ctr)
            body = json.dumps(request, sort_keys=True, separators=(",", ":")).encode()
            reply = send(link, dict(request, tag=hmac.new(key, body, hashlib.sha256).hexdigest()))
            assert reply["ok"] == (name == role), (cmd, name, reply)
            if name != role:
                assert reply["error"] == "bad tag"
        assert ran == [cmd]  # the handler ran once: under its role's key


def test_auth_without_a_role_checks_under_the_link_key_and_a_receipt_needs_a_key():
    from crapsboard.link.link import CounterMemory
    from crapsboard.link.link_auth import Auth, AuthError, receipt_ok

    request = host_sign({"id": 1, "cmd": "config_set", "config": {"fire": "4"}, "ctr": 1})
    Auth(lv.KEY, CounterMemory()).check(request)  # the default role: the link key itself
    with pytest.raises(AuthError, match="bad tag"):
        Auth(lv.KEY, CounterMemory(), b"crapsboard role gateway").check(request)
    tag = keys.receipt_tag(keys.role_key(lv.KEY, "receipt"), "ab", 1, 2, "00")
    assert receipt_ok(lv.KEY, "ab", 1, 2, "00", tag) is True
    assert receipt_ok(lv.KEY, "ab", 1, 3, "00", tag) is False
    assert receipt_ok(None, "ab", 1, 2, "00", tag) is False  # a board without a key takes no receipt


def test_a_request_with_a_value_the_canonical_form_cannot_spell_is_refused_unchanged():
    # the link's parser refuses floats first; Auth refuses them too for any
    # other caller, since the two runtimes would spell a float apart
    from crapsboard.link.link import CounterMemory
    from crapsboard.link.link_auth import Auth, AuthError

    store = CounterMemory(2)
    with pytest.raises(AuthError, match="^cannot be signed: floats or odd values$"):
        Auth(b"k" * 32, store, True).check({"id": 1, "cmd": "time", "unix": 0.5, "ctr": 3, "tag": "00" * 32})
    assert store.load() == 2
