"""The gateway, one per table: the board's journal over the USB link onto the
floor's broker, nothing lost and nothing doubled at the recorder (docs/floor.md).

    board --events/subscribe--> outbox (SQLite) --QoS 1--> broker

It follows the journal from the last record it fetched (the outbox's cursor),
publishes each record at QoS 1 and marks it sent only on the broker's PUBACK,
keeps the table's retained `state` (the board's `status`) and `presence`
(`online`, with `offline` as its last will), beats a heartbeat every
keepalive/2 from which the recorder judges the table online or offline
within 1.5x the keepalive (presence.py), and on every connection to the
broker publishes again what the recorder has not recorded (its retained
`recorded`): a broker killed between saves loses nothing for good. It also
carries the page's signed requests from `downlink` to the board, unchanged,
and puts the board's answers in its state (gateway_downlink.py).

At start it proves the board is this table's: it sets the board's clock with a
`time` request signed with the table's key; a board holding another key
refuses it (exit 1). Start-up faults are fatal (no board: exit 3, unless the
gateway served this table before; the broker refusing the password: exit 4);
later the board unplugged, rebooting or losing power and the broker going
away are waited out.
"""

import os
import signal
import time

from host_tools import EXIT_NO_BOARD, HostToolError
from host_tools.floor.base import presence, topics
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.gateway.board import BoardSide, log
from host_tools.floor.gateway.downlink import DownlinkSide
from host_tools.floor.gateway.outbox import Outbox
from host_tools.floor.gateway.progressive import PAGE_CTR_ROOM, ProgressiveSide
from host_tools.floor.gateway.receipt import ReceiptSide

WINDOW = 200  # records published and not yet acknowledged, at most
RETRY_S = 0.5  # between attempts to reopen a lost board
IDLE_S = 0.25  # wait for a pushed record before asking the board again
RESUBSCRIBE_S = 2.0  # `subscribe` again (a rebooted board forgot it)
RECORDED_WAIT_S = 0.5  # after subscribing, the retained `recorded` arrives within this
STATE_EVERY_S = 1.0  # ask `status` this often when idle: a win's celebration ends without a record


class Gateway(BoardSide, DownlinkSide, ProgressiveSide, ReceiptSide):
    def __init__(
        self,
        port,
        table_id,
        floor,
        broker_url,
        user,
        password,
        outbox_path,
        key,
        keepalive=10,
        link_timeout=3.0,
        tls=None,
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
        self.topic_heartbeat = topics.table(floor, table_id, "heartbeat")
        self.last_beat = 0.0
        self.topic_recorded = topics.table(floor, table_id, "recorded")
        self.topic_downlink = topics.table(floor, table_id, "downlink")  # the page's signed requests (gateway_downlink)
        self._downlink_init()
        self._progressive_init()  # the linked progressive's meters, down to the board (gateway_progressive)
        self._receipt_init()  # the recorder's receipts, down to the board (gateway/receipt.py)
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
            tls=tls,  # an mqtts:// broker: the floor's CA, the gateway's own certificate (mqtt.tls_context)
        )
        self.link = None
        self.hello = None
        self.inflight = {}  # (journal, seq) -> paho MQTTMessageInfo
        self.chains = {}  # (journal, seq) -> the chain hash after it, read from the board now open (board.py)
        self.erased_heard = None  # the newest board-erased step the recorder's `recorded` names
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
        if topic == self.topic_downlink:
            self._downlink_message(payload)
        elif self._progressive_message(topic, payload):
            pass
        elif topic == self.topic_recorded:
            try:
                obj = topics.decode(payload)
                self.recorded = (int(obj["journal"]["id"]), int(obj["seq"]))
            except (ValueError, KeyError, TypeError):
                return
            self._receipt_message(obj)
            if isinstance(obj.get("erased"), int):
                self.erased_heard = obj["erased"]  # taken up on the main thread (_follow_erased)

    def _on_broker(self):
        """Each new connection to the broker: subscribe to `recorded`, publish
        again what the recorder lacks, say where the table is."""
        n = self.mqtt.connections
        if n == self.seen_connection:
            return
        self.seen_connection = n
        self.recorded = None
        self.mqtt.subscribe(self.topic_recorded)
        self.mqtt.subscribe(self.topic_downlink)
        self._progressive_subscribe()
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

    def _follow_erased(self):
        """A board-erased step newer than the outbox's: the old journal's records
        and the cursor go, and the board's new journal is fetched from record 1."""
        step = self.erased_heard
        if step is None or self.outbox is None or step == self.outbox.erased():
            return
        log(self.table, "board-erased step %d: fetching the board's journal again from its first record" % step)
        self.outbox.start_again(step)
        self.inflight.clear()  # their acknowledgements are of the old journal's records
        self.short = None
        self.state_dirty = True

    def _publish_outbox(self):
        self._beat()  # here too: a long catch-up runs page after page through this
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

    def _beat(self):
        """The heartbeat (QoS 0, not retained) every keepalive/2 from the
        gateway's own loop: a gateway stuck or frozen falls silent."""
        now = time.monotonic()
        if not self.mqtt.connected.is_set() or now - self.last_beat < self.mqtt.keepalive * presence.HEARTBEAT_FRACTION:
            return
        beat = topics.heartbeat_payload(self.table, self.mqtt.keepalive, self.board_up)
        self.mqtt.publish(self.topic_heartbeat, beat, qos=0)
        self.last_beat = now

    # ---- the board side -------------------------------------------------------------

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
                # The counter the page signs a HOLD clearance above: the board's last
                # plus room for the gateway's own signed `progressive` requests
                # meanwhile (gateway_progressive.PAGE_CTR_ROOM), which would otherwise
                # use the page's counter first and get its clearance refused.
                ctr=self.link.last_ctr + PAGE_CTR_ROOM,
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
        if self.downlink_outcomes:
            state["downlinks"] = list(self.downlink_outcomes)  # the board's answers to the page's requests
        self.state_dirty = False
        if state != self.last_state:
            self.mqtt.publish(self.topic_state, topics.encode(state), retain=True)
            self.last_state = state

    # ---- the loop -------------------------------------------------------------------

    def run(self):
        self.mqtt.start()
        self.mqtt.wait_connected(2.0)  # a broker refusing the password: fatal here, before the board
        retry_at = 0.0
        try:
            self._open_board(first=True)  # a wrong port, no board, another table's board: fatal here...
        except HostToolError as e:
            # ...unless this gateway served the table before (its outbox is there): then
            # the board is only away (unplugged, restarting) and is waited for.
            if e.code != EXIT_NO_BOARD or not os.path.exists(self.outbox_path):
                raise
            log(self.table, "waiting for the board: " + str(e))
            self._close_board(str(e))
            self.outbox = Outbox(self.outbox_path)
            retry_at = time.monotonic() + RETRY_S
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
            self._beat()
            self._follow_erased()
            if self.link is not None:
                try:
                    while self._fetch():
                        self._publish_outbox()
                    self._forward_downlinks()
                    self._forward_progressive()
                    self._relay_receipt()
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
