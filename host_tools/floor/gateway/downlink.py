"""The gateway's downlink (gateway.py's Gateway mixes it in): a request the
page published on `table/<t>/downlink`, carried to the board over the link
exactly as signed, and the board's answer published in the table's retained
`state` (`downlinks`), where the page shows it (docs/floor.md).

    page --table/<t>/downlink (QoS 1)--> gateway --link--> board
    board's reply --> gateway's state {"downlinks": [...]} --> page

The gateway holds no key and has no part in the signature: it forwards the
request as it came, so a request not signed with the board's key is refused
by the board (`bad tag`), a replayed one too (the counter). The broker's ACL
lets only the page's account (and the progressive controller's) publish
there. Only the commands in DOWNLINK_COMMANDS travel down: the floor's
downlink never carries a `maintenance` or a `journal_reset`, whoever signed it.
"""

import threading
import time

from host_tools import EXIT_NO_BOARD, HostToolError
from host_tools.floor.base import topics
from host_tools.floor.gateway.board import log

DOWNLINK_COMMANDS = ("verified",)
QUEUE_MAX = 32  # requests waiting for the board (it is away): the oldest go first
KEPT = 8  # outcomes kept in the state, newest last


class DownlinkSide:
    """Needs from its host class: table, topic_downlink, link, state_dirty."""

    def _downlink_init(self):
        self.downlink_queue = []
        self.downlink_lock = threading.Lock()
        self.downlink_outcomes = []

    def _downlink_message(self, payload):  # paho's thread
        try:
            obj = topics.decode(payload)
            request = obj["request"]
            if not isinstance(request, dict):
                raise TypeError("request is not an object")
        except (ValueError, KeyError, TypeError) as e:
            self._downlink_outcome({}, False, error="the gateway could not read the downlink message: %s" % e)
            return
        with self.downlink_lock:
            self.downlink_queue.append(request)
            del self.downlink_queue[:-QUEUE_MAX]

    def _forward_downlinks(self):
        """Each request waiting, sent to the board as it came; its reply into the state.
        HostToolError (no board) leaves the request waiting for the board's return."""
        while True:
            with self.downlink_lock:
                if not self.downlink_queue:
                    return
                request = self.downlink_queue[0]
            if request.get("cmd") not in DOWNLINK_COMMANDS:
                reply = {"ok": False, "error": "not a downlink command: %s" % request.get("cmd")}
            else:
                try:
                    reply = self.link.forward(request)
                except HostToolError as e:
                    if e.code == EXIT_NO_BOARD:
                        raise  # not answered: it waits for the board's return
                    reply = {"ok": False, "error": str(e)}
            with self.downlink_lock:
                self.downlink_queue.pop(0)  # answered: never sent twice
            fields = {k: v for k, v in reply.items() if k not in ("id", "ok")}
            self._downlink_outcome(request, bool(reply.get("ok")), **fields)
            if request.get("cmd") in DOWNLINK_COMMANDS:
                self.link.hello()  # the board's counter moved (a good tag uses it, refused or not): the state's ctr

    def _downlink_outcome(self, request, ok, **fields):
        outcome = {
            "cmd": request.get("cmd"),
            "alert": request.get("alert"),
            "seq": request.get("seq"),
            "ctr": request.get("ctr"),
            "ok": ok,
            "at": int(time.time()),
        }
        if ok:
            outcome["record"] = fields.get("seq")  # the board's record of it (verified: kind 22)
        else:
            outcome["error"] = str(fields.get("error", "no reason given"))
        log(
            self.table,
            "downlink %s %s: %s"
            % (outcome["cmd"], outcome["alert"], "record %s" % outcome.get("record") if ok else outcome["error"]),
        )
        with self.downlink_lock:
            self.downlink_outcomes = (self.downlink_outcomes + [outcome])[-KEPT:]
        self.state_dirty = True
