# Boots firmware/main.py (copied into the test's flash folder, the working
# directory) with the stand-ins in tests/vm/standins, then reports what it built.
import sys

import fake_micropython

sys.modules["micropython"] = fake_micropython

import machine  # noqa: E402  (after the micropython stand-in is in place)
import neopixel  # noqa: E402

try:
    import main  # noqa: F401  (booting is importing)
except SystemExit:
    pass
P = machine.Pin.made
np = neopixel.LAST
print("emergency", fake_micropython.buffers[0])
print("wdt", machine.WDT.started, machine.WDT.feeds)
print("writes", np.writes)
print("status", " ".join([str(b) for b in np.buf[0:3]]))
print("rows", " ".join([str(P[p].mode) for p in (32, 33, 25, 26)]))
print("cols", " ".join([str(P[p].mode) + "/" + str(P[p].pull) for p in (16, 17, 18, 19)]))
print("strip", np.pin.id, len(np.buf))
