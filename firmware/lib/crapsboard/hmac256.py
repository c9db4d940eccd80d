# HMAC-SHA256 (RFC 2104) over hashlib.sha256, which both runtimes have;
# MicroPython has no `hmac` module. Checked against CPython's hmac on the
# RFC 4231 vectors under both runtimes (tests/test_link_auth.py).
import hashlib

from micropython import const

_BLOCK = const(64)  # SHA-256 block size in bytes


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    inner_pad = bytearray(_BLOCK)
    outer_pad = bytearray(_BLOCK)
    for i in range(_BLOCK):
        k = key[i] if i < len(key) else 0
        inner_pad[i] = k ^ 0x36
        outer_pad[i] = k ^ 0x5C
    inner = hashlib.sha256(inner_pad)
    inner.update(msg)
    outer = hashlib.sha256(outer_pad)
    outer.update(inner.digest())
    return outer.digest()
