"""Under the MicroPython VM (128 KB heap), a roll that resolves nothing
allocates nothing: counted in bytes with the collector off, not timed."""

from sim import runtime


def test_a_quiet_roll_allocates_no_heap():
    out = runtime.run("tests/vm/mp_alloc.py", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    quiet, worst_quiet, resolving, total = (int(x) for x in out.stdout.split())
    assert quiet > 1000 and resolving > 1000  # the stream exercised both kinds
    assert worst_quiet == 0
    assert total == 0  # resolving rolls write into preallocated lists too
