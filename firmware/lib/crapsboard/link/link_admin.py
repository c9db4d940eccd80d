# The link's signed board commands (docs/link.md): time, maintenance, journal_reset.
#
# Dispatched by link_app.py; link.Link has checked the tag and used up the counter before these run.
from micropython import const

from crapsboard.link.link import LinkError

MAINTENANCE_FILE = "maintenance"
START_LINK = const(2)  # JOURNAL_START's arg: a journal started over the link (0 first use, 1 supervisor)
TIME = const(21)  # journal_record.TIME: the wall clock set; payload u64 unix seconds
RESET_DELAY_MS = const(200)  # the maintenance reply leaves the port before the reset
_UNIX_MAX = const(0xFFFFFFFF)


def set_time(handlers, request):
    unix = request["unix"]
    if not 0 < unix <= _UNIX_MAX:
        raise LinkError("unix must be seconds since 1970, 1 to 4294967295")
    app = handlers.app
    now = handlers.now()
    if app.journal is not None and not app.record(TIME, 0, now, unix.to_bytes(8, "little")):
        raise LinkError("journal could not record it: clock not set")
    handlers.keep["unix"] = (unix, now)
    t = app.journal.clock if app.journal is not None else now  # the record's t: the journal clock
    return {"unix": unix, "t": t, "journal": handlers.journal_state()}


def maintenance(handlers, request):
    import asyncio
    import os

    path = handlers.path(MAINTENANCE_FILE)
    try:
        with open(path, "w") as f:
            f.write("once")
    except OSError as e:
        raise LinkError("maintenance marker not written: OSError %s" % (e.args[0] if e.args else "?"))
    try:
        asyncio.create_task(_reset_later(handlers.reset))
    except Exception:
        os.remove(path)
        raise
    return {"reset_ms": RESET_DELAY_MS}


async def _reset_later(reset):
    import asyncio

    await asyncio.sleep(RESET_DELAY_MS / 1000)
    reset()


def journal_reset(handlers, request):
    app = handlers.app
    journal = app.journal
    if journal is None:
        raise LinkError("this board keeps no journal")
    now = handlers.now()
    try:
        journal.start_new(app.table, now, journal.journal_id + 1, START_LINK)
        journal.maintain(app.table, now)
    except Exception as e:
        app.journal_error = e
        raise LinkError("journal not started: " + (str(e.args[0]) if e.args else type(e).__name__))
    app.journal_error = None  # a fresh journal takes events again
    handlers.cursor = None
    return {"journal": handlers.journal_state()}
