"""crapsboard/link/link_wait.py under the MicroPython VM: while no host speaks, the
board polls standard input every 10 ms, as the link task does (docs/link.md,
Memory), so a host's first byte waits at most 10 ms to be read; and once a link is
forgotten, the waiter polls again with the link's modules out of memory."""

import json

from sim import runtime


def test_the_waiter_polls_standard_input_every_10_ms_until_its_end():
    done = runtime.run("tests/vm/link_wait_polls.py", input=b"", capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert json.loads(done.stdout) == [10]  # one poll, then the end of the input: return


def test_a_forgotten_link_hands_back_to_the_waiter_which_drops_the_link_task():
    # docs/link.md, Memory: after its silence the link is forgotten and the waiter
    # polls again with the link's modules, link_task's included, out of memory. The
    # silence passes in polls (tests/vm/link_wait_once.py: the sleeps are instant);
    # the VM says "forgotten" once the waiter polls again without link_task.
    import select
    import subprocess

    # Unbuffered (bufsize=0): a line read must leave the next in the pipe, where select sees it.
    vm = runtime.start(
        "tests/vm/link_wait_once.py", heapsize="512K", stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    try:
        vm.stdin.write(b'{"id": 1, "cmd": "hello"}\n')
        vm.stdin.flush()
        lines = []
        while b"forgotten\n" not in lines:
            ready, _, _ = select.select([vm.stdout], [], [], 30)
            assert ready, "the link was never forgotten: %r" % lines
            lines.append(vm.stdout.readline())
        assert json.loads(lines[0])["ok"] is True  # the link served the request first
        vm.stdin.close()  # the end of the input: the waiter returns
        assert json.loads(vm.stdout.read()) == ["wait", "task", "wait"]
        assert vm.wait(timeout=30) == 0
    finally:
        if vm.poll() is None:
            vm.kill()
            vm.wait()
