"""The gateway, one per table: the board's journal over the USB link onto the
floor's broker, nothing lost and nothing doubled at the recorder (docs/floor.md).

    board --events/subscribe--> outbox (SQLite) --QoS 1--> broker

It follows the journal from the last record it fetched (the outbox's cursor),
publishes each record at QoS 1 and marks it sent only on the broker's PUBACK,
keeps the table's retained `state` (the board's `status`) and `presence`
(`online`, with `offline` as its last will), and on every connection to the
broker publishes again what the recorder has not recorded (its retained
`recorded`): a broker killed between saves loses nothing for good.

At start it proves the board is this table's: it sets the board's clock with a
`time` request signed with the table's key; a board holding another key
refuses it (exit 1). Start-up faults are fatal (no board: exit 3; the broker
refusing the password: exit 4); later the board unplugged, rebooting or
losing power and the broker going away are waited out.
"""

import signal
import sys
import time

from crapsboard import journal_record as jr
from host_tools import EXIT_FAILED, EXIT_NO_BOARD, HostToolError
from host_tools import sync as sync_mod
from host_tools.floor import topics
from host_tools.floor.mqtt import Client
from host_tools.floor.outbox import Outbox

WINDOW = 200  # records published and not yet acknowledged, at most
RETRY_S = 0.5  # between attempts to reopen a lost board
IDLE_S = 0.25  # wait for a pushed record before asking the board again
RESUBSCRIBE_S = 2.0  # `subscribe` again (a rebooted board forgot it)
RECORDED_WAIT_S = 0.5  # after subscribing, the retained `recorded` arrives within this
STATE_EVERY_S = 1.0  # ask `status` this often when idle: a win's celebration ends without a record


class Stopped(Exception):
    pass


def log(table_id, text):
    print("%s gateway %s: %s" % (time.strftime("%H:%M:%S"), table_id, text), file=sys.stderr, flush=True)


