"""The floor recorder: every table's events into SQLite exactly once, each
table's hash chain verified, alerts raised (docs/floor.md, Recorder).

Subscribed to every table of the floor with a persistent session (the broker
queues what comes while it is away). The messages waiting when the recorder
turns to them are taken together (inbox.py): checked and stored in order in
one transaction, committed, and only then each acknowledged to the broker,
so a recorder that dies before the commit gets them all again and one that
dies after it gets again only copies, which the exactly-once key drops. A
message the database refuses costs the others nothing: the batch is done
again one message at a time. Each message is checked before anything is
stored: the topic's table, the payload's version and fields, the record's
own chain link, and that it continues the floor's copy of the chain. What it
records it says back, retained, on `…/table/<table>/recorded`, so a gateway
reconnecting publishes again what the floor lacks.

Alerts (`…/alert/<id>`, retained, and the store's `alerts`): `bad message`
(a message that is not a table's record: stored nothing), `chain broken`,
`journal differs from the floor's copy` (a record the floor holds with
another link; a board back with fewer records than it published: its text
names the technician's step for a board whose flash was erased) and `gap`
(records missing for GAP_GRACE_S seconds while later ones arrived).

A board erased (`…/table/<table>/erased`, the technician's signed step,
base/erasure.py): the table's records of that board are archived, the step
is an alert `board erased` saying who, when and up to which record the old
journal reached the floor, and `recorded` carries the step's number
(`erased`), on which the gateway fetches the board's new journal from its
first record and the page folds the table afresh.

It also judges each table online or offline from its gateway's heartbeats
and presence (presence.py) and publishes the verdict, retained, on
`…/table/<table>/availability`: within 1.5x the gateway's keepalive of the
gateway falling silent, where the broker's own will can take ~7 s longer.
"""

import sys
import time

from crapsboard.journal import journal_record as jr
from host_tools import keys, sync
from host_tools.floor.base import erasure, floordir, floorkeys, metrics, presence, topics, words
from host_tools.floor.bus.mqtt import Client
from host_tools.floor.recorder.backends import open_store, tables_with_events
from host_tools.floor.recorder.heads import Heads
from host_tools.floor.recorder.inbox import Inbox
from host_tools.floor.recorder.metrics import RecorderFigures

NOT_THE_BOARDS = "record not written by the board"  # the alert of a record whose MAC fails
GAP_GRACE_S = (
    10.0  # a hole this old, its table online all along, is a gap: a republish after a reconnect fills one sooner
)
RECORDED_EVERY_S = 0.2  # say `recorded` at most this often per table
TICK_S = 0.05  # gaps, presence and `recorded` looked at this often


class Rejected(Exception):
    """A message not stored: (alert kind, text); `extra` more fields for the alert's body."""

    def __init__(self, kind, text, extra=None):
        super().__init__(text)
        self.kind = kind
        self.extra = extra


def log(text):
    print("%s recorder: %s" % (time.strftime("%H:%M:%S"), text), file=sys.stderr, flush=True)


def _hex(obj, name, size):
    value = obj.get(name)
    try:
        data = bytes.fromhex(value)
    except (TypeError, ValueError):
        data = b""
    if len(data) != size:
        raise Rejected("bad message", "%s is not %d bytes of hex" % (name, size))
    return data


def record_hash(prev, record):
    """H(seq) of `record` (the link's fields) after chain hash `prev`, and
    whether its 8-byte `link` matches: sha256(prev ‖ record)[:8]."""
    try:
        _, digest = sync.encode_fields(record, prev)
    except (KeyError, TypeError, ValueError, OverflowError):
        raise Rejected("bad message", "record %s is incomplete or malformed" % record.get("seq"))
    return digest, digest[: jr.LINK_SIZE] == _hex(record, "link", jr.LINK_SIZE)


