# Boots firmware/main.py (copied into the test's flash folder, the working
# directory) with the stand-ins in tests/vm/standins, then reports what it
# built (tests/vm/boot_report.py, imported only then: while the board boots,
# this module's own code is in the heap it measures, so it is kept short).
import sys

import fake_micropython

sys.modules["micropython"] = fake_micropython

from crapsboard.boot import startup  # noqa: E402  (after the micropython stand-in is in place)

startup.FAULT_RESET_MS = 0  # the real board waits 5 s before it resets


def boot():
    try:
        import main  # noqa: F401  (booting is importing)
    except SystemExit:
        pass


STACK = getattr(__import__("fake_setup"), "STACK", 0)
if STACK:  # the boot in a thread of STACK bytes: MicroPython's check trips at STACK - 8 KB (unix port)
    import _thread
    import time

    ended = []

    def boot_in_thread():
        try:
            boot()
        finally:
            ended.append(1)

    _thread.stack_size(STACK)
    _thread.start_new_thread(boot_in_thread, ())
    while not ended:
        time.sleep_ms(5)
else:
    boot()

sys.path.pop(0)  # this folder, first on the path: the report comes compiled from the flash folder
# A start-up that ran out of memory leaves its modules and garbage in the heap:
# the firmware's modules go and the garbage is collected before the report loads.
for name in [n for n in sys.modules if n.startswith("crapsboard")]:
    del sys.modules[name]
__import__("gc").collect()
import boot_report  # noqa: E402, F401  (reports on import)
