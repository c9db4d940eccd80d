# MicroPython side of `python -m sim bench` (MicroPython subset only).
# argv: ROLLS SEED REPS SAMPLE. Prints one JSON object on stdout.
#
# The dice are the benchmark's xorshift32 stream (sim/portable/dice_stream.py), the
# same rolls CPython and crapssim see. They are made a chunk at a time into
# preallocated bytearrays outside the timed region; the timed loop is
# `roll(d1[i], d2[i])` over the chunk (the CPython side times `roll(d1, d2)`
# over a list of pairs).
#
# Speed: REPS passes over the stream, each with a fresh Table, timed with
# time.ticks_us. Memory: one more pass with the GC disabled inside each chunk
# (it runs between chunks, never inside one). gc.mem_alloc() walks the whole
# heap, so it is read around every roll only for the first SAMPLE rolls (bytes
# split by whether the roll resolved anything) and around whole chunks for the
# rest: the total over all rolls is exact either way.
import gc
import json
import sys
import time

from crapsboard.rules.engine import Table
from sim.portable import dice_stream

CHUNK = 2048


def split(buf, d1, d2):
    for i in range(len(buf)):
        r = buf[i]
        d1[i] = r // 6 + 1
        d2[i] = r % 6 + 1


def timed_pass(rolls, seed, buf, d1, d2):
    table = Table()
    roll = table.roll
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
    x = dice_stream.seed_state(seed)
    elapsed = 0
    done = 0
    while done < rolls:
        x = dice_stream.fill(buf, x)
        split(buf, d1, d2)
        n = min(CHUNK, rolls - done)
        gc.collect()
        t0 = ticks_us()
        for i in range(n):
            roll(d1[i], d2[i])
        elapsed += ticks_diff(ticks_us(), t0)
        done += n
    return elapsed


def memory_pass(rolls, seed, buf, d1, d2, sample):
    gc.collect()
    base = gc.mem_alloc()
    table = Table()
    gc.collect()
    table_bytes = gc.mem_alloc() - base
    roll = table.roll
    res_wager = table.res_wager
    res_level = table.res_level
    mem_alloc = gc.mem_alloc
    x = dice_stream.seed_state(seed)
    quiet = quiet_bytes = loud = loud_bytes = resolutions = total_bytes = 0
    digest = 0
    peak = mem_alloc()
    done = 0
    while done < rolls:
        x = dice_stream.fill(buf, x)
        split(buf, d1, d2)
        n = min(CHUNK, rolls - done)
        gc.collect()
        gc.disable()
        start = mem_alloc()
        for i in range(n):
            if done + i < sample:
                before = mem_alloc()
                k = roll(d1[i], d2[i])
                after = mem_alloc()
                if k:
                    loud += 1
                    loud_bytes += after - before
                else:
                    quiet += 1
                    quiet_bytes += after - before
            else:
                k = roll(d1[i], d2[i])
            for j in range(k):
                digest = (digest * 31 + res_wager[j] * 16 + res_level[j]) & 0xFFFFFF
            resolutions += k
        end = mem_alloc()
        gc.enable()
        total_bytes += end - start
        if end > peak:
            peak = end
        done += n
    return {
        "total_bytes": total_bytes,
        "quiet_rolls": quiet,
        "quiet_bytes": quiet_bytes,
        "resolving_rolls": loud,
        "resolving_bytes": loud_bytes,
        "resolutions": resolutions,
        "digest": digest,
        "table_bytes": table_bytes,
        "peak_heap_bytes": peak,
    }


def main(argv):
    rolls = int(argv[0])
    seed = int(argv[1])
    reps = int(argv[2])
    sample = int(argv[3])
    buf = bytearray(CHUNK)
    d1 = bytearray(CHUNK)
    d2 = bytearray(CHUNK)
    times = [timed_pass(rolls, seed, buf, d1, d2) for _ in range(reps)]
    out = memory_pass(rolls, seed, buf, d1, d2, sample)
    gc.collect()
    out["rolls"] = rolls
    out["pass_us"] = times
    out["heap_bytes"] = gc.mem_alloc() + gc.mem_free()
    out["version"] = sys.version
    print(json.dumps(out))


main(sys.argv[1:])
