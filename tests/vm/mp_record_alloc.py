# MicroPython only: heap bytes allocated to build each replay record
# (report.roll_json) and each app event record (events.event_json) on a fixed
# dice stream, with the collector off. Prints: records, bytes per record (mean),
# worst record, event bytes per record (mean). A measurement, not a limit.
import gc

from crapsboard.rules import report
from crapsboard.rules.engine import Table
from crapsboard.table import entry as en
from crapsboard.table import events


def measure(table, count):
    seed = 2024
    total = 0
    worst = 0
    event_total = 0
    mem_alloc = gc.mem_alloc
    for i in range(count):
        seed = (seed * 1103515245 + 12345) & 0x3FFFFFFF
        die1 = (seed >> 16) % 6 + 1
        die2 = (seed >> 8) % 6 + 1
        table.roll(die1, die2)
        gc.collect()
        before = mem_alloc()
        report.roll_json(table)
        used = mem_alloc() - before
        total += used
        if used > worst:
            worst = used
        before = mem_alloc()
        events.event_json(table, i + 1, en.ACT_ROLL, die1 * 8 + die2, i)
        event_total += mem_alloc() - before
    return count, total // count, worst, event_total // count


table = Table()
measure(table, 20)  # warm up: first calls may intern names
print("%d %d %d %d" % measure(table, 3000))
