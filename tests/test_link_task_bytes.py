"""The link's task (crapsboard/link/link_task.py) under CPython on a pipe: what
it does with 0x03 with the REPL open and shut, and with bytes when it was built
with no link and no way to load one, and which links it forgets in a silence."""

import asyncio
import contextlib
import os
import sys

import pytest

from crapsboard.link.link_task import LinkTask


def task_on(data, **kw):
    """A task reading `data` then the end of its input from a pipe; what it wrote."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    out = []
    return LinkTask(stream=open(r, "rb", buffering=0), write=out.append, **kw), out


def run(task):
    """How the task's run ended: "break-in" (KeyboardInterrupt) or "ended" (its input did)."""
    try:
        asyncio.run(task.run())
    except KeyboardInterrupt:
        return "break-in"
    return "ended" if task.ended else "stopped"


def test_ctrl_c_breaks_in_only_with_the_repl_open():
    # docs/link.md: on a board without a key the REPL stays open and 0x03 breaks in,
    # as the ESP32's UART does; any other byte (0x04 here) is an ordinary byte.
    for data, break_in, how in (
        (b"\x04\x03", True, "break-in"),
        (b"\x03", True, "break-in"),
        (b"\x04\x04", True, "ended"),
        (b"\x03", False, "ended"),  # the REPL shut (a board with a key): an ordinary byte
    ):
        task, out = task_on(data)
        task.break_in = break_in
        assert (run(task), out) == (how, []), (data, break_in)


def test_a_link_that_cannot_load_answers_each_line_once_and_drops_the_rest_of_it():
    # docs/board.md, memory: the host is told once per request ("link not loaded: out of
    # memory, try again"); the rest of that line is dropped, not taken as more requests.
    from crapsboard.link import link_task

    tries = []

    def load(task):
        tries.append(1)
        raise MemoryError

    task, out = task_on(b'{"id": 1, "cmd": "hello"}\n{"id": 2, "cmd": "status"}\n', load=load)
    assert run(task) == "ended"
    assert (out, len(tries)) == ([link_task._NOT_LOADED] * 2, 2)


def test_a_task_with_no_link_and_no_way_to_load_one_says_nothing():
    task, out = task_on(b'{"id": 1, "op": "hello"}\n')
    assert run(task) == "ended"
    assert out == [] and task.link is None and task.loads == 0


@contextlib.contextmanager
def link_received_unloaded():
    """crapsboard.link.link_received out of memory, as before a host's first byte; put
    back after (other tests hold it). Yields a check that it is unloaded again."""
    name = "crapsboard.link.link_received"
    kept = sys.modules.pop(name, None)
    parent = sys.modules["crapsboard.link"]
    bound = parent.__dict__.pop("link_received", None)
    try:
        yield lambda: name not in sys.modules and not hasattr(parent, "link_received")
    finally:
        if kept is not None:
            sys.modules[name] = kept
        if bound is not None:
            parent.link_received = bound


def test_a_link_that_cannot_load_leaves_none_of_its_modules_behind():
    # docs/board.md, memory: a link that cannot load (MemoryError) leaves the table playing,
    # the host told, and the modules it had loaded so far dropped again.
    from crapsboard.link import link_task

    def load(task):
        __import__("crapsboard.link.link_received")  # part of the link loaded...
        raise MemoryError  # ...then the heap is full

    with link_received_unloaded() as unloaded:
        task, out = task_on(b"{}\n", load=load)
        task.take(b"{")
        assert unloaded()
        assert out == [link_task._NOT_LOADED] and task.link is None


def test_a_loaded_link_with_no_subscription_is_forgotten_in_the_silence():
    # docs/link.md: the link's modules are dropped after a silence unless a line is half
    # read or a subscription holds them; a link nothing holds is forgotten.
    from crapsboard.link.link import Link

    task, out = task_on(b"", load=lambda task: Link({}, None, None))
    task.take(b"\n")  # a blank line: the link loads, answers nothing
    assert task.link is not None and task.loads == 1
    task.forget()
    assert task.link is None


