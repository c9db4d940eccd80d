# MicroPython only: milliseconds for one supervisor PIN check (PBKDF2-HMAC-SHA256)
# at a few iteration counts, best of 5 each. Prints "iterations ms" lines.
# A measurement for choosing sim/pin_hash.py's ITERATIONS, not a limit.
import time

from crapsboard.base.hmac256 import pbkdf2_sha256

for iterations in (500, 1000, 2000, 4000):
    best = None
    for _ in range(5):
        start = time.ticks_us()
        pbkdf2_sha256(b"24681357", b"0123456789abcdef", iterations)
        us = time.ticks_diff(time.ticks_us(), start)
        if best is None or us < best:
            best = us
    print(iterations, best / 1000)
