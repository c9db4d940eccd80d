"""The floor's judgement of whether a table is online: its gateway's
heartbeats against the clock (docs/floor.md, Presence). Pure: the recorder
feeds it what it hears and the time, and publishes the verdicts it returns.

Why not the broker's last will alone: Debian's mosquitto 2.0.11 checks its
clients' keepalives only once every 6 s, in whole seconds
(src/keepalive.c: `last_keepalive_check + 5 < now`, then `now - last_msg_in >
keepalive*3/2`), so a silent gateway's will comes up to ~7 s after 1.5x the
keepalive (8 s for a keepalive of 4, where 1.5x is 6), and no setting changes
that (mosquitto 2.1's ring buffer does). The will is kept: it is what a tool
that knows nothing of the floor reads.

So each gateway publishes a heartbeat every keepalive/2 saying its own word
(`online` while it reaches its board, `offline` while the board is lost) and
its keepalive; a table is online while its last word was `online` and that
word is at most 1.5x the gateway's keepalive old. A silent gateway is
therefore judged offline between 1x and 1.5x its keepalive after it fell
silent (its last beat was 0 to keepalive/2 before), and online again at its
first beat. A gateway's `offline` (its will, a clean stop, the board lost)
counts at once.

What the floor shows (`floor status`, the page) combines the verdict with the
gateway's own retained word as Home Assistant's `availability_mode: all`
does: online only while every word there is says `online`. The verdict makes
offline fast; the will still covers a recorder that is itself gone (its last
verdict stays retained).
"""

HEARTBEAT_FRACTION = 0.5  # a gateway beats every keepalive x this
DEADLINE_FACTOR = 1.5  # a word older than keepalive x this is silence (the MQTT keepalive rule)
DEFAULT_KEEPALIVE_S = 10  # a table heard only through its presence: the gateway's default keepalive


class Judge:
    """Each table's verdict from what its gateway said and when (any monotonic clock)."""

    def __init__(self):
        self._heard = {}  # table -> (when, online, keepalive)
        self._verdicts = {}  # table -> the verdict last returned by changes()

    def heard(self, table, now, online, keepalive=None):
        """The gateway's word: a heartbeat (with its keepalive) or its presence
        (`online` on connecting; `offline`: will, clean stop, board lost)."""
        if keepalive is None:
            keepalive = self._heard.get(table, (0, False, DEFAULT_KEEPALIVE_S))[2]
        self._heard[table] = (now, bool(online), keepalive)

    def online(self, table, now):
        """True, False, or None for a table never heard."""
        if table not in self._heard:
            return None
        when, online, keepalive = self._heard[table]
        return online and now - when <= DEADLINE_FACTOR * keepalive

    def deadline(self, table):
        """When the table's last word turns to silence (None: never heard)."""
        if table not in self._heard:
            return None
        when, _, keepalive = self._heard[table]
        return when + DEADLINE_FACTOR * keepalive

    def changes(self, now):
        """[(table, online)] whose verdict changed since the last call (every table at first)."""
        out = []
        for table in sorted(self._heard):
            verdict = self.online(table, now)
            if self._verdicts.get(table) != verdict:
                self._verdicts[table] = verdict
                out.append((table, verdict))
        return out

    def forget_said(self):
        """Say every verdict again at the next changes() (the broker may have lost the retained ones)."""
        self._verdicts.clear()


def shown(verdict, gateway):
    """(presence, judged_by) the floor shows for a table from the recorder's
    verdict and the gateway's retained word (each "online", "offline" or None):
    `offline` if either says so, else `online` if either does, else None;
    judged_by "recorder" where there is a verdict, "gateway" where only the
    gateway's word, None where neither."""
    words = [w for w in (verdict, gateway) if w is not None]
    if not words:
        return None, None
    presence = "offline" if "offline" in words else "online"
    return presence, "recorder" if verdict is not None else "gateway"
