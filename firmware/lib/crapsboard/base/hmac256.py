# HMAC-SHA256 (RFC 2104) and PBKDF2-HMAC-SHA256 (RFC 8018) on MicroPython,
# whose hashlib has sha256 but neither hmac nor pbkdf2_hmac. Used to check the
# supervisor PIN against its salted, slow hash, and to sign serial messages
# (RFC 4231 vectors against CPython's hmac: tests/test_pin_hash.py, test_link_auth.py).
# Not on any hot path: each call allocates a few small bytes objects.
import hashlib

_BLOCK = 64  # SHA-256 block size, bytes
_IPAD = bytes([0x36] * _BLOCK)
_OPAD = bytes([0x5C] * _BLOCK)


def _xor(a, b):
    return bytes([x ^ y for x, y in zip(a, b)])


def _pads(key):
    # The inner and outer padded keys of RFC 2104.
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key + bytes(_BLOCK - len(key))
    return _xor(key, _IPAD), _xor(key, _OPAD)


def hmac_sha256(key, msg):
    """HMAC-SHA256 of bytes `msg` under bytes `key`: 32 bytes."""
    inner, outer = _pads(key)
    return hashlib.sha256(outer + hashlib.sha256(inner + msg).digest()).digest()


def pbkdf2_sha256(password, salt, iterations):
    """PBKDF2-HMAC-SHA256 of bytes `password` and `salt`: one 32-byte block
    (dkLen 32), as hashlib.pbkdf2_hmac("sha256", password, salt, iterations)."""
    inner, outer = _pads(password)
    sha256 = hashlib.sha256
    u = sha256(outer + sha256(inner + salt + b"\x00\x00\x00\x01").digest()).digest()
    acc = int.from_bytes(u, "big")
    for _ in range(iterations - 1):
        u = sha256(outer + sha256(inner + u).digest()).digest()
        acc ^= int.from_bytes(u, "big")
    return acc.to_bytes(32, "big")
