"""The link core under random and mutated frames (tests/vm/link_fuzz.py):
no exception escapes, one well-formed reply per line, never byte 0x03, the
line buffer never past LINE_MAX, and no state change without a validly signed
request. `make test` runs a sample; `make proof-link` runs 10**6 frames
(LINK_FUZZ_FRAMES); the VM runs a sample and must answer byte for byte alike."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm import link_fuzz
from vm import link_vectors as lv

from crapsboard.link import link_auth
from crapsboard.link.link import LINE_MAX
from sim import runtime

FRAMES = int(os.environ.get("LINK_FUZZ_FRAMES", "20000"))
SEEDS = (1, 2)  # one process each under `pytest -n 2`
VM_FRAMES = 4000


@pytest.mark.parametrize("seed", SEEDS)
def test_seeded_fuzz(seed):
    result = link_fuzz.run(seed, FRAMES // len(SEEDS))
    assert result["violations"] == 0, result
    assert result["max_length"] <= LINE_MAX and result["too_long"] > 0  # over-long lines came, and were held off
    assert result["must_accept"] > 0 and result["accepted"] >= result["must_accept"]
    assert result["replies"] > result["frames"] // 2


def test_the_fuzz_oracle_catches_a_link_that_accepts_forged_tags(monkeypatch):
    monkeypatch.setattr(link_auth.Auth, "check", lambda self, request: None)
    assert link_fuzz.run(5, 2000)["violations"] > 0


def test_micropython_answers_the_fuzz_frames_like_cpython():
    expected = link_fuzz.run(3, VM_FRAMES)
    # The harness's strings (not the core) need more than an ESP32's heap.
    out = runtime.run(
        "tests/vm/link_fuzz.py", input="3 %d\n" % VM_FRAMES, heapsize="1M", capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert json.loads(out.stdout) == expected and expected["violations"] == 0


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(1, 700), min_size=1, max_size=20))
def test_random_bytes_in_random_chunks(data, cuts):
    link, board = lv.session()
    before = board.state()
    stream = data + b"\n"
    out, i, k = [], 0, 0
    while i < len(stream):
        step = cuts[k % len(cuts)]
        out.append(link.feed(stream[i : i + step]))
        assert link.length <= LINE_MAX and len(link.buf) == LINE_MAX
        i, k = i + step, k + 1
    out = b"".join(out)
    assert link_fuzz.check_replies(out) == link_fuzz.expected_replies(stream)
    assert b"\x03" not in out
    assert board.state() == before


requests = st.fixed_dictionaries(
    {"id": st.integers(-5, 2**32), "cmd": st.sampled_from(sorted(lv.session()[0].commands) + ["x"])},
    optional={
        "since": st.integers(-3, 40) | st.text(max_size=3),
        "limit": st.integers(-1, 20),
        "on": st.booleans() | st.integers(0, 1),
        "config": st.dictionaries(
            st.sampled_from(["fire", "bonus", "x"]), st.text(max_size=3) | st.integers(-(10**17), 10**17)
        ),
        "unix": st.integers(0, 2**40),
        "ctr": st.integers(-2, 50),
        "tag": st.text("0123456789abcdef", min_size=0, max_size=64),
        "data": st.text(max_size=20),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(requests, max_size=6))
def test_well_formed_requests_without_the_key_change_nothing(batch):
    link, board = lv.session()
    before = board.state().replace('"subscribed": true', '"subscribed": false')
    stream = b"".join((json.dumps(r) + "\n").encode() for r in batch)
    out = link.feed(stream)
    replies = [json.loads(x) for x in out.splitlines()]
    assert [r["id"] if 0 <= r["id"] < 2**31 else None for r in batch] == [r["id"] for r in replies]
    assert all(r["ok"] is False for q, r in zip(batch, replies) if q["cmd"] in ("config_set", "time", "maintenance"))
    # subscribe is unsigned: the only thing a keyless host may change
    assert board.state().replace('"subscribed": true', '"subscribed": false') == before