def test_a_forgotten_link_leaves_none_of_its_modules_behind():
    # docs/link.md, Memory: when a silence forgets the link, the modules it loaded are
    # dropped too, so the heap holds the table's alone until a host speaks again.
    from crapsboard.link.link import Link

    def load(task):
        __import__("crapsboard.link.link_received")  # a module of the link, loaded with it
        return Link({}, None, None)

    with link_received_unloaded() as unloaded:
        task, out = task_on(b"", load=load)
        task.take(b"\n")
        assert task.link is not None and not unloaded()
        task.forget()
        assert task.link is None and unloaded()


@pytest.mark.parametrize("held_by", ["a half-read line", "a line being skipped", "a subscription"])
def test_a_loaded_link_that_something_holds_is_kept_in_the_silence(held_by):
    # docs/link.md: each of the three alone keeps the link's modules loaded.
    from crapsboard.link.link import Link

    task, out = task_on(b"", load=lambda task: Link({}, None, None))
    task.take(b"\n")
    link = task.link
    if held_by == "a half-read line":
        task.take(b"{")
        assert link.length and not link.skipping and not link.hold
    elif held_by == "a line being skipped":
        link.skipping = True
    else:
        link.hold = True
    task.forget()
    assert task.link is link


def test_the_task_takes_at_most_64_bytes_before_the_other_tasks_run():
    # docs/link.md, the link's task: at most 64 bytes, then the other tasks (the table's)
    # get a turn; a host sending all the time never holds the table up for longer.
    from crapsboard.link.link import Link

    task, _ = task_on(b"\n" * 200, load=lambda task: Link({}, None, None))
    taken = [0]
    take = task.take

    def counting(byte):
        taken[0] += 1
        take(byte)

    task.take = counting
    seen = []

    async def table():
        while not task.ended:
            seen.append(taken[0])
            await asyncio.sleep(0)

    async def both():
        await asyncio.gather(task.run(), table())

    asyncio.run(both())
    turns = sorted(set(seen))
    assert turns[:3] == [64, 128, 192], turns  # a turn after each 64 bytes


def test_a_task_for_one_host_ends_at_the_silence_when_its_link_never_loaded():
    # docs/link.md, Memory: link_wait serves a host with a task that returns once its link
    # is forgotten (`once`); a link that could not load (out of memory) is forgotten at the
    # silence too, so link_wait polls again and the next host's byte tries the load again.
    def load(task):
        raise MemoryError

    task, out = task_on(b"", load=load)
    task.once = task.running = True
    task.take(b"\n")
    assert task.link is None and out
    task.forget()
    assert task.running is False


def test_a_task_for_one_host_keeps_serving_while_a_line_is_half_read():
    # A host half-way through a request at the silence keeps its link, and the task goes on.
    from crapsboard.link.link import Link

    task, out = task_on(b"", load=lambda task: Link({}, None, None))
    task.once = task.running = True
    task.take(b"{")
    task.forget()
    assert task.link is not None and task.running is True


def serve_then_silence(data, idle_ms=30, **kw):
    """A task fed `data` on a pipe held open (silence after it, no end of input) that
    forgets its link after `idle_ms`: (the task, the pipe's write end to close)."""
    r, w = os.pipe()
    os.write(w, data)
    task = LinkTask(stream=open(r, "rb", buffering=0), write=lambda data: None, idle_ms=idle_ms, **kw)
    return task, w


async def returned_within(task, seconds):
    try:
        await asyncio.wait_for(task.run(), seconds)
    except asyncio.TimeoutError:
        return False
    return True


async def until(condition, seconds):
    """Wait for `condition()` (polled every 10 ms) for at most `seconds`; whether it came."""
    for _ in range(int(seconds * 100)):
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


