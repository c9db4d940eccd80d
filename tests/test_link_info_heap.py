"""docs/link.md, `hello`: `free_heap` is the heap free after a collection, so a
technician reads what the board could still allocate, not what garbage happened
to be lying about (crapsboard/link/link_info.py under the MicroPython VM)."""

import json

from sim import runtime


def test_hello_gives_the_free_heap_after_a_collection():
    done = runtime.run("tests/vm/link_hello_heap.py", capture_output=True, heapsize="256K", timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    given, collected = json.loads(done.stdout)
    # What hello allocates after it reads the figure (its reply, the modules it imports
    # for the hash and the signed head) may differ either way, by a few KB: far below the
    # 60,000 bytes of garbage it must not count as used.
    assert collected - given < 8_000, (given, collected)
