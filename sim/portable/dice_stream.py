# The benchmark's dice stream: one xorshift32 sequence, identical under CPython
# and MicroPython, so the engine, crapssim and the MicroPython port all see the
# very same rolls. MicroPython subset only (sim/portable/mp_bench.py imports it).
#
# A roll is r = (x * 36) >> 32 for each xorshift32 state x (Marsaglia 2003,
# shifts 13/17/5), i.e. the top of the 32-bit word scaled to 0..35; the dice
# are r // 6 + 1 and r % 6 + 1. 2**32 is 4 mod 36, so four outcomes are more
# likely by one part in 1.2e8: far below anything a benchmark or test can see.
# On a 64-bit port every intermediate is a small int, so filling a buffer
# allocates nothing. Not for statistics: `odds --simulate` uses Mersenne Twister.

_MASK = 0xFFFFFFFF


def seed_state(seed):
    """A non-zero xorshift32 state from any int seed."""
    x = (seed * 2654435761 + 0x6D2B79F5) & _MASK
    return x or 0x9E3779B9


def fill(buf, x):
    """Fill bytearray `buf` with rolls 0..35; returns the next state."""
    for i in range(len(buf)):
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        buf[i] = (x * 36) >> 32
    return x


def rolls(seed, count):
    """`count` rolls as a bytearray of 0..35 (die1 = r // 6 + 1, die2 = r % 6 + 1)."""
    buf = bytearray(count)
    fill(buf, seed_state(seed))
    return buf
