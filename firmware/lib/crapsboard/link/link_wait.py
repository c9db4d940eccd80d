# What of the serial link stays in memory on the board while no host speaks:
# one coroutine that polls standard input. At a host's first byte it imports
# crapsboard/link/link_task.py, which loads the link itself; when the link task
# has forgotten its link after a silence it returns here, and link_task is
# dropped too (crapsboard/base/modules.py; docs/link.md, Memory).
import asyncio
import gc
import select
import sys

from micropython import const

from crapsboard.base import modules

_IDLE_MS = const(10)  # as link_task.IDLE_MS: how long a host's first byte waits
_CTRL_C = const(3)
# True while the REPL is open (a board without a key, startup.shut_repl): 0x03
# then raises KeyboardInterrupt, as the ESP32's drivers would, so the bytes
# mpremote sends next reach the REPL, not the link. main.py sets it.
BREAK_IN = False
_NOT_LOADED = '{"id": null, "ok": false, "error": "link not loaded: out of memory, try again"}\n'
# The link's modules, leaves first (tests/test_firmware_imports.py checks the
# order): each import then finds what it imports loaded already and does not
# nest, which keeps the C stack shallow (docs/board.md, Memory: the stack).
# Then link_task, which loads link_app.
LEAF_FIRST = (
    "crapsboard.link.link_json",
    "crapsboard.link.link",
    "crapsboard.link.link_config",
    "crapsboard.link.link_info",
    "crapsboard.link.link_events",
    "crapsboard.link.link_admin",
)


async def wait(args):
    """Poll standard input; at each first byte after a silence, serve the link
    (crapsboard.link.link_app.board_link(*args, task)) until it is forgotten again.
    Returns at the end of the input (a closed port)."""
    stream = sys.stdin.buffer
    poller = select.poll()
    poller.register(stream, select.POLLIN)
    dropping = False  # the link could not load: the line is skipped to its newline
    keep = {}  # what outlives a forgotten link (the wall clock a host set): LinkTask.keep
    while True:
        await asyncio.sleep_ms(_IDLE_MS)
        for _ in poller.ipoll(0):  # ipoll, not poll(0), which allocates a list at every call
            break
        else:
            continue  # nothing from the host
        byte = stream.read(1)
        if not byte:  # end of input
            return
        if BREAK_IN and byte[0] == _CTRL_C:
            raise KeyboardInterrupt
        if dropping:
            dropping = byte != b"\n"
            continue
        before = modules.loaded()
        try:
            for name in LEAF_FIRST:
                modules.load(name)
            link_task = modules.load("crapsboard.link.link_task")
            task = link_task.on_demand("crapsboard.link.link_app", "board_link", args)
        except Exception:  # MemoryError above all: the table plays on, the host is told
            link_task = task = None
            modules.drop_since(before)
            gc.collect()
            sys.stdout.write(_NOT_LOADED)
            dropping = byte != b"\n"  # the rest of the request's line is dropped as it comes
            continue
        task.keep = keep
        task.break_in = BREAK_IN
        task.once = True  # run() returns once the link is forgotten
        task.take(byte)
        await task.run()
        ended = task.ended
        del task, link_task
        modules.drop_since(before)
        gc.collect()
        if ended:
            return


async def serve(app, args):
    """The app's tasks and the link's waiter, until the app stops."""
    asyncio.create_task(wait(args))
    await app.run()
