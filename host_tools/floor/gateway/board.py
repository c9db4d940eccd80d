"""The gateway's board side (gateway.py's Gateway mixes it in): open the
board's link and prove it is this table's, follow its journal page by page
into the outbox, and notice a board that came back with fewer records.

A record's chain hash is rebuilt here from its fields with the firmware's
codec (journal_record.encode), as `host_tools log` does, so every published
record carries `prev`, the hash before it, for any consumer to check.
"""

import sys
import time

from host_tools import EXIT_FAILED, EXIT_NO_BOARD, HostToolError
from host_tools import sync as sync_mod
from host_tools.floor.base import topics
from host_tools.floor.gateway.outbox import Outbox

CHAINS_KEPT = 1024  # the chain hashes after the records last read, for the receipts that trail them
IDENTITY_TRIES = 3  # signed `time` requests refused in a row before the board is judged another table's
IDENTITY_PAUSE_S = 1.0


def log(table_id, text):
    print("%s gateway %s: %s" % (time.strftime("%H:%M:%S"), table_id, text), file=sys.stderr, flush=True)


class BoardSide:
    """Needs from its host class: port, table, key, link_timeout, outbox_path,
    outbox, link, hello, board_up, state_dirty, last_subscribe, recorded,
    hello_fresh, short, chains."""

    def _open_board(self, first):
        from host_tools.link import BoardLink

        refusal = None
        for _ in range(IDENTITY_TRIES):
            if self.link is not None:
                self.link.close()
            self.link = BoardLink(self.port, timeout=self.link_timeout)
            self.hello = self.link.hello()
            try:
                self.link.signed("time", self.key, role_key=True, unix=int(time.time()))
                refusal = None
                break
            except HostToolError as e:
                if e.code == EXIT_NO_BOARD:
                    raise
                # A byte lost on the line (a board resetting under a loaded host) also
                # breaks a tag: only a board that refuses every try holds another key.
                refusal = str(e).split(": ", 1)[-1]
                time.sleep(IDENTITY_PAUSE_S)
        if refusal is not None:
            raise HostToolError(
                "the board on %s does not hold table %s's key (%s): another table's board?"
                % (self.port, self.table, refusal),
                EXIT_FAILED,
            )
        self.link.request("subscribe", on=True)
        self.last_subscribe = time.monotonic()
        self.chains = {}  # (journal, seq) -> the chain hash after it, as read from this board since it opened
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
            self._read_chain(jid, ev["seq"], running.hex())
        self.outbox.add(board, jid, rows, events[-1]["seq"], running.hex())
        self.hello_fresh = False
        self.state_dirty = True
        return True

    def _read_chain(self, journal, seq, chain):
        """Keep the chain hash after record `seq`, read from the board: a receipt for it
        is relayed only when it names this chain (gateway/receipt.py)."""
        self.chains[(journal, seq)] = chain
        if len(self.chains) > CHAINS_KEPT:
            del self.chains[next(iter(self.chains))]


def _next_hash(running, ev):
    """The chain hash after record `ev` (H(seq) = sha256(H(seq-1) ‖ record)),
    computed from its fields even when its link does not check, so the records
    after a bad one are judged on their own."""
    try:
        return sync_mod.encode_fields(ev, running)[1]
    except (KeyError, TypeError, ValueError, OverflowError):
        return running
