"""crapsboard/link/link_wait.py under the MicroPython VM: while no host speaks, the
board polls standard input every 10 ms, as the link task does (docs/link.md,
Memory), so a host's first byte waits at most 10 ms to be read."""

import json

from sim import runtime


def test_the_waiter_polls_standard_input_every_10_ms_until_its_end():
    done = runtime.run("tests/vm/link_wait_polls.py", input=b"", capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert json.loads(done.stdout) == [10]  # one poll, then the end of the input: return
