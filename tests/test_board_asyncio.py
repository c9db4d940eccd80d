"""App.run(), the asyncio shell main.py uses: scan, render and watchdog tasks
on a real clock, under CPython and MicroPython. The waits are bounded polls of
what the tasks did, never assertions about how long anything took."""

import asyncio
import os
import time

import pytest
from conftest import ROOT
from heap_budget import BUDGET_KB

from crapsboard.base import ticks
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, App
from sim import runtime
from sim.portable.simboard import SimBoard

BOARD = os.path.join(ROOT, "hardware", "board.json")


def real_clock_board():
    layout = lay.load(BOARD)
    board = SimBoard(layout)
    board.ticks_ms = lambda: int(time.monotonic() * 1000) & ticks.MASK
    return layout, board


async def until(condition, limit_s=20):
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, "the app's tasks did not get there"
        await asyncio.sleep(0.01)


def test_run_scans_keys_renders_and_feeds_the_watchdog():
    layout, board = real_clock_board()
    app = App(board, layout)
    board.down = KEYSWITCH_NC_BIT | 1 << layout.key_index("3")  # held: one press (the key off)

    async def main():
        task = asyncio.create_task(app.run())
        await until(lambda: board.feeds >= 2 and app.entry.first == 3)
        app.stop()
        await task

    asyncio.run(main())
    assert board.frames > 0 and any(board.frame)  # the puck, at least, is lit
    assert not app.running


@pytest.mark.parametrize("dying", ["render", "scan"])
def test_a_task_that_dies_stops_the_watchdog_feeds(dying):
    # docs/board.md: the watchdog is fed only when both the scan and the render task
    # have run since the last feed, so either one dying resets the board.
    layout, board = real_clock_board()
    app = App(board, layout)
    calls = {"render": 0, "scan": 0}
    real = {"render": app.lamps.render, "scan": app.step}

    def counted(task):
        def call(*args):
            calls[task] += 1
            if task == dying and calls[task] == 3:
                raise RuntimeError("%s gone" % task)
            return real[task](*args)

        return call

    app.lamps.render = counted("render")
    app.step = counted("scan")
    living = "scan" if dying == "render" else "render"

    async def main():
        task = asyncio.create_task(app.run())
        await until(lambda: calls[dying] == 3 and board.feeds >= 1)
        fed, seen = board.feeds, calls[living]
        # Bounded by what the living task does, not by a sleep: 20 more of its rounds
        # (scan 10 ms or render 50 ms each) span several 100 ms watchdog checks.
        await until(lambda: calls[living] >= seen + 20)
        assert board.feeds <= fed + 1  # one feed may already have been earned
        app.stop()
        await task

    with pytest.raises(RuntimeError, match="%s gone" % dying):
        asyncio.run(main())


def test_a_scan_that_dies_at_once_is_never_fed():
    # The watchdog needs both tasks to have run since the last feed, from the
    # start: a scan task that dies at its first scan must never earn one.
    layout, board = real_clock_board()
    app = App(board, layout)
    renders = []
    real_render = app.lamps.render

    def first_scan_dies(now_ms):
        raise RuntimeError("scan gone")

    def render(*args):
        renders.append(1)
        return real_render(*args)

    app.step = first_scan_dies
    app.lamps.render = render

    async def main():
        task = asyncio.create_task(app.run())
        # 20 render rounds of 50 ms span several 100 ms watchdog checks.
        await until(lambda: len(renders) >= 20)
        app.stop()
        await task

    with pytest.raises(RuntimeError, match="scan gone"):
        asyncio.run(main())
    assert board.feeds == 0


def test_the_tasks_run_every_10_50_and_100_ms(monkeypatch):
    # docs/board.md: a scan task every keypad.scan_ms (10 ms in hardware/board.json),
    # a render task every 50 ms, and the watchdog loop every 100 ms.
    from crapsboard.table import app as app_module

    layout, board = real_clock_board()
    app = App(board, layout)
    asked = {}

    async def recorded_sleep_ms(delay):
        asked.setdefault(asyncio.current_task().get_coro().__name__, set()).add(delay)
        await asyncio.sleep(0.001)

    monkeypatch.setattr(app_module, "sleep_ms", recorded_sleep_ms)

    async def main():
        task = asyncio.create_task(app.run())
        await until(lambda: board.feeds >= 2)
        app.stop()
        await task

    asyncio.run(main())
    assert layout.scan_ms == 10
    assert asked == {"_scan_task": {10}, "_render_task": {50}, "run": {100}}


def test_run_under_micropython(mpy_lib):
    # The board's heap budget (docs/board.md, Memory; tests/heap_budget.py): the
    # engine runs' 128K default is not the app's since hardware revision B.
    out = runtime.run(
        "tests/vm/board_asyncio.py",
        [BOARD],
        heapsize="%dK" % BUDGET_KB,
        extra_paths=[mpy_lib],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "5", "True"]
