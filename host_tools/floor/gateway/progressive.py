"""The gateway's progressive side: the floor's meters down to the board
(docs/progressive.md, "What the board's side must do next", 3 and 4).

    progressive/<game>/meter, progressive/presence --> gateway --signed `progressive`--> board

It reads each linked game's retained meter and the controller's presence,
and sends the board a `progressive` request per game (game, state, amount,
at, the meter's pay rule and, closed, why) signed with the table's key like
`time`: on each meter it reads and every FORWARD_S. It says `closed` at once when the controller's presence says
`offline`, when its own broker connection is lost, when a meter is older
than STALE_S (a silent controller), or when the meter lists this table among
its `closed_tables` (its board plays another paytable than the meter's); the board closes by itself 6 s after the
last request whatever happens here.

Mixed into Gateway, which calls _progressive_init, _progressive_message (paho's
thread), _progressive_subscribe (each broker connection) and _forward_progressive
(its loop, with the board up).
"""

import threading
import time

from host_tools import EXIT_NO_BOARD, HostToolError
from host_tools.floor.base import topics
from host_tools.floor.gateway.board import log

GAMES = ("MEA", "FUP")
STATES = ("closed", "open", "locked", "pending")
FORWARD_S = 2.0  # the board hears each game this often (it closes after 6 s without)
STALE_S = 6.0  # a meter older than this (its `at`): the controller is gone
RULES = ("shared", "positional")
WHY_MAX = 60  # the board takes a reason this long at most (link_progressive.WHY_MAX)
# Why the board is told closed, in the board's words (short: its heap keeps them).
WHY_BROKER = "gateway lost the floor's broker"
WHY_REFUSED = "controller failed its self-check"
WHY_LOST = "controller lost"
WHY_SILENT = "controller silent for 6 s"
# The page signs a HOLD clearance with the counter in the gateway's state + 1;
# each `progressive` request here uses the next counter too. The state says the
# board's last + PAGE_CTR_ROOM, so the page's counter stays above the gateway's
# for PAGE_CTR_ROOM requests (~50 s of two games); the board takes a counter at
# most 1000 above its last (link_auth), and the gateway's next request goes on
# above whatever the board took (BoardLink.signed reads the board's counter).
PAGE_CTR_ROOM = 100


class ProgressiveSide:
    def _progressive_init(self):
        root = topics.floor_root(self.floor)
        self.topic_meters = root + "/progressive/+/meter"
        self.topic_prog_presence = root + "/progressive/presence"
        self._meter_topics = {topics.meter(self.floor, g): g for g in GAMES}
        self._prog_lock = threading.Lock()
        self.meters = {}  # game -> (state, amount, at, rule, why closed here) as the controller published it
        self.prog_presence = None  # the controller's: online, offline, or None (not heard)
        self.prog_fresh = threading.Event()  # a meter or presence came: forward now
        self.last_prog = 0.0
        self.prog_said = {}  # game -> the state last sent to the board (for the log)
        self.prog_bare = False  # the board's firmware predates `rule` and `why`: sent without them

    def _progressive_message(self, topic, payload):  # paho's thread
        """True when the message was the progressive's."""
        if topic == self.topic_prog_presence:
            text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
            with self._prog_lock:
                self.prog_presence = text
            self.prog_fresh.set()
            return True
        game = self._meter_topics.get(topic)
        if game is None:
            return False
        try:
            obj = topics.decode(payload)
            wrong = (obj.get("closed_tables") or {}).get(self.table)  # it plays another paytable
            rule = obj.get("pay_rule")
            meter = (
                str(obj["state"]),
                int(obj["amount"]),
                int(obj["at"]),
                rule,
                None if wrong is None else board_words(wrong),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return True  # not a meter: ignored (only the controller's account can write here)
        if meter[0] not in STATES or obj.get("game") != game or (rule is not None and rule not in RULES):
            return True
        with self._prog_lock:
            self.meters[game] = meter
        self.prog_fresh.set()
        return True

    def _progressive_subscribe(self):
        self.mqtt.subscribe(self.topic_meters)
        self.mqtt.subscribe(self.topic_prog_presence)

    def progressive_view(self, now=None):
        """game -> (state, amount, rule, why) as the board is to be told it now:
        `why` the reason it is closed (None while it is not)."""
        now = time.time() if now is None else now
        with self._prog_lock:
            meters = dict(self.meters)
            presence = self.prog_presence
        if not self.mqtt.connected.is_set():
            down = WHY_BROKER
        elif presence == topics.ONLINE:
            down = None
        else:
            down = WHY_REFUSED if presence == "refused" else WHY_LOST  # progressive/messages.REFUSED
        view = {}
        for game, (state, amount, at, rule, wrong) in meters.items():
            why = down or (WHY_SILENT if now - at > STALE_S else wrong)
            view[game] = ("closed", amount, rule, why) if why else (state, amount, rule, None)
        return view

    def _forward_progressive(self):
        """Send each game's state to the board: on news, on a lost broker, every FORWARD_S."""
        lost = not self.mqtt.connected.is_set() and any(s != "closed" for s in self.prog_said.values())
        due = time.monotonic() - self.last_prog >= FORWARD_S
        if not (due or lost or self.prog_fresh.is_set()):
            return
        self.prog_fresh.clear()
        self.last_prog = time.monotonic()
        now = int(time.time())
        for game, (state, amount, rule, why) in sorted(self.progressive_view().items()):
            more = {} if self.prog_bare else {k: v for k, v in (("rule", rule), ("why", why)) if v is not None}
            try:
                try:
                    self.link.signed(
                        "progressive", self.key, role_key=True, game=game, state=state, amount=amount, at=now, **more
                    )
                except HostToolError as e:
                    if not (more and "unexpected argument: " in str(e)):
                        raise
                    # A board deployed before `rule` and `why` refuses them: it still takes the meter.
                    log(self.table, "the board's firmware takes no pay rule or reason: the meter goes without them")
                    self.prog_bare = True
                    self.link.signed(
                        "progressive", self.key, role_key=True, game=game, state=state, amount=amount, at=now
                    )
            except HostToolError as e:
                if e.code == EXIT_NO_BOARD:
                    raise  # the board is gone: the gateway's loop waits for it
                if self.prog_said.get(game) != "refused":
                    log(self.table, "the board refused the %s meter: %s" % (game, e))
                self.prog_said[game] = "refused"
                continue
            if self.prog_said.get(game) != state:
                log(self.table, "progressive %s %s on the board%s" % (game, state, ": " + why if why else ""))
            self.prog_said[game] = state


def board_words(text):
    """The controller's reason a table is closed as the board takes it: printable ASCII, WHY_MAX at most."""
    text = "".join(c for c in str(text) if " " <= c <= "~").strip()
    return (text[: WHY_MAX - 3] + "...") if len(text) > WHY_MAX else (text or "plays another paytable")
