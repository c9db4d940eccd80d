"""Journal records for the floor's tests, as the link's `events` gives them
(seq, kind, arg, dice, state in hex, link); the states are the firmware's own
snapshots of a real table, the links the firmware's own hash chain
(journal_record.encode), so the floor's recorder takes them."""

import host_tools  # noqa: F401  (puts firmware/lib on the path)
from crapsboard.journal import journal_read, snapshot
from crapsboard.journal import journal_record as jr
from crapsboard.rules import engine

# A shooter who makes the points 4, 5, 6, 8, 9, 10 in that order: each point
# set, then made; the dice chosen by hand. Fire points after each pair: 1..6.
POINTS_IN_ORDER = [(2, 2), (3, 1), (2, 3), (4, 1), (3, 3), (5, 1), (4, 4), (6, 2), (5, 4), (6, 3), (5, 5), (6, 4)]


class Journal:
    """Records numbered from 1, starting with the journal start's fresh table."""

    def __init__(self, board_id=b"\x0b\x0a\x0d", journal_id=1):
        self.seq = 0
        self.records = []
        self.prevs = []  # the chain hash before each record, in hex
        self.hash = jr.genesis(jr.encode_head(board_id, journal_id, 0))
        self.add("journal_start", 0, state=snapshot.dumps(engine.Table(), 1).hex())

    def add(self, kind, arg, **more):
        self.seq += 1
        record = {"seq": self.seq, "t": self.seq * 1000, "kind": kind, "arg": arg}
        record.update(more)
        code = {v: k for k, v in journal_read.KIND_NAMES.items()}[kind]
        state = bytes.fromhex(record.get("state", ""))
        _, digest = jr.encode(self.hash, self.seq, record["t"], code, arg, state)
        record["link"] = digest[: jr.LINK_SIZE].hex()
        self.prevs.append(self.hash.hex())
        self.hash = digest
        self.records.append(record)
        return record

    def roll(self, d1, d2):
        return self.add("roll", d1 * 8 + d2, dice=[d1, d2])
