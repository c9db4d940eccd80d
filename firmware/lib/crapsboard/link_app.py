# The serial link's command handlers, built around the running app (docs/link.md).
#
# `build(app, ...)` fills every slot of link.SPECS from the app, its table, its
# journal and the power-up diagnostics; the hardware (reset, board id, clock)
# is passed in, so the simulator and the tests build the same handlers on
# their own board. `serve(app, task)` runs the link task beside the app's.
#
# Resident cost is kept small: the rarely used parts load on their first use
# (link_config for config_get/config_set, link_events for events and pushed
# events; link_auth's HMAC for a signed request only).
import asyncio
import gc

from micropython import const

from crapsboard import entry as en
from crapsboard.app import KEYSWITCH_BIT
from crapsboard.link import Link, LinkError
from crapsboard.link_json import Raw, encode

KEY_FILE = "link_key"
COUNTER_FILE = "link_ctr"
FIRMWARE_FILE = "firmware.json"
MAINTENANCE_FILE = "maintenance"
START_LINK = const(2)  # JOURNAL_START's arg: a journal started over the link (0 first use, 1 supervisor)
TIME = const(21)  # journal_record.TIME: the wall clock set; payload u64 unix seconds
_KEYS_AND_BUTTONS = const(0x7FFFF)  # app._KEYS_MASK: keypad keys, undo, end hand, lamp test
RESET_DELAY_MS = const(200)  # the maintenance reply leaves the port before the reset


def read_key(path=KEY_FILE):
    """The board's link key (bytes) from its file: 64 lowercase hex characters.
    Missing or malformed: None, so signed requests are refused with "no key"."""
    import binascii

    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    if len(text) != 64 or text != text.lower():
        return None
    try:
        return binascii.unhexlify(text)
    except ValueError:
        return None


def input_names(layout):
    """Name of each input bit: keypad keys by label, then the buttons, then the
    keyswitch's normally-closed contact."""
    from crapsboard.layout import BUTTONS

    return ["key." + label for label in layout.labels] + list(BUTTONS) + ["supervisor_key.nc"]


def _names(names, bits):
    return [names[i] for i in range(len(names)) if bits & (1 << i)]


def _mask_list(mask):
    return [n for n in range(2, 13) if mask & (1 << n)]


def _or_null(n):
    return n if n else None


