"""The supervisor PIN is stored salted and slow (PBKDF2-HMAC-SHA256), checked
by firmware code that runs under MicroPython, whose hashlib has sha256 only."""

import hashlib
import hmac
import json
import subprocess
import sys

import pytest
from conftest import ROOT
from engine_both import run_both
from vm import mp_hmac256

from crapsboard.rules import config as cfg
from sim import pin_hash, runtime
from sim.session import Session

# RFC 4231 test cases 1, 2 and 6 (key longer than a block), and the RFC 7914
# PBKDF2-HMAC-SHA256 vector; the rest are checked against CPython's hashlib.
RFC_HMAC = [
    ("0b" * 20, b"Hi There".hex(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (
        b"Jefe".hex(),
        b"what do ya want for nothing?".hex(),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ),
    (
        "aa" * 131,
        b"Test Using Larger Than Block-Size Key - Hash Key First".hex(),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ),
]
PBKDF2_CASES = [
    (b"passwd", b"salt", 1),
    (b"password", b"salt", 2),
    (b"2468", bytes(range(16)), 700),
    (b"12345678", b"\xff" * 64, 33),
    (b"x" * 100, b"long password", 5),  # a password longer than a block is hashed first
]


def expected_lines():
    lines, want = [], []
    for key, msg, digest in RFC_HMAC:
        lines.append("hmac %s %s" % (key, msg))
        want.append(digest)
        assert hmac.new(bytes.fromhex(key), bytes.fromhex(msg), hashlib.sha256).hexdigest() == digest
    for password, salt, iterations in PBKDF2_CASES:
        lines.append("pbkdf2 %s %s %d" % (password.hex(), salt.hex(), iterations))
        want.append(hashlib.pbkdf2_hmac("sha256", password, salt, iterations).hex())
    return lines, want


def test_hmac_and_pbkdf2_match_the_rfc_vectors_and_hashlib_on_both_runtimes():
    lines, want = expected_lines()
    assert want[3].startswith("55ac046e56e3089fec1691c22544b605")  # RFC 7914 section 11
    out = []
    mp_hmac256.run(lines, out.append)
    assert "".join(out).split() == want
    result = runtime.run(
        "tests/vm/mp_hmac256.py", input=("\n".join(lines) + "\n").encode(), capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split() == want


def test_pin_hash_command_makes_an_entry_that_authorises_that_pin():
    out = subprocess.run(
        [sys.executable, "-m", "sim", "pin-hash", "2468"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stderr
    config_text = out.stdout
    entry = json.loads(config_text)["supervisor_pin"]
    assert entry["iterations"] == pin_hash.ITERATIONS and len(bytes.fromhex(entry["salt"])) == pin_hash.SALT_BYTES
    assert (
        entry["pbkdf2_sha256"]
        == hashlib.pbkdf2_hmac("sha256", b"2468", bytes.fromhex(entry["salt"]), entry["iterations"]).hex()
    )
    for runtime_name in ("cpython", "micropython"):
        with Session(runtime_name, config_text=config_text) as s:
            assert [e["event"] for e in s.send("pin 1 3 5 7 enter pin 2 4 6 8 enter")["events"]] == [
                "error",
                "supervisor_on",
            ]


def test_each_entry_gets_its_own_salt():
    a, b = pin_hash.config_entry("2468"), pin_hash.config_entry("2468")
    assert a["salt"] != b["salt"] and a["pbkdf2_sha256"] != b["pbkdf2_sha256"]


@pytest.mark.parametrize("pin", ["", "123456789", "12a4", "١٢٣"])
def test_pin_hash_refuses_what_the_keypad_cannot_type(pin):
    out = subprocess.run(
        [sys.executable, "-m", "sim", "pin-hash", pin], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "sim pin-hash: a PIN is 1 to 8 digits 0-9\n"


def test_an_old_unsalted_pin_hash_is_refused_naming_the_command():
    with pytest.raises(cfg.ConfigError) as e:
        cfg.loads(json.dumps({"supervisor_pin_sha256": "0" * 64}))
    assert e.value.key == "supervisor_pin_sha256" and "python -m sim pin-hash" in str(e.value)
    (record,) = run_both(['config {"supervisor_pin_sha256": "%s"}' % ("0" * 64)])
    assert (record["ok"], record["error"]) == (False, "supervisor_pin_sha256")


GOOD = {"pbkdf2_sha256": "ab" * 32, "salt": "cd" * 16, "iterations": 700}


@pytest.mark.parametrize(
    "change, key",
    [
        ({"iterations": 0}, "supervisor_pin.iterations"),
        ({"iterations": True}, "supervisor_pin.iterations"),
        ({"salt": "cd" * 4 + "c"}, "supervisor_pin.salt"),
        ({"salt": "cd" * 7}, "supervisor_pin.salt"),
        ({"pbkdf2_sha256": "AB" * 32}, "supervisor_pin.pbkdf2_sha256"),
        ({"pbkdf2_sha256": "ab" * 31}, "supervisor_pin.pbkdf2_sha256"),
        ({"extra": 1}, "supervisor_pin"),
    ],
)
def test_a_bad_pin_entry_is_refused_naming_the_field(change, key):
    entry = dict(GOOD, **change)
    (record,) = run_both(["config " + json.dumps({"supervisor_pin": entry})])
    assert (record["ok"], record["error"]) == (False, key)


def test_a_good_entry_and_null_are_accepted():
    records = run_both(["config " + json.dumps({"supervisor_pin": GOOD}), 'config {"supervisor_pin": null}'])
    assert [r["ok"] for r in records] == [True, True]
