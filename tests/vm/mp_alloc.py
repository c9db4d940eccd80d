# MicroPython only: heap bytes allocated by each Table.roll on a fixed stream.
# Prints: quiet rolls, bytes on the worst quiet roll, resolving rolls, bytes in all.
import gc

from crapsboard.rules.engine import Table


def measure(table, count):
    seed = 2024
    quiet = 0
    worst_quiet = 0
    resolving = 0
    total = 0
    mem_alloc = gc.mem_alloc
    roll = table.roll
    for _ in range(count):
        seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
        die1 = (seed >> 16) % 6 + 1
        die2 = (seed >> 8) % 6 + 1
        before = mem_alloc()
        resolved = roll(die1, die2)
        used = mem_alloc() - before
        total += used
        if resolved:
            resolving += 1
        else:
            quiet += 1
            if used > worst_quiet:
                worst_quiet = used
    return quiet, worst_quiet, resolving, total


table = Table()
measure(table, 50)  # warm up: first calls may intern names
gc.collect()
gc.disable()
print("%d %d %d %d" % measure(table, 20000))
