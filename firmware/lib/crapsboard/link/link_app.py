# The serial link's command handlers, built around the running app (docs/link.md).
#
# `build(app, ...)` fills every slot of link.SPECS from the app, its table, its
# journal and the power-up diagnostics; the hardware (reset, board id, clock)
# is passed in, so the simulator and the tests build the same handlers on
# their own board. `board_link` is the board's: main.py has LinkTask load it
# (link_task.on_demand), so none of this is in memory until a host speaks, and it is
# forgotten again after a silence (crapsboard/link/link_task.py).
#
# Only the dispatch and the state that must last between requests live here;
# each command's code is in its own module (link_info: hello, status,
# selftest; link_events: events and pushed events; link_config: config_get,
# config_set; link_admin: time, maintenance, journal_reset; link_verified:
# verified; link_progressive: progressive; link_received: received).
from crapsboard.base.link_key import KEY_FILE, read_key  # noqa: F401 (link_app.read_key, where it was first)
from crapsboard.link import link_admin, link_config, link_events, link_info
from crapsboard.link.link import Link, LinkError

COUNTER_FILE = "link_ctr"


def _verified(handlers, request):
    # Loaded when a HOLD is first cleared (then kept with the link): a board
    # whose host only reads keeps it off the heap (docs/link.md, Memory).
    from crapsboard.link import link_verified

    return link_verified.verified(handlers, request)


def _progressive(handlers, request):
    # Loaded with the floor's first meter (a board with no floor never loads it).
    from crapsboard.link import link_progressive

    return link_progressive.progressive(handlers, request)


def _received(handlers, request):
    # Loaded with the floor's first receipt (a board off the floor never loads it).
    from crapsboard.link import link_received

    return link_received.received(handlers, request)


# command -> function(handlers, request), which gives the reply.
_COMMANDS = {
    "hello": link_info.hello,
    "status": link_info.status,
    "selftest": link_info.selftest,
    "events": link_events.events,
    "config_get": link_config.config_get,
    "config_set": link_config.config_set,
    "time": link_admin.set_time,
    "maintenance": link_admin.maintenance,
    "journal_reset": link_admin.journal_reset,
    "verified": _verified,
    "progressive": _progressive,
    "received": _received,
}


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
        self.link: Link | None = None
        self.keep = {}  # outlives a forgotten link (LinkTask.keep): "unix", the clock set
        self.cursor = None  # where the last events page ended (link_events)

    def path(self, name):
        return self.files + "/" + name if self.files else name

    def now(self):
        return self.app.board.ticks_ms()

    def table(self):
        handlers = {"subscribe": self.subscribe}
        for name in _COMMANDS:
            handlers[name] = self._bound(_COMMANDS[name])
        return handlers

    def _bound(self, command):
        def handler(request):
            return command(self, request)

        return handler

    # ---- state shared by the commands -------------------------------------------

    def clock(self):
        """The wall clock (unix seconds) if a host has set it since boot, else None."""
        unix = self.keep.get("unix")
        if unix is None:
            return None
        from crapsboard.base import ticks

        return unix[0] + ticks.diff(self.now(), unix[1]) // 1000

    def journal_state(self):
        app = self.app
        journal = app.journal
        if journal is None:
            return None
        segments = journal.segments()
        staged = journal.staged
        first = segments[0][0] if segments else journal.seq - staged + 1
        error = app.journal_error
        return {
            "id": journal.journal_id,
            "seq": journal.seq,
            "first": first if journal.seq else 0,
            "fault": (str(error.args[0]) if error.args else type(error).__name__) if error is not None else None,
            "received": journal.received if journal.on_floor else None,  # the floor's receipt (link_received)
        }

    # ---- subscribe: the journal pushes each record it appends ----------------------

    def subscribe(self, request):
        journal = self.app.journal
        on = request["on"]
        if journal is None:
            raise LinkError("this board keeps no journal: nothing to subscribe to")
        journal.on_append = self._pushed if on else None
        if self.link is not None:
            self.link.hold = on  # the task keeps a subscribed link loaded
        return {"on": on}

    def _pushed(self, record, prev_hash):
        # Called by Journal.append once the record is durable. Whatever goes
        # wrong here must not reach the app's scan.
        try:
            name, fields = link_events.pushed(record, prev_hash)
            if self.task is not None:
                self.task.push(name, fields)
        except Exception:
            pass


def build(app, diag, board_id, reset, key=None, store=None, files=""):
    """(Link, Handlers) for `app`; `key` and `store` as link.Link takes them."""
    handlers = Handlers(app, diag, board_id, reset, files)
    link = Link(handlers.table(), key, store)
    handlers.link = link
    return link, handlers


def board_link(app, diag, board_id, reset, task):
    """The board's Link, built when a host first speaks (LinkTask's `load`):
    the key and the counter from their files. `board_id`: machine.unique_id()."""
    from binascii import hexlify

    from crapsboard.link.link import CounterFile

    link, handlers = build(app, diag, hexlify(board_id).decode(), reset, read_key(KEY_FILE), CounterFile(COUNTER_FILE))
    handlers.task = task
    handlers.keep = task.keep
    return link
