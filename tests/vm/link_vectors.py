# The link core fed the tests' request vectors, on either runtime.
#
# A small board stands behind the signed commands: a clock, a configuration
# and a maintenance flag, so a test can see whether a request changed anything.
# CPython imports `session()`; the VM reads one hex-encoded chunk per line on
# stdin ("-" starts a new session) and prints, per chunk, the reply bytes
# (hex) and the board's state.
import binascii
import sys

from crapsboard.link import link_json as lj
from crapsboard.link.link import CounterMemory, Link, LinkError, hello_handler

KEY = b"table 7 key, provisioned at deploy"
EVENTS = [{"seq": n, "kind": "roll", "d1": 1 + n % 6, "d2": 1 + n * 5 % 6} for n in range(1, 31)]
PAGE_MAX = 8


class Board:
    def __init__(self):
        self.clock = 0
        self.config = {"fire": "3", "bonus": "A"}
        self.maintenance = False
        self.subscribed = False
        self.store = CounterMemory()

    def state(self):
        return lj.encode(
            {
                "clock": self.clock,
                "config": self.config,
                "ctr": self.store.value,
                "maintenance": self.maintenance,
                "subscribed": self.subscribed,
            }
        )

    def set_time(self, request):
        self.clock = request["unix"]
        return {"unix": self.clock}

    def config_set(self, request):
        update = request["config"]
        for key in update:
            if key not in self.config:
                raise LinkError("config: unknown key " + key[:32])
            if type(update[key]) is not str:
                raise LinkError("config: " + key + " must be a string")
        config = dict(self.config)
        config.update(update)
        self.config = config
        return {"config": config}

    def events(self, request):
        since = request["since"]
        limit = request.get("limit", PAGE_MAX)
        if since < 0 or not 1 <= limit <= PAGE_MAX:
            raise LinkError("events: since >= 0 and limit 1..%d" % PAGE_MAX)
        page = [e for e in EVENTS if e["seq"] > since][:limit]
        last = page[-1]["seq"] if page else since
        return {"events": page, "next": last, "more": last < EVENTS[-1]["seq"]}

    def subscribe(self, request):
        self.subscribed = request["on"]
        return {"on": self.subscribed}

    def enter_maintenance(self, request):
        self.maintenance = True
        return None


def session():
    """(link, board): the link with every slot a test needs filled."""
    board = Board()
    handlers = {
        "hello": hello_handler("1.4.0", "table-7", lambda: 61000, lambda: {"boot_count": 3}),
        "status": lambda request: {"clock": board.clock, "config": board.config},
        "events": board.events,
        "subscribe": board.subscribe,
        "config_get": lambda request: {"config": board.config},
        "config_set": board.config_set,
        "time": board.set_time,
        "maintenance": board.enter_maintenance,
    }
    return Link(handlers, KEY, board.store), board


if __name__ == "__main__":
    link, board = session()
    for line in sys.stdin:
        line = line.strip()
        if line == "-":
            link, board = session()
        elif line:
            out = link.feed(binascii.unhexlify(line))
            print(binascii.hexlify(out).decode() + " " + board.state())