class Handlers:
    def __init__(self, app, diag, board_id, reset, files=""):
        """`diag`: startup's diagnostics (boots, cause, error); `board_id`: its
        text; `reset()`: restart the board (machine.reset); `files`: the
        directory holding the board's files ("" = the working directory)."""
        self.app = app
        self.diag = diag
        self.board_id = board_id
        self.reset = reset
        self.files = files
        self.task = None  # the LinkTask, for pushed events
        self.unix = None  # (unix seconds, board ms) of the last `time`
        self.cursor = None  # where the last events page ended (link_events)
        self._firmware = None

    def path(self, name):
        return self.files + "/" + name if self.files else name

    def now(self):
        return self.app.board.ticks_ms()

    def table(self):
        return {
            "hello": self.hello,
            "status": self.status,
            "events": self.events,
            "subscribe": self.subscribe,
            "config_get": self.config_get,
            "config_set": self.config_set,
            "selftest": self.selftest,
            "time": self.time,
            "maintenance": self.maintenance,
            "journal_reset": self.journal_reset,
        }

    # ---- read only -------------------------------------------------------------

    def firmware(self):
        """(version, hash) from the deploy manifest, or (None, None) without one."""
        if self._firmware is None:
            import json

            try:
                with open(self.path(FIRMWARE_FILE)) as f:
                    manifest = json.loads(f.read())
                self._firmware = (str(manifest["version"]), str(manifest["hash"]))
            except (OSError, ValueError, KeyError, TypeError):
                self._firmware = (None, None)
        return self._firmware

    def hello(self, request):
        version, digest = self.firmware()
        diag = self.diag
        mem_free = getattr(gc, "mem_free", None)
        return {
            "firmware": version,
            "firmware_hash": digest,
            "board": self.board_id,
            "uptime_ms": self.now(),
            "reset_cause": diag.get("cause"),
            "boot_count": diag.get("boots"),
            "last_error": diag.get("error"),
            "free_heap": mem_free() if mem_free else None,
            "journal": self.journal_state(),
            "unix": self.clock(),
        }

    def clock(self):
        """The wall clock (unix seconds) if a host has set it since boot, else None."""
        if self.unix is None:
            return None
        from crapsboard import ticks

        return self.unix[0] + ticks.diff(self.now(), self.unix[1]) // 1000

    def journal_state(self):
        app = self.app
        journal = app.journal
        if journal is None:
            return None
        segments = journal.segments()
        staged = len(journal._staged)
        first = segments[0][0] if segments else journal.seq - staged + 1
        error = app.journal_error
        return {
            "id": journal.journal_id,
            "seq": journal.seq,
            "first": first if journal.seq else 0,
            "fault": (str(error.args[0]) if error.args else type(error).__name__) if error is not None else None,
        }

    def status(self, request):
        app = self.app
        now = self.now()
        table = app.table
        entry = app.entry
        marks = {}
        from crapsboard.paytables import WAGER_COUNT, WAGER_NAMES

        for w in range(WAGER_COUNT):
            marks[WAGER_NAMES[w]] = _mask_list(table.marks(w))
        lamps = {}
        from crapsboard.lamps import LAMP_COUNT
        from crapsboard.layout import LAMP_NAMES

        for i in range(LAMP_COUNT):
            rgb, blink, alt = app.lamps.lamp(i)
            if rgb:
                lamp = {"on": True, "color": "#%06x" % rgb, "blink": bool(blink)}
                if blink and alt:
                    lamp["alt"] = "#%06x" % alt
                lamps[LAMP_NAMES[i]] = Raw(encode(lamp))  # small pieces: see link_events._raw
        return {
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
            "config": self._config().as_json(table.config),
        }

    def events(self, request):
        from crapsboard import link_events

        return link_events.page(self, request["since"], request.get("limit", link_events.PAGE_MAX))

    def subscribe(self, request):
        journal = self.app.journal
        on = request["on"]
        if journal is None:
            raise LinkError("this board keeps no journal: nothing to subscribe to")
        journal.on_append = self._pushed if on else None
        return {"on": on}

    def _pushed(self, record, prev_hash):
        # Called by Journal.append once the record is durable. Whatever goes
        # wrong here must not reach the app's scan.
        try:
            from crapsboard import link_events

            name, fields = link_events.pushed(record, prev_hash)
            if self.task is not None:
                self.task.push(name, fields)
        except Exception:
            pass

    def config_get(self, request):
        return {"config": self._config().as_json(self.app.table.config)}

    def _config(self):
        from crapsboard import link_config

        return link_config

    # ---- self test -------------------------------------------------------------

    def selftest(self, request):
        """Start the lamp walk; name the keys and buttons down now (held), the
        keyswitch's position, and the inputs whose
        reading has not settled into the debounced state (chattering: a contact
        that keeps bouncing never settles; a clean press is unsettled for one
        debounce window only, so a repeated selftest tells the two apart)."""
        from crapsboard.lamps import LAMP_TEST_MS

        app = self.app
        app.lamps.lamp_test(self.now())
        names = input_names(app.layout)
        debouncer = app.debouncer
        return {
            "lamp_test_ms": LAMP_TEST_MS,
            "held": _names(names, debouncer.stable & _KEYS_AND_BUTTONS),
            "keyswitch": "fault" if app.keyswitch_fault else "on" if debouncer.stable & KEYSWITCH_BIT else "off",
            "chattering": _names(names, debouncer._raw ^ debouncer.stable),
        }

    # ---- signed ---------------------------------------------------------------

    def config_set(self, request):
        return self._config().config_set(self, request["config"])

    def time(self, request):
        unix = request["unix"]
        if not 0 < unix <= 0xFFFFFFFF:
            raise LinkError("unix must be seconds since 1970, 1 to 4294967295")
        app = self.app
        now = self.now()
        if app.journal is not None and not app.record(TIME, 0, now, unix.to_bytes(8, "little")):
            raise LinkError("journal could not record it: clock not set")
        self.unix = (unix, now)
        return {"unix": unix, "t": now, "journal": self.journal_state()}

    def maintenance(self, request):
        import os

        try:
            with open(self.path(MAINTENANCE_FILE), "w") as f:
                f.write("once")
        except OSError as e:
            raise LinkError("maintenance marker not written: OSError %s" % (e.args[0] if e.args else ""))
        try:
            asyncio.create_task(self._reset_later())
        except Exception:
            os.remove(self.path(MAINTENANCE_FILE))
            raise
        return {"reset_ms": RESET_DELAY_MS}

    async def _reset_later(self):
        from crapsboard.link_task import sleep_ms

        await sleep_ms(RESET_DELAY_MS)
        self.reset()

    def journal_reset(self, request):
        app = self.app
        journal = app.journal
        if journal is None:
            raise LinkError("this board keeps no journal")
        now = self.now()
        try:
            journal.start_new(app.table, now, journal.journal_id + 1, START_LINK)
            journal.maintain(app.table, now)
        except Exception as e:
            app.journal_error = e
            raise LinkError("journal not started: " + (str(e.args[0]) if e.args else type(e).__name__))
        app.journal_error = None  # a fresh journal takes events again
        self.cursor = None
        return {"journal": self.journal_state()}


def build(app, diag, board_id, reset, key=None, store=None, files=""):
    """(Link, Handlers) for `app`; `key` and `store` as link.Link takes them."""
    handlers = Handlers(app, diag, board_id, reset, files)
    return Link(handlers.table(), key, store), handlers


def start(app, diag, board_id, reset, files=""):
    """The board's link: key and counter from their files, a LinkTask on
    standard input and output. `board_id`: machine.unique_id() (bytes: sent as hex)."""
    from binascii import hexlify

    from crapsboard.link_auth import CounterFile
    from crapsboard.link_task import LinkTask

    if not isinstance(board_id, str):
        board_id = hexlify(board_id).decode()

    key = read_key(KEY_FILE if not files else files + "/" + KEY_FILE)
    link, handlers = build(
        app, diag, board_id, reset, key, CounterFile(COUNTER_FILE if not files else files + "/" + COUNTER_FILE), files
    )
    task = LinkTask(link)
    handlers.task = task
    return task


async def serve(app, task):
    """The app's tasks and the link's, until the app stops. A link that ends
    (end of input) leaves the app running; 0x03 raises KeyboardInterrupt."""
    asyncio.create_task(task.run())
    await app.run()