class Recorder:
    def __init__(self, store, floor, publish=None, keys=None):
        self.store = store
        self.keys = keys or floorkeys.JournalKeys()  # each table's journal key: no key, no record stored
        self.floor = floor
        self.publish = publish  # publish(topic, payload, retain) or None (tests feeding messages directly)
        self.holes = {}  # (tbl, board, journal, from) -> first seen (monotonic)
        self.said = {}  # tbl -> (journal, seq, when) last `recorded`
        self.dirty = set()
        self.duplicates = 0
        self._unsaid = None  # inside a batch: the alerts to say once it is committed
        self.heads = Heads()  # each table's newest journal as `recorded` says it, known without a query
        self.judge = presence.Judge()
        self.clock = time.monotonic  # the judge's clock

    # ---- messages -------------------------------------------------------------------

    def handle(self, topic, payload, retained=False):
        """Take one message (`retained`: sent from the broker's store on
        subscribing, possibly older than what the floor holds); returns "stored", "duplicate", "state", "presence",
        "heartbeat", "ignored" or "rejected" (an alert raised, nothing stored)."""
        return self.handle_batch([(topic, payload, retained)])[0]

    def handle_batch(self, messages):
        """Take [(topic, payload, retained)] in order, in one transaction; their results, as
        handle()'s. Committed when this returns: then, and not before, they may be acknowledged."""
        with self.store.lock:
            return self._handle_batch(messages)

    def _handle_batch(self, messages):
        try:
            return self._batch(messages)
        except self.store.refusals as e:
            self.heads.forget()  # the batch was undone: what it moved on is not held
            if len(messages) > 1:  # one message the database refuses must not cost the others theirs
                return [self._handle_batch([m])[0] for m in messages]
            topic = messages[0][0]
            where = topics.parse_table_topic(self.floor, topic)
            text = "%s: the database refused it: %s" % (
                topic,
                (str(e).strip() or type(e).__name__).splitlines()[0][:200],
            )
            self.alert(where[0] if where else None, "bad message", text)
            return ["rejected"]

    def _batch(self, messages):
        unsaid, tries = [], []

        def work():
            if tries:  # done again (the server lost): what the last try moved on was undone
                self.heads.forget()
            tries.append(1)
            del unsaid[:]  # only the last try's alerts are committed
            self._unsaid = unsaid
            try:
                return [self._take(*m) for m in messages]
            finally:
                self._unsaid = None

        results = self.store.batch(work)
        for said in unsaid:
            self.announce(*said)
        self.duplicates += results.count("duplicate")
        return results

    def _take(self, topic, payload, retained=False):
        where = topics.parse_table_topic(self.floor, topic)
        try:
            if where is None:
                raise Rejected("bad message", "not a table topic of floor %s" % self.floor)
            tbl, leaf = where
            if leaf == "event":
                return self._event(tbl, payload)
            if leaf == "presence":
                text = payload.decode("ascii", "replace")
                if text not in (topics.ONLINE, topics.OFFLINE):
                    raise Rejected("bad message", "presence %r" % text[:40])
                # a retained one may be old news: it counts only for a table not heard since
                if not retained or self.judge.deadline(tbl) is None:
                    self.judge.heard(tbl, self.clock(), text == topics.ONLINE)
                return "presence"
            if leaf == "heartbeat":
                try:
                    online, keepalive = topics.parse_heartbeat(tbl, payload)
                except ValueError as e:
                    raise Rejected("bad message", str(e))
                self.judge.heard(tbl, self.clock(), online, keepalive)
                return "heartbeat"
            if leaf == "state":
                return self._state(tbl, payload)
            if leaf == "erased":
                return self._erased(tbl, payload)
            return "ignored"
        except Rejected as e:
            self.alert(where[0] if where else None, e.kind, "%s: %s" % (topic, e), extra=e.extra)
            return "rejected"

    def _event(self, tbl, payload):
        try:
            obj = topics.decode(payload)
        except ValueError as e:
            raise Rejected("bad message", str(e))
        if obj.get("table") != tbl:
            raise Rejected("bad message", "payload of table %r on table %s's topic" % (obj.get("table"), tbl))
        journal, record = obj.get("journal"), obj.get("record")
        if not isinstance(journal, dict) or not isinstance(record, dict):
            raise Rejected("bad message", "no journal or record")
        board, jid, seq = journal.get("board"), journal.get("id"), record.get("seq")
        if not isinstance(board, str) or not isinstance(jid, int) or not isinstance(seq, int) or seq < 1:
            raise Rejected("bad message", "journal identity or seq missing")
        prev = _hex(obj, "prev", 32)
        digest, link_ok = record_hash(prev, record)
        if not link_ok:
            raise Rejected("chain broken", "record %d of journal %d: its link does not match its fields" % (seq, jid))
        mac = self.keys.mac(tbl)
        if not floorkeys.record_mac_ok(mac, record, digest):
            why = "the floor holds no journal key for table %s" % tbl if mac is None else "its MAC is not the board's"
            raise Rejected(
                NOT_THE_BOARDS,
                "a record %s's board did not write came from %s: record %d of journal %d (%s); stored nowhere"
                % (tbl, floordir.gateway_user(tbl), seq, jid, why),
            )
        if seq == 1 and "head" in obj and jr.genesis(_hex(obj, "head", len(str(obj["head"])) // 2)) != prev:
            raise Rejected("chain broken", "record 1 of journal %d: the journal's head does not start it" % jid)
        return self._place(tbl, board, jid, record, digest, prev.hex())

    def _place(self, tbl, board, jid, record, digest, prev):
        """Store a record whose MAC is the board's when it continues the floor's
        chain; hold it while the record before it is missing (a gap)."""
        seq = record["seq"]
        placed, after = self.store.add_next(tbl, board, jid, record, digest, prev)
        if placed:  # the usual case: it continued the record before it, checked by the store as it inserted
            self.dirty.add(tbl)
            self.heads.stored(tbl, board, jid, seq, digest.hex())
            return self._release(tbl, board, jid, seq, digest, after)
        self.heads.forget(tbl)  # a copy, a hole, a journal's first record: the store says what is held
        near = self.store.around(tbl, board, jid, seq)
        held = near.get(seq)
        if held is not None:
            if held[0] == record["link"] and held[2] == prev:
                return "duplicate"
            raise Rejected(
                "journal differs from the floor's copy",
                "record %d of journal %d differs from the one the floor recorded%s"
                % (seq, jid, erased_step(tbl, board)),
            )
        before = near.get(seq - 1)
        if before is not None and before[1] != prev:
            raise Rejected("chain broken", "record %d of journal %d does not continue record %d" % (seq, jid, seq - 1))
        after = near.get(seq + 1)
        if after is not None and after[2] != digest.hex():
            raise Rejected(
                "chain broken", "record %d of journal %d is not the one record %d continues" % (seq, jid, seq + 1)
            )
        if seq > 1 and before is None and after is None and self.store.max_seq(tbl, board, jid) is not None:
            # the floor holds this journal but not the record before: it waits for the gap to close
            # (a record 1 starts the journal: it waits for nothing, and the records after it that
            # wait are stored in turn)
            self.store.add_waiting(tbl, board, jid, record, digest, prev)
            return "waiting"
        self.store.add_event(tbl, board, jid, record, digest, prev)
        self.dirty.add(tbl)
        return self._release(tbl, board, jid, seq, digest, self.store.waiting(tbl, board, jid, seq + 1))

    def _release(self, tbl, board, jid, seq, digest, nxt):
        """Record `seq` (hash `digest`) stored: the records that waited for it, `nxt` the first
        ((record, hash, prev) or None), stored in turn while each continues the one before."""
        while nxt is not None:
            seq += 1
            w_record, w_hash, w_prev = nxt
            self.store.drop_waiting(tbl, board, jid, seq)
            if w_prev != digest.hex():
                self.alert(
                    tbl,
                    "chain broken",
                    "record %d of journal %d does not continue record %d" % (seq, jid, seq - 1),
                )
                return "stored"
            digest = bytes.fromhex(w_hash)
            self.store.add_event(tbl, board, jid, w_record, digest, w_prev)
            self.heads.stored(tbl, board, jid, seq, w_hash)
            nxt = self.store.waiting(tbl, board, jid, seq + 1)
        return "stored"

    def _state(self, tbl, payload):
        try:
            state = topics.decode(payload)
        except ValueError as e:
            raise Rejected("bad message", str(e))
        if state.get("table") != tbl:
            raise Rejected("bad message", "state of table %r on table %s's topic" % (state.get("table"), tbl))
        self.store.set_table(tbl, state=state)
        short = state.get("short")
        j = state.get("journal")
        # The gateway found the board with fewer records than it had read or the
        # floor recorded; the floor's copy is the judge.
        if isinstance(short, dict) and isinstance(j, dict) and isinstance(short.get("board_seq"), int):
            top = self.store.max_seq(tbl, j.get("board"), short.get("journal"))
            if top is not None and short["board_seq"] < top:
                self.alert(
                    tbl,
                    "journal differs from the floor's copy",
                    "table %s's board came back with journal %s ending at record %d; the floor recorded up to %d%s"
                    % (tbl, short.get("journal"), short["board_seq"], top, erased_step(tbl, j.get("board"))),
                    key="short:%s:%s:%d" % (tbl, short.get("journal"), short["board_seq"]),
                )
        return "state"

    def _erased(self, tbl, payload):
        """The technician's board-erased step: checked, then the board's records archived."""
        try:
            step = topics.decode(payload)
        except ValueError as e:
            raise Rejected("bad message", str(e))
        now = time.time()
        why = erasure.check(self.keys.key(tbl), step, now)
        if why is None and step["table"] != tbl:
            why = "a step of table %r on table %s's topic" % (step["table"], tbl)
        if why is not None:
            nonce = step.get("nonce") if isinstance(step, dict) and isinstance(step.get("nonce"), str) else None
            raise Rejected(
                erasure.REFUSED,
                "a board-erased step for table %s refused, nothing archived: %s" % (tbl, why),
                {"nonce": nonce[:32]} if nonce else None,
            )
        board = step["board"]
        held = [j for j in self.store.journals(tbl) if j[1] == board]
        last = self.store.last_erased(tbl)
        if not held and (last is None or last[1] != board):
            # A board the floor never recorded here has no journal to conflict with: a wrong
            # board id would only make the gateway and the page start again for nothing.
            raise Rejected(
                erasure.REFUSED,
                "a board-erased step for table %s refused, nothing archived: the floor holds no record of board %s"
                " at table %s" % (tbl, board, tbl),
                {"nonce": step["nonce"][:32]},
            )
        jid = max(j[2] for j in held) if held else None
        top = self.store.contiguous(tbl, board, jid)[0] if held else 0
        self.heads.forget(tbl)
        number = self.store.erase(tbl, board, step["by"].strip(), step["at"], step["nonce"], (jid, top))
        if number is None:
            return "duplicate"  # this step was taken already (by this recorder, or another on the database)
        old = "the old journal %d received up to record %d" % (jid, top) if held else "the floor held no record of it"
        self.alert(
            tbl,
            erasure.KIND,
            "board %s of table %s got a new journal at %s, by technician %s; %s (its records archived, step %d)"
            % (board, tbl, words.when(step["at"]), step["by"].strip(), old, number),
            key="erased:%d" % number,
            extra={"nonce": step["nonce"][:32], "board": board, "by": step["by"].strip(), "step": number},
        )
        self.holes = {k: v for k, v in self.holes.items() if k[:2] != (tbl, board)}
        self.said.pop(tbl, None)
        self.dirty.add(tbl)
        return "erased"

    # ---- alerts, gaps and `recorded` ---------------------------------------------------

    def receipt(self, tbl, board, jid, top, digest=None):
        """{"hash", "receipt"} of the table's journal up to `top`: the chain hash after it and
        the recorder's receipt for it under the table's receipt key (docs/link.md, `journal_reset`);
        {"hash"} alone when the floor holds no receipt key for the table. `digest`: that chain
        hash when known (a head), else read from the store."""
        if digest is None:
            held = self.store.stored(tbl, board, jid, top)
            if held is None:
                return {}
            digest = held[1]
        out = {"hash": digest}
        key = floorkeys.read_or_none(self.keys.directory, tbl, "receipt")
        if key is not None:
            out["receipt"] = keys.receipt_tag(key, board, jid, top, digest)
        return out

    def alert(self, tbl, kind, text, key=None, extra=None):
        """Store an alert and say it (inside a batch: once the batch is committed); its id,
        or None when one with `key` was raised already."""
        aid = self.store.add_alert(tbl, kind, text, key)
        if aid is None:
            return None
        if self._unsaid is not None:
            self._unsaid.append((aid, tbl, kind, text, extra))
        else:
            self.announce(aid, tbl, kind, text, extra)
        return aid

    def announce(self, aid, tbl, kind, text, extra=None):
        """A stored alert in the log and, retained, on the broker."""
        log("alert %d: %s: %s" % (aid, kind, text))
        if self.publish:
            body = dict(extra or {}, id=aid, table=tbl, kind=kind, text=text, at=int(time.time()))
            self.publish(topics.alert(self.floor, "a%d" % aid), topics.encode(body), True)

    def judge_presence(self):
        """Each table whose verdict changed: into the store, and retained on its `availability`."""
        with self.store.lock:
            for tbl, online in self.judge.changes(self.clock()):
                text = topics.ONLINE if online else topics.OFFLINE
                self.store.set_table(tbl, presence=text)
                log("table %s %s" % (tbl, text))
                if self.publish:
                    self.publish(topics.table(self.floor, tbl, "availability"), text.encode(), True)

    def tick(self, now=None):
        """Gaps older than the grace become alerts; `recorded` goes out for changed tables."""
        now = time.monotonic() if now is None else now
        self.judge_presence()
        with self.store.lock:
            for tbl, board, jid, a, b in self.store.gaps():
                if self.judge.online(tbl, self.clock()) is False:
                    # Its gateway is not heard (a broker, a bridge or the gateway down): the
                    # missing records are in its outbox, not lost; the grace starts again.
                    self.holes[(tbl, board, jid, a)] = now
                    continue
                first = self.holes.setdefault((tbl, board, jid, a), now)
                if now - first >= GAP_GRACE_S:
                    self.alert(
                        tbl,
                        "gap",
                        "table %s journal %d: records %d-%d never arrived (the later ones wait, their MACs checked)"
                        % (tbl, jid, a, b),
                        key="gap:%s:%s:%d:%d" % (tbl, board, jid, a),
                    )
            for tbl in sorted(self.dirty):
                said = self.said.get(tbl)
                if said and now - said[2] < RECORDED_EVERY_S:
                    continue  # said lately: the queries wait for the next tick after it
                erased = self.store.last_erased(tbl)
                head = self.heads.get(tbl, erased[0] if erased else None)
                if head is not None:
                    board, jid, top, digest = head
                else:
                    last = self.store.last_journal(tbl)
                    if last is None and erased is None:
                        continue
                    # Right after a board-erased step the floor holds none of the new journal yet: seq 0.
                    board, jid, _ = last if last is not None else (erased[1], 0, 0)
                    top, _ = self.store.contiguous(tbl, board, jid)
                    held = self.store.stored(tbl, board, jid, top) if top else None
                    digest = held[1] if held else None
                    if digest is not None:
                        self.heads.learn(tbl, board, jid, top, digest, erased[0] if erased else None)
                if said and said[:2] == (jid, top):
                    self.dirty.discard(tbl)
                    continue
                if self.publish:
                    body = {"table": tbl, "journal": {"board": board, "id": jid}, "seq": top}
                    body.update(self.receipt(tbl, board, jid, top, digest) if digest else {})
                    if erased is not None:
                        body["erased"] = erased[0]  # the newest step: a gateway or page behind it starts afresh
                    self.publish(topics.table(self.floor, tbl, "recorded"), topics.encode(body), True)
                self.said[tbl] = (jid, top, now)
                self.dirty.discard(tbl)


def erased_step(tbl, board):
    """What a `journal differs` alert adds: the one legitimate cause and its step."""
    return (
        "; if table %s's board %s was erased (re-flashed or replaced), a technician records it:"
        " python -m host_tools floor board-erased --table %s --board %s --by NAME" % (tbl, board, tbl, board)
    )


def serve(
    store_path,
    floor,
    url,
    user,
    password,
    keepalive=10,
    stop=None,
    tls=None,
    keys_dir=None,
    instance=None,
    metrics_port=0,
    ready=None,
):
    """Run the recorder until `stop()` is true or SIGINT/SIGTERM; `store_path` a SQLite
    path or a postgresql:// URL; `instance` names one of several recorders (its own session);
    `keys_dir`: the floor's directory whose keys/TABLE.journal verify each table's records;
    `ready`: a threading.Event set once the broker has acknowledged its subscriptions."""
    store = open_store(store_path)
    client = None
    recorder = Recorder(store, floor, keys=floorkeys.JournalKeys(keys_dir))
    figures = RecorderFigures(recorder)  # Prometheus's figures (recorder/metrics.py), on --metrics-port
    handle_batch = figures.watch()
    inbox = Inbox()

    def on_connect():
        recorder.said.clear()  # the broker may have lost the retained `recorded`: say it again
        with store.lock:
            recorder.judge.forget_said()  # and the verdicts
        recorder.dirty.update(tables_with_events(store))
        client.subscribe(topics.floor_root(floor) + "/table/+/event")
        client.subscribe(topics.floor_root(floor) + "/table/+/state")
        client.subscribe(topics.floor_root(floor) + "/table/+/presence")
        client.subscribe(topics.floor_root(floor) + "/table/+/erased")
        client.subscribe(topics.floor_root(floor) + "/table/+/heartbeat", qos=0)
        log("connected to the broker")

    client = Client(
        url,
        user,
        password,
        "recorder-" + floor + ("-" + instance if instance else ""),
        keepalive,
        clean=False,
        on_message=inbox.put,
        on_connect=on_connect,
        tls=tls,
        manual_ack=True,
    )
    figures.client = client
    metrics.expose(metrics_port, figures.read)
    recorder.publish = lambda topic, payload, retain: client.publish(topic, payload, retain=retain)
    client.start()
    next_tick = 0.0
    try:
        while stop is None or not stop():
            client.check_refused()
            # whatever is waiting, at once: a record is never held back to fill a batch
            batch = inbox.take(max(0.0, next_tick - time.monotonic()))
            if batch:
                handle_batch([m[:3] for m in batch])
                for m in batch:
                    m[3]()  # committed: now the broker may forget it
            if time.monotonic() >= next_tick:
                recorder.tick()
                next_tick = time.monotonic() + TICK_S
            if ready is not None and client.subscribed.is_set():
                ready.set()
    finally:
        client.stop()
        store.close()