class Gateway:
    def __init__(
        self, port, table_id, floor, broker_url, user, password, outbox_path, key, keepalive=10, link_timeout=3.0
    ):
        topics.check_name("table", table_id)
        self.port, self.table, self.floor = port, table_id, floor
        self.key = key
        self.link_timeout = link_timeout
        self.outbox_path = outbox_path
        self.outbox = None  # opened once the board proved to be this table's: a refusal leaves nothing behind
        self.topic_event = topics.table(floor, table_id, "event")
        self.topic_state = topics.table(floor, table_id, "state")
        self.topic_presence = topics.table(floor, table_id, "presence")
        self.topic_recorded = topics.table(floor, table_id, "recorded")
        self.recorded = None  # (journal, seq) the recorder last said it recorded
        self.recorded_at = 0  # mqtt connection number when it came
        self.mqtt = Client(
            broker_url,
            user,
            password,
            "gateway-%s-%s" % (floor, table_id),
            keepalive,
            will=(self.topic_presence, topics.OFFLINE),
            on_message=self._message,
        )
        self.link = None
        self.hello = None
        self.inflight = {}  # (journal, seq) -> paho MQTTMessageInfo
        self.seen_connection = 0
        self.state_dirty = True
        self.last_state = None
        self.presence = None
        self.board_up = False
        self.last_subscribe = 0.0
        self.last_status = 0.0
        self.short = None  # a board found with fewer records than the floor had of it
        self.hello_fresh = False  # nothing read from the board since its hello
        self.stop = False

    # ---- the broker side ------------------------------------------------------------

    def _message(self, topic, payload, retained):  # paho's thread
        if topic == self.topic_recorded:
            try:
                obj = topics.decode(payload)
                self.recorded = (int(obj["journal"]["id"]), int(obj["seq"]))
            except (ValueError, KeyError, TypeError):
                return

    def _on_broker(self):
        """Each new connection to the broker: subscribe to `recorded`, publish
        again what the recorder lacks, say where the table is."""
        n = self.mqtt.connections
        if n == self.seen_connection:
            return
        self.seen_connection = n
        self.recorded = None
        self.mqtt.subscribe(self.topic_recorded)
        end = time.monotonic() + RECORDED_WAIT_S
        while self.recorded is None and time.monotonic() < end:
            time.sleep(0.02)
        if self.recorded is not None:
            self._check_short()
            again = self.outbox.resend_after(*self.recorded)
            if again:
                log(
                    self.table,
                    "broker connection %d: %d records again after the recorder's %d/%d"
                    % (n, again, self.recorded[0], self.recorded[1]),
                )
        else:
            log(self.table, "broker connection %d" % n)
        self.presence = None  # the broker may have lost the retained ones: say them again
        self.last_state = None
        self.state_dirty = True

    def _publish_outbox(self):
        if not self.mqtt.connected.is_set():
            return
        done = [k for k, info in self.inflight.items() if info.is_published()]
        if done:
            self.outbox.mark_sent(done)
            for k in done:
                del self.inflight[k]
        room = WINDOW - len(self.inflight)
        if room <= 0:
            return
        for journal, seq, payload in self.outbox.unsent(room + len(self.inflight)):
            if (journal, seq) in self.inflight:
                continue
            self.inflight[(journal, seq)] = self.mqtt.publish(self.topic_event, payload)
            room -= 1
            if room <= 0:
                break

    def _say_presence(self):
        want = topics.ONLINE if self.board_up else topics.OFFLINE
        if self.mqtt.connected.is_set() and self.presence != want:
            self.mqtt.publish(self.topic_presence, want, retain=True)
            self.presence = want
            self.state_dirty = True

    # ---- the board side -------------------------------------------------------------

    def _open_board(self, first):
        from host_tools.link import BoardLink

        self.link = BoardLink(self.port, timeout=self.link_timeout)
        self.hello = self.link.hello()
        try:
            self.link.signed("time", self.key, unix=int(time.time()))
        except HostToolError as e:
            if e.code == EXIT_NO_BOARD:
                raise
            raise HostToolError(
                "the board on %s does not hold table %s's key (%s): another table's board?"
                % (self.port, self.table, str(e).split(": ", 1)[-1]),
                EXIT_FAILED,
            )
        self.link.request("subscribe", on=True)
        self.last_subscribe = time.monotonic()
        self.board_up = True
        self.state_dirty = True
        if self.outbox is None:
            self.outbox = Outbox(self.outbox_path)
        cur = self.outbox.cursor()
        j = self.hello.get("journal") or {}
        if cur is not None and cur[1] == j.get("id") and isinstance(j.get("seq"), int) and j["seq"] < cur[2]:
            self._short(j["id"], j["seq"], cur[2])
            log(
                self.table,
                "journal differs: the board's journal %s ends at record %d, this gateway fetched "
                "up to %d; following the board" % (j.get("id"), j["seq"], cur[2]),
            )
            self.outbox.move(cur[0], cur[1], j["seq"], None)
        self.hello_fresh = True
        self._check_short()
        log(
            self.table,
            "board %s on %s, journal %s at record %s%s"
            % (self.hello.get("board"), self.port, j.get("id"), j.get("seq"), "" if first else " (back)"),
        )

    def _check_short(self):
        """The board's journal, as hello gave it, against what the recorder
        holds of it: only before anything was read on this connection (a later
        `recorded` may count records read since)."""
        j = (self.hello or {}).get("journal") or {}
        rec = self.recorded
        if not (self.board_up and self.hello_fresh and rec is not None and isinstance(j.get("seq"), int)):
            return
        if j.get("id") == rec[0] and j["seq"] < rec[1]:
            self._short(j["id"], j["seq"], rec[1])

    def _short(self, journal, board_seq, floor_seq):
        """The board came back with fewer records than were read from it or
        recorded: said in the table's state, where the recorder checks it
        against its copy and raises the alert. (The recorder cannot judge from a
        state's `journal.seq` alone: a state resent after a reconnect is older
        than records published after it.)"""
        self.short = {"journal": journal, "board_seq": board_seq, "floor_seq": floor_seq}
        self.state_dirty = True

    def _close_board(self, why):
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.board_up:
            log(self.table, "board lost: " + why)
        self.board_up = False

    def _fetch(self):
        """One page of records after the cursor into the outbox; True when a page came."""
        cur = self.outbox.cursor()
        board = self.hello.get("board")
        journal, seq, chain = (cur[1], cur[2], cur[3]) if cur else (None, 0, None)
        reply = self.link.request("events", since=seq, limit=8)
        self.link.events.clear()  # pushes are only a doorbell: the pages are the record
        jid = reply.get("journal")
        if journal is not None and jid != journal:
            log(self.table, "the board started journal %s (was %s)" % (jid, journal))
            self.outbox.move(board, jid, 0, None)
            return True
        events = reply.get("events") or []
        if not events:
            if journal is None:
                self.outbox.move(board, jid, seq, chain)
            return False
        prev = reply.get("prev")
        if chain is not None and prev != chain:
            log(
                self.table,
                "journal differs: record %d does not continue the chain this gateway fetched"
                % events[0].get("seq", -1),
            )
        if events[0].get("seq") != seq + 1:
            log(self.table, "records %d-%d are no longer on the board" % (seq + 1, events[0].get("seq", 0) - 1))
        running = bytes.fromhex(prev)
        rows = []
        for ev in events:
            head = reply.get("head") if ev.get("seq") == 1 else None
            payload = topics.event_payload(self.table, board, jid, ev, running.hex(), head)
            try:
                sync_mod.record_bytes(ev, running)  # the board's link, checked as `log` checks it
            except HostToolError as e:
                log(self.table, str(e) + ": published as the board sent it; the recorder will alert")
            running = _next_hash(running, ev)
            rows.append((ev["seq"], payload))
        self.outbox.add(board, jid, rows, events[-1]["seq"], running.hex())
        self.hello_fresh = False
        self.state_dirty = True
        return True

    def _publish_state(self):
        if time.monotonic() - self.last_status >= STATE_EVERY_S:
            self.state_dirty = True
        if not (self.state_dirty and self.mqtt.connected.is_set()):
            return
        self.last_status = time.monotonic()
        cur = self.outbox.cursor()
        state = {
            "table": self.table,
            "board": self.hello.get("board") if self.hello else None,
            "link": "connected" if self.board_up else "lost",
        }
        if self.board_up:
            status = self.link.request("status")
            status.pop("t", None)
            j = self.hello.get("journal") or {}
            state.update(
                status=status,
                journal={
                    "board": state["board"],
                    "id": cur[1] if cur else j.get("id"),
                    "seq": cur[2] if cur else j.get("seq"),
                },
            )
        elif self.last_state is not None:
            state.update({k: v for k, v in self.last_state.items() if k in ("status", "journal")})
        if self.short is not None:
            state["short"] = self.short
        self.state_dirty = False
        if state != self.last_state:
            self.mqtt.publish(self.topic_state, topics.encode(state), retain=True)
            self.last_state = state

    # ---- the loop -------------------------------------------------------------------

    def run(self):
        self.mqtt.start()
        self.mqtt.wait_connected(2.0)  # a broker refusing the password: fatal here, before the board
        self._open_board(first=True)  # a wrong port, no board, another table's board: fatal here
        retry_at = 0.0
        while not self.stop:
            self.mqtt.check_refused()
            if self.mqtt.connected.is_set():
                self._on_broker()
            if self.link is None and time.monotonic() >= retry_at:
                try:
                    self._open_board(first=False)
                except HostToolError as e:
                    if e.code != EXIT_NO_BOARD:
                        raise
                    self._close_board(str(e))
                    retry_at = time.monotonic() + RETRY_S
            self._say_presence()
            if self.link is not None:
                try:
                    while self._fetch():
                        self._publish_outbox()
                    self._publish_state()
                    if time.monotonic() - self.last_subscribe > RESUBSCRIBE_S:
                        self.link.request("subscribe", on=True)
                        self.last_subscribe = time.monotonic()
                except HostToolError as e:
                    if e.code != EXIT_NO_BOARD:
                        raise
                    self._close_board(str(e))
                    retry_at = time.monotonic() + RETRY_S
                    continue
            self._publish_outbox()
            if self.link is not None:
                try:
                    if self.link.next_event(IDLE_S) is not None:
                        self.link.events.clear()
                except HostToolError as e:
                    self._close_board(str(e))
            else:
                time.sleep(0.05)

    def close(self):
        if self.outbox is not None:
            self._publish_outbox()
            self.outbox.close()
        # `offline` only from a gateway that said `online`: one refused at start changes nothing
        self.mqtt.stop(last=(self.topic_presence, topics.OFFLINE) if self.presence is not None else None)
        if self.link is not None:
            self.link.close()


_KIND_CODES = {name: code for code, name in jr.KIND_NAMES.items()}


def _kind(kind):
    return _KIND_CODES[kind] if kind in _KIND_CODES else int(kind)


def _next_hash(running, ev):
    """The chain hash after record `ev` (H(seq) = sha256(H(seq-1) ‖ record)),
    computed from its fields even when its link does not check, so the records
    after a bad one are judged on their own."""
    try:
        return jr.encode(
            running,
            ev["seq"],
            ev["t"],
            _kind(ev["kind"]),
            ev["arg"],
            bytes.fromhex(ev.get("state", "")),
            bytes.fromhex(ev.get("payload", "")),
        )[1]
    except (KeyError, TypeError, ValueError, OverflowError):
        return running


def serve(gateway):
    """Run until SIGINT/SIGTERM; the presence goes `offline` on the way out."""

    def stop(signum, frame):
        gateway.stop = True

    old = signal.signal(signal.SIGTERM, stop)
    try:
        gateway.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
        try:
            gateway.close()
        except Exception:  # closing after a fatal error: the error is what matters
            pass
