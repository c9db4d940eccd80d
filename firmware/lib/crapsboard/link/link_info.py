# The link's read-only board commands (docs/link.md): hello, status, selftest.
#
# Dispatched by link_app.py.
# Functions take the link_app.Handlers (the app, diag, files) and the request.
import gc

from crapsboard.link.link_json import Raw
from crapsboard.table import entry as en
from crapsboard.table.app import KEYSWITCH_BIT

FIRMWARE_FILE = "firmware.json"
_KEYS_AND_BUTTONS = 0x7FFFF  # app._KEYS_MASK: keypad keys, undo, end hand, lamp test


def firmware(handlers):
    """(version, hash) from the deploy manifest, or (None, None) without one."""
    import json

    try:
        with open(handlers.path(FIRMWARE_FILE)) as f:
            manifest = json.loads(f.read())
        return str(manifest["version"]), str(manifest["hash"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


def measured():
    """The hash of the files the board runs, measured at power-up (main.py,
    crapsboard/boot/measure.py); None when this boot did not measure them."""
    from crapsboard.boot import startup

    return startup.measured


def hello(handlers, request):
    version, digest = firmware(handlers)
    diag = handlers.diag
    gc.collect()
    mem_free = getattr(gc, "mem_free", None)
    return {
        "firmware": version,
        "firmware_hash": measured(),
        "firmware_declared": digest,
        "board": handlers.board_id,
        "uptime_ms": handlers.now(),
        "reset_cause": diag.get("cause"),
        "boot_count": diag.get("boots"),
        "last_error": diag.get("error"),
        "free_heap": mem_free() if mem_free else None,
        "journal": handlers.journal_state(),
        "head": signed_head(handlers),
        "unix": handlers.clock(),
    }


def signed_head(handlers):
    """The journal's newest record and chain hash, signed with the journal key
    (docs/link.md, hello): null without a keyed journal."""
    from binascii import hexlify

    from crapsboard.journal import journal_read as jread

    journal = handlers.app.journal
    if journal is None or journal.mac is None or not journal.seq:
        return None
    chain = hexlify(journal.hash).decode()
    text = jread.signed_head_text(handlers.board_id, journal.journal_id, journal.seq, chain)
    return {
        "journal": journal.journal_id,
        "seq": journal.seq,
        "hash": chain,
        "tag": hexlify(journal.mac.digest(text)).decode(),
    }


def _mask_list(mask):
    return [n for n in range(2, 13) if mask & (1 << n)]


def _or_null(n):
    return n if n else None


def lamp_json(rgb, blink, alt):
    """A lit lamp in `status`: the text encode() gives {"on", "color", "blink"
    [, "alt"]} (keys sorted), made in one step. encode() allocates ~2.5 KB
    per lamp: ~120 KB for a status during the lamp test (docs/board.md, Memory)."""
    if blink and alt:
        return '{"alt": "#%06x", "blink": true, "color": "#%06x", "on": true}' % (alt, rgb)
    return '{"blink": %s, "color": "#%06x", "on": true}' % ("true" if blink else "false", rgb)


def status(handlers, request):
    from crapsboard.link import link_config
    from crapsboard.rules.paytables import WAGER_COUNT, WAGER_NAMES
    from crapsboard.table.lamps import LAMP_COUNT
    from crapsboard.table.layout import LAMP_NAMES

    app = handlers.app
    now = handlers.now()
    table = app.table
    entry = app.entry
    marks = {}
    for w in range(WAGER_COUNT):
        marks[WAGER_NAMES[w]] = _mask_list(table.marks(w))
    lamps = {}
    for i in range(LAMP_COUNT):
        rgb, blink, alt = app.lamps.lamp(i)
        if rgb:
            lamps[LAMP_NAMES[i]] = Raw(lamp_json(rgb, blink, alt))  # small pieces: see link_events._raw
    config = link_config.as_json(table.config)
    reply = {
        "t": now,
        "status": en.STATUS_NAMES[app.status(now)],
        "pending": _or_null(entry.first),
        "supervisor": entry.authorised(now),
        "hand": {
            "shooter": table.shooter,
            "point": _or_null(table.point),
            "fire_points": _mask_list(table.fire_points),
            "rolls": table.rolls,
        },
        "state": {
            "rolls": table.rolls,
            "shooter": table.shooter,
            "point": _or_null(table.point),
            "fire_points": _mask_list(table.fire_points),
            "marks": marks,
        },
        "lamps": lamps,
        "config": config,
    }
    fault = app.lamps.feed_fault
    if fault:  # only then: the reply's bytes are otherwise as before
        reply["lamp_feeds"] = lamp_feeds(app.lamps, LAMP_NAMES)
    prog = app.progressive
    if prog.count[0] or prog.count[1] or prog.heard[0] is not None or prog.heard[1] is not None:
        from crapsboard.link import link_progressive  # only with a floor or wagers: as before otherwise

        reply["progressive"] = link_progressive.status(prog, table, now)
    return reply


def lamp_feeds(lamps, names):
    """A lamp-feed fault: the feeds latched off ("F1" is the chain's first) and
    the lamps the board means to light on them but cannot."""
    dead = lamps.feed_fault
    return {
        "faulted": ["F" + str(f + 1) for f in range(lamps.feed_count) if (dead >> f) & 1],
        "unlit": [names[i] for i in range(len(names)) if lamps.unlit(i)],
    }


def input_names(layout):
    """Name of each input bit: keypad keys by label, then the buttons, then the
    keyswitch's normally-closed contact."""
    from crapsboard.table.layout import BUTTONS

    return ["key." + label for label in layout.labels] + list(BUTTONS) + ["supervisor_key.nc"]


def _names(names, bits):
    return [names[i] for i in range(len(names)) if bits & (1 << i)]


def selftest(handlers, request):
    """Start the lamp walk; name the keys and buttons down now (held), the
    keyswitch's position, and the inputs whose reading has not settled into
    the debounced state (chattering: a contact that keeps bouncing never
    settles; a clean press is unsettled for one debounce window only, so a
    repeated selftest tells the two apart)."""
    from crapsboard.table.lamps import LAMP_TEST_MS

    app = handlers.app
    app.lamps.lamp_test(handlers.now())
    names = input_names(app.layout)
    debouncer = app.debouncer
    return {
        "lamp_test_ms": LAMP_TEST_MS,
        "held": _names(names, debouncer.stable & _KEYS_AND_BUTTONS),
        "keyswitch": "fault" if app.keyswitch_fault else "on" if debouncer.stable & KEYSWITCH_BIT else "off",
        "chattering": _names(names, debouncer._raw ^ debouncer.stable),
    }