def test_link_waits_task_returns_at_the_silence_whether_or_not_its_link_loaded():
    # docs/link.md, Memory: link_wait's task (`once`) returns once its link is forgotten
    # after the silence, and so does one whose link could not load, so link_wait drops
    # link_task and polls again.
    from crapsboard.link.link import Link

    def no_room(task):
        raise MemoryError

    for load in (lambda task: Link({}, None, None), no_room):
        task, w = serve_then_silence(b"\n", load=load)
        task.once = True
        try:
            assert asyncio.run(returned_within(task, 10)) is True  # 30 ms of silence: at once, 10 s at most
        finally:
            os.close(w)
        assert task.link is None and task.loads == (1 if load is not no_room else 0) and not task.ended


def test_a_task_that_loads_on_demand_forgets_its_link_at_the_silence_and_goes_on():
    # on_demand without `once` (tests/vm/link_oom.py's): the link is forgotten after the
    # silence and the task keeps serving; the next byte loads it again.
    from crapsboard.link.link import Link

    task, w = serve_then_silence(b"\n", load=lambda task: Link({}, None, None))

    async def silence_then_a_byte():
        runner = asyncio.ensure_future(task.run())
        forgotten = await until(lambda: task.loads == 1 and task.link is None, 10)
        os.write(w, b"\n")
        reloaded = await until(lambda: task.loads == 2, 10)
        os.close(w)
        await asyncio.wait_for(runner, 30)
        return forgotten, reloaded

    assert asyncio.run(silence_then_a_byte()) == (True, True)
    assert task.ended and not task.running


def test_a_quiet_host_is_polled_every_10_ms_and_a_full_burst_yields_at_once(monkeypatch):
    # docs/link.md: the task takes at most 64 bytes before letting the other tasks run and
    # polls every 10 ms while the host is quiet.
    from crapsboard.link import link_task

    slept = []
    r, w = os.pipe()
    os.write(w, b"\n" * 64)  # one full burst; the pipe stays open, then nothing
    task = LinkTask(stream=open(r, "rb", buffering=0), write=lambda out: None)

    async def sleep_ms(ms):
        slept.append(ms)
        if len(slept) == 3:
            task.stop()

    monkeypatch.setattr(link_task, "sleep_ms", sleep_ms)
    asyncio.run(task.run())
    os.close(w)
    task.stream.close()
    assert slept == [0, 10, 10]


@pytest.mark.parametrize("first_byte_via", ["the stream", "take"], ids=["read-by-run", "handed-over-by-link_wait"])
def test_the_boards_link_is_forgotten_after_10_s_of_silence(monkeypatch, first_byte_via):
    # docs/link.md: after 10 s without input a loaded link is forgotten. The silence is
    # counted in polls of 10 ms: the 1,000th quiet poll after the last byte forgets it.
    from crapsboard.link import link_task
    from crapsboard.link.link import Link

    polls = []

    async def poll_at_once(ms):
        polls.append(ms)

    monkeypatch.setattr(link_task, "sleep_ms", poll_at_once)
    task = link_task.on_demand("crapsboard.link.link_app", "board_link", ())  # link_wait's, as built
    task.load = lambda task: Link({}, None, None)  # a link without the app's handlers
    task.write = lambda data: None
    r, w = os.pipe()
    task.stream = open(r, "rb", buffering=0)
    task.once = True  # run() returns once the link is forgotten, as link_wait's does
    if first_byte_via == "take":
        task.take(b"\n")  # link_wait reads a host's first byte itself, then runs the task
    else:
        os.write(w, b"\n")
    try:
        asyncio.run(task.run())
    finally:
        os.close(w)
        task.stream.close()
    assert task.link is None and task.loads == 1
    quiet = polls[1:] if first_byte_via == "the stream" else polls  # after the byte's own poll
    assert quiet == [10] * 1_000  # 10 s of quiet polls
