"""A table's progressive records as its gateway carries them onto the bus, for the
tests and the bench: the record's fields as a board's link sends them (the kind
by number, as a board whose firmware does not name it yet sends it), its real
chain link from the firmware's own codec (journal_record.encode), and `prev`,
so the controller's and the recorder's checks apply as to a board's records.
Each record carries its MAC under the journal key of FEED_LINK_KEY, the link
key a rig's fed tables are provisioned with (provision)."""

import hashlib

from crapsboard.journal import journal_record as jr
from host_tools.floor.base import floorkeys, topics
from host_tools.floor.progressive import messages


def feed_link_key(table):
    """The link key of a fed table's (imaginary) board: fixed per table, so a rig and its records agree."""
    return hashlib.sha256(b"crapsboard bench feed " + table.encode()).digest()


def provision(directory, tables):
    """The floor's role keys of each fed table (`floor provision` as a technician runs it)."""
    for t in tables:
        floorkeys.provision(directory, t, feed_link_key(t))


def journal_mac(table):
    return jr.Mac(floorkeys.derive(feed_link_key(table), "journal"))


class TableJournal:
    """One board's journal as its link sends the records (kind by number, as a board whose
    firmware does not name the kind yet sends it), with the chain hash before each."""

    def __init__(self, table, board="b0a4d0", journal_id=1):
        self.table = table
        self.board = board + table
        self.journal_id = journal_id
        self.seq = 0
        self.mac = journal_mac(table)
        self.hash = jr.genesis(jr.encode_head(self.board.encode(), journal_id, 0, self.mac.key_id()))

    def record(self, kind, count, game, positions=None, payload=None):
        """(the record's event payload for the bus, the record). `payload`: the
        record's payload bytes as a board wrote them (the firmware's
        progressive.payload, with its "roll"), instead of the bare game."""
        if payload is None:
            payload = messages.payload_bytes(game, positions)
        return self._append(kind, count, payload)

    def void(self, hit_seq, count, game):
        """A kind 25 prog_void of this journal's prog_hit record `hit_seq` (`count` its
        winning wagers): (the event payload for the bus, the record)."""
        return self._append(messages.PROG_VOID, count, messages.payload_bytes(game, hit=hit_seq))

    def config(self, paytables):
        """A kind 16 `config` record carrying the table's state with `paytables` ({wager
        name: id}, e.g. {"fired_up": "PT-BJS-FUP-03"}) in force, as a board journals a
        configuration change (the firmware's own snapshot codec): (event payload, record)."""
        from crapsboard.journal import snapshot
        from crapsboard.rules import config as cfg
        from crapsboard.rules.engine import Table

        table = Table(cfg.parse({"paytables": paytables}))
        return self._append(jr.CONFIG, 0, b"", snapshot.dumps(table, self.seq + 1))

    def _append(self, kind, count, payload, state=b""):
        self.seq += 1
        prev = self.hash
        _, digest = jr.encode(prev, self.seq, self.seq * 1000, kind, count, state, payload, self.mac)
        rec = {"seq": self.seq, "t": self.seq * 1000, "kind": str(kind), "arg": count, "payload": payload.hex()}
        if state:
            rec["state"] = state.hex()
        rec["link"] = digest[: jr.LINK_SIZE].hex()
        rec["mac"] = self.mac.tag(digest).hex()
        self.hash = digest
        return topics.event_payload(self.table, self.board, self.journal_id, rec, prev.hex()), rec
