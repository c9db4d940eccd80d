# The report of tests/vm/boot_main.py, once main.py has returned: what the
# board built and showed, one "key value" line each (tests/test_board_main.py).
import binascii
import gc
import sys
import time

import fake_micropython
import machine
import neopixel


def triple(data, pixel):
    return " ".join([str(b) for b in data[3 * pixel : 3 * pixel + 3]])


# The firmware's modules are dropped (the report reads only the stand-ins
# and diag.json). The stopped app's tasks are still queued, and the task that
# was running when the watchdog stand-in ended the run is still asyncio's
# current task: a fresh event loop and no current task let them go, and with
# them the app. So the report has room after a run in a small heap, and the
# smallest heap measured is the board's, not the runner's.
if "asyncio" in sys.modules:  # not imported when the start-up failed before the app
    import asyncio.core

    asyncio.new_event_loop()
    asyncio.core.cur_task = None
gc.collect()
for name in list(sys.modules):
    if name.startswith("crapsboard"):
        del sys.modules[name]
gc.collect()
P = machine.Pin.made
np = neopixel.LAST
print("emergency", fake_micropython.buffers[0])
print("kbd", " ".join([str(c) for c in fake_micropython.interrupt_chars]) or "none")
print("wdt", machine.WDT.started, machine.WDT.feeds)
print("resets", len(machine.RESETS))
print("writes", np.writes)
print("sent", "yes" if np.sent == np.buf else "no")  # the last frame set was written to the strip
# How long the last frame was shown before the chip reset.
print(
    "held_ms", time.ticks_diff(machine.RESETS[-1], np.sent_ms) if machine.RESETS and np.sent_ms is not None else "none"
)
print("first", triple(np.firsts[0], 0) if np.firsts else "none")
print("status", triple(np.buf, 0))
print("floor", triple(np.buf, 1))
print("manager", triple(np.buf, 2))
print("lit", len([i for i in range(len(np.buf)) if np.buf[i]]))
print("strip", np.pin.id, len(np.buf))
# Piece by piece: after a run in a small heap, 300 bytes in one piece may not be free.
sys.stdout.write("frame ")
for i in range(0, len(np.buf), 3):
    sys.stdout.write(binascii.hexlify(np.buf[i : i + 3]).decode())
print()
if 32 in P:
    print("rows", " ".join([str(P[p].mode) for p in (32, 33, 25, 14)]))  # hardware/board.json
    print("cols", " ".join([str(P[p].mode) + "/" + str(P[p].pull) for p in (18, 19, 4, 23)]))
try:
    with open("diag.json") as f:
        print("diag", f.read())
except OSError:
    print("diag none")
