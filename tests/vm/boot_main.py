# Boots firmware/main.py (copied into the test's flash folder, the working
# directory) with the stand-ins in tests/vm/standins, then reports what it
# built (tests/vm/boot_report.py, imported only then: while the board boots,
# this module's own code is in the heap it measures, so it is kept short).
import sys

import fake_micropython

sys.modules["micropython"] = fake_micropython

from crapsboard.boot import startup  # noqa: E402  (after the micropython stand-in is in place)

startup.FAULT_RESET_MS = getattr(__import__("fake_setup"), "FAULT_RESET_MS", 0)  # the board's is 5 s


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
if "asyncio" not in sys.modules:
    # The start-up failed before the app (out of memory, say): its modules are
    # garbage the report may need the room of, so they go first, one at a time
    # (a list of their names might not fit). After a run the report drops them.
    while True:
        for name in sys.modules:
            if name.startswith("crapsboard"):
                break
        else:
            break
        del sys.modules[name]
    __import__("gc").collect()
import boot_report  # noqa: E402, F401  (reports on import)
