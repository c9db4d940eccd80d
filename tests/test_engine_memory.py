"""Under the MicroPython VM (128 KB heap), a roll that resolves nothing
allocates nothing: counted in bytes with the collector off, not timed."""

import os

import mp


def test_a_quiet_roll_allocates_no_heap():
    out = mp.run_script(os.path.join(mp.TESTS, "mp_alloc.py"), "")
    assert out.returncode == 0, out.stderr.decode()
    quiet, worst_quiet, resolving, total = (int(x) for x in out.stdout.split())
    assert quiet > 1000 and resolving > 1000  # the stream exercised both kinds
    assert worst_quiet == 0
    assert total == 0  # resolving rolls write into preallocated lists too
