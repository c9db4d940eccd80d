# MicroPython side of `python -m sim bench`'s GC pause figures (MicroPython subset).
# argv: KB [KB ...]: for each, the heap's used part is grown to about that many
# KB of live objects shaped like the firmware's (small tuples, lists, dicts,
# bytearrays and strings), and gc.collect() is timed REPEATS times. Prints one
# JSON object: {"KB": [used bytes, fastest us, median us], ...} (the fastest is
# the pause itself; the median adds what a busy host took from the VM).
#
# A collection marks what is reachable and sweeps the heap's blocks up to
# the highest one in use, so its pause grows with the used part, not with the
# heap's size: run in a heap of megabytes (a PSRAM board's), the figures are
# those of the used sizes asked for.
import gc
import json
import sys
import time

REPEATS = 15


def grow(keep, target):
    """Add objects to `keep` until gc.mem_alloc() reaches `target` bytes."""
    i = 0
    while gc.mem_alloc() < target:
        keep.append((i, [i, i + 1], {"k": i}, bytearray(24), "s%d" % i))
        i += 1


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main(sizes):
    out = {}
    keep = []
    for kb in sizes:  # ascending: each size adds to the last
        grow(keep, kb * 1024)
        gc.collect()
        times = []
        for _ in range(REPEATS):
            t0 = time.ticks_us()
            gc.collect()
            times.append(time.ticks_diff(time.ticks_us(), t0))
        out[str(kb)] = [gc.mem_alloc(), min(times), median(times)]
    print(json.dumps(out))


main([int(a) for a in sys.argv[1:]])
