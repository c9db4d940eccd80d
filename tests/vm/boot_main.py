# Boots firmware/main.py (copied into the test's flash folder, the working
# directory) with the stand-ins in tests/vm/standins, then reports what it built.
import sys

import fake_micropython

sys.modules["micropython"] = fake_micropython

import machine  # noqa: E402  (after the micropython stand-in is in place)
import neopixel  # noqa: E402

from crapsboard import startup  # noqa: E402

startup.FAULT_RESET_MS = 0  # the real board waits 5 s before it resets

try:
    import main  # noqa: F401  (booting is importing)
except SystemExit:
    pass


def triple(data, pixel):
    return " ".join([str(b) for b in data[3 * pixel : 3 * pixel + 3]])


P = machine.Pin.made
np = neopixel.LAST
print("emergency", fake_micropython.buffers[0])
print("wdt", machine.WDT.started, machine.WDT.feeds)
print("resets", len(machine.RESETS))
print("writes", np.writes)
print("first", triple(np.firsts[0], 0) if np.firsts else "none")
print("status", triple(np.buf, 0))
print("floor", triple(np.buf, 1))
print("manager", triple(np.buf, 2))
print("lit", len([i for i in range(len(np.buf)) if np.buf[i]]))
print("strip", np.pin.id, len(np.buf))
if 32 in P:
    print("rows", " ".join([str(P[p].mode) for p in (32, 33, 25, 26)]))
    print("cols", " ".join([str(P[p].mode) + "/" + str(P[p].pull) for p in (16, 17, 18, 19)]))
try:
    with open("diag.json") as f:
        print("diag", f.read())
except OSError:
    print("diag none")
