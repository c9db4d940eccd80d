# The link's signed board commands (docs/link.md): time, maintenance, journal_reset.
#
# Dispatched by link_app.py; link.Link has checked the tag and used up the counter before these run.
from micropython import const

from crapsboard.link.link import LinkError

MAINTENANCE_FILE = "maintenance"
START_LINK = const(2)  # JOURNAL_START's arg: a journal started over the link (0 first use, 1 supervisor)
TIME = const(21)  # journal_record.TIME: the wall clock set; payload u64 unix seconds
RESET_DELAY_MS = const(200)  # the maintenance reply leaves the port before the reset
# A clock set is refused (and journaled as refused) outside these years or
# more than TIME_BACK_S before the clock the board already knows, and all the
# sets since power-up together move it back at most TIME_BACK_S, as do all the
# sets within a day of the journal clock (counted from the journal's time
# records, journal_codes.within_day: a power cycle does not renew it): a
# signed `time` cannot make the journal's wall times run backwards or say 1970/2106.
UNIX_MIN = 1704067200  # 2024-01-01 00:00 UTC
UNIX_MAX = 4102444800  # 2100-01-01 00:00 UTC
TIME_BACK_S = const(60)
TIME_SET = const(0)  # the time record's arg: accepted
TIME_OUT_OF_RANGE = const(1)  # refused: outside UNIX_MIN..UNIX_MAX
TIME_BACKWARDS = const(2)  # refused: more than TIME_BACK_S before the board's clock


def board_clock(handlers, now):
    """The wall clock the board knows (unix seconds) or None: the last clock
    set, this boot or in the journal (Journal.wall, restored from its last
    time record), moved on by the journal clock since -- which leaves out the
    time the board was off, so it is never ahead of the true time."""
    journal = handlers.app.journal
    if journal is not None and journal.wall is not None:
        from crapsboard.base import ticks

        unix, t = journal.wall
        clock = journal.clock
        if journal._ticks is not None:
            clock += (now - journal._ticks) & ticks.MASK
        return unix + ((clock - t) & 0xFFFFFFFF) // 1000
    return handlers.clock()


def _journal_clock(journal, now):
    """The journal clock at tick `now`: the t the next record gets."""
    from crapsboard.base import ticks

    if journal._ticks is None:
        return journal.clock
    return (journal.clock + ((now - journal._ticks) & ticks.MASK)) & 0xFFFFFFFF


def set_time(handlers, request):
    unix = request["unix"]
    app = handlers.app
    journal = app.journal
    now = handlers.now()
    known = board_clock(handlers, now)
    back = known - unix if known is not None and unix < known else 0
    used = handlers.keep.get("back", 0)  # seconds set back since power-up: all of them count
    day = 0  # seconds set back within the last day of the journal clock, this boot's and before
    if journal is not None:
        from crapsboard.journal.journal_codes import within_day

        journal.backs = within_day(journal.backs, _journal_clock(journal, now))
        for b in journal.backs:
            day += b[1]
    refusal = None
    if not UNIX_MIN <= unix <= UNIX_MAX:
        verdict = TIME_OUT_OF_RANGE
        refusal = "time refused: %d is outside %d..%d (2024 to 2100)" % (unix, UNIX_MIN, UNIX_MAX)
    elif back > TIME_BACK_S - max(used, day):
        verdict = TIME_BACKWARDS
        spent = ""
        if used or day:
            spent = " since power-up, %d s used" % used if used >= day else " in a day, %d s used" % day
        refusal = "time refused: %d is %d s before the board's clock %d (at most %d s back%s)" % (
            unix,
            back,
            known,
            TIME_BACK_S,
            spent,
        )
    else:
        verdict = TIME_SET
    # Journaled either way: a refused attempt is evidence too.
    payload = (unix if 0 <= unix < 1 << 64 else 0).to_bytes(8, "little")
    from_journal = journal is not None and journal.wall is not None  # what the mount counts again
    recorded = journal is not None and app.record(TIME, verdict, now, payload)
    if refusal is not None:
        raise LinkError(refusal + ("; journaled" if recorded else ""))
    if journal is not None and not recorded:
        raise LinkError("journal could not record it: clock not set")
    handlers.keep["unix"] = (unix, now)
    if back:
        handlers.keep["back"] = used + back
    if journal is not None:
        if back and from_journal:
            journal.backs.append((journal.clock, back))
        journal.wall = (unix, journal.clock)
    t = journal.clock if journal is not None else now  # the record's t: the journal clock
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


DOWNLOADED = "downloaded"  # in a journal's directory: a host downloaded and verified it up to its end


def journal_reset(handlers, request):
    """A new journal, only once a host has downloaded and verified the whole
    current one (it sends the journal id, its last record and chain head it
    verified), the floor's recorder has received all of it (its receipt),
    and the journal kept before it (journal.old) was downloaded too: no
    journal is ever dropped unread, nor before the floor holds it."""
    import os
    from binascii import hexlify

    from crapsboard.base import files

    app = handlers.app
    journal = app.journal
    if journal is None:
        raise LinkError("this board keeps no journal")
    old = journal.dir + ".old"
    if files.exists(old) and not files.exists(old + "/" + DOWNLOADED):
        raise LinkError(
            "journal_reset refused: journal.old, an earlier journal, was never downloaded over the link:"
            " image the flash (docs/journal.md), then remove it in maintenance"
        )
    head = hexlify(journal.hash).decode()
    if (request["journal"], request["seq"], request["head"]) != (journal.journal_id, journal.seq, head):
        raise LinkError(
            "journal_reset refused: journal %d is at record %d, chain head %s; download and verify it up to there"
            % (journal.journal_id, journal.seq, head)
        )
    from crapsboard.link.link_auth import receipt_ok  # loaded with the signed request already

    key = handlers.link.key if handlers.link is not None else None
    if not receipt_ok(key, handlers.board_id, journal.journal_id, journal.seq, head, request["receipt"]):
        raise LinkError(
            "journal_reset refused: no recorder's receipt for journal %d up to record %d: the floor has not"
            " received every record" % (journal.journal_id, journal.seq)
        )
    now = handlers.now()
    try:
        with open(journal.dir + "/" + DOWNLOADED, "w") as f:
            f.write("%d %d %s" % (journal.journal_id, journal.seq, head))
        journal.start_new(app.table, now, journal.journal_id + 1, START_LINK)
        journal.maintain(app.table, now)
    except Exception as e:
        try:  # still in the journal in force (not renamed): it will grow, so it is no proof
            os.remove(journal.dir + "/" + DOWNLOADED)
        except OSError:
            pass
        app.journal_error = e
        raise LinkError("journal not started: " + (str(e.args[0]) if e.args else type(e).__name__))
    app.journal_error = None  # a fresh journal takes events again
    handlers.cursor = None
    return {"journal": handlers.journal_state()}
