"""What the recorder knows of each table's newest journal without asking
its store: the board and journal, the record up to which the floor holds
every one (its `top`) and that record's chain hash, under the table's
newest board-erased step; what its `recorded` says.

Asking the store costs statements that read the table's whole journal
(its newest journal, the records held without a hole), which grow with the
journal, once for each `recorded`, about once a record at a busy table.
A head is learnt from the store's answer and carried forward only by a
record this recorder stored right after it (the store checked the record
before it and that none after it is stored, so every record up to it is
held); anything else forgets it and the next `recorded` asks the store
again: a record stored otherwise, a copy (another recorder stores too), a
board-erased step, a transaction undone, another step than the one it was
learnt under.
"""


class Heads:
    def __init__(self):
        self._known = {}  # table -> [board, journal, top, hash (hex), erased step or None]

    def get(self, tbl, step):
        """(board, journal, top, hash) of the table, learnt under the erased step `step`; else None."""
        head = self._known.get(tbl)
        if head is None or head[4] != step:
            self._known.pop(tbl, None)
            return None
        return tuple(head[:4])

    def learn(self, tbl, board, journal, top, digest, step):
        self._known[tbl] = [board, journal, top, digest, step]

    def stored(self, tbl, board, journal, seq, digest):
        """Record `seq` stored, every record before it held: the head moves to it when it was
        the record before; otherwise forgotten."""
        head = self._known.get(tbl)
        if head is not None and head[:3] == [board, journal, seq - 1]:
            head[2], head[3] = seq, digest
        else:
            self._known.pop(tbl, None)

    def forget(self, tbl=None):
        """One table's head, or every one (None)."""
        if tbl is None:
            self._known.clear()
        else:
            self._known.pop(tbl, None)
