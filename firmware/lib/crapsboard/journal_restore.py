# Mounting the journal: verify every record, then restore the table.
#
# Part of crapsboard.journal (Journal inherits Restore). Segments oldest
# first, then the staging files past the last segment in slot order: each
# record's length, CRC, seq and hash chain. The table is set from the last
# record carrying the table state and the rolls and hand ends after it are
# replayed. A fault raises JournalError naming the first bad seq and writes
# nothing; the journal then refuses appends until a new one is started.
import os

from micropython import const

from crapsboard import journal_record as jr
from crapsboard import snapshot

DIR = "journal"
HEAD = "head"

# Faults: the journal refuses appends until a supervisor starts a new one.
CORRUPT = const(1)  # a record fails its CRC or a file is not what it should be
CHAIN = const(2)  # a record is missing, out of order or breaks the hash chain
FULL = const(3)  # the filesystem has no room for the next record
FOREIGN = const(4)  # the journal belongs to another board
FAULT_NAMES = ("none", "corrupt", "chain", "full", "foreign")

# What mount found.
NONE = const(0)  # no journal on this filesystem (first use)
RESTORED = const(1)

STATE_KINDS = (jr.UNDO, jr.CONFIG, jr.JOURNAL_START, jr.SNAPSHOT)


class JournalError(Exception):
    def __init__(self, fault, message, seq=None):
        super().__init__(FAULT_NAMES[fault] + ": " + message)
        self.fault = fault
        self.seq = seq


class Restore:
    def __init__(self, root, board_id, segment_bytes):
        self.dir = root + "/" + DIR if root else DIR
        self.board_id = board_id
        self.segment_bytes = segment_bytes
        self.fault = 0
        self.journal_id = 0
        self.seq = 0  # last record written
        self.hash = b""  # chain hash after it
        self._staged = []  # encoded records in s0.. not yet in a segment
        self._segments = []  # [first seq, last seq, bytes] oldest first
        self._rotate = True  # the next flush starts a new segment
        self._dropped_upto = 0
        self._batch_prev = b""  # chain hash before the first staged record
        self._empty_segment = None
        self._ready = False

    # ---- start-up --------------------------------------------------------

    def mount(self, table, base=None):
        """Verify the journal and restore `table` to the state after its last
        record. NONE when there is no journal; RESTORED; JournalError on a
        fault (nothing is written then, and appends are refused). `base`: the
        board's configuration, for the keys a snapshot does not hold (the PIN)."""
        self._ready = False
        try:
            head = self._read(HEAD)
        except OSError:
            # A journal whose start was cut before its head was written is none.
            if self._exists(self.dir) and os.listdir(self.dir):
                self._fail(CORRUPT, "journal directory without a head file")
            return NONE
        try:
            board_id, journal_id, _ = jr.decode_head(head)
        except ValueError as e:
            if not head and os.listdir(self.dir) == [HEAD]:
                return NONE  # its start was cut between creating and writing the head
            self._fail(CORRUPT, str(e))
        if board_id != self.board_id:
            self._fail(FOREIGN, "journal of board " + _hex(board_id) + ", this is " + _hex(self.board_id))
        self.journal_id = journal_id
        replay = _Replay(table, base)
        self.hash = jr.genesis(head)
        self.seq = 0
        self._segments = []
        self._empty_segment = None
        self._verify_segments(replay)
        self._verify_slots(replay)
        if self.seq == 0:
            return NONE  # cut before its first record: never acknowledged
        try:
            replay.finish()
        except ValueError as e:
            self._fail(CORRUPT, str(e), self.seq)
        if self._empty_segment:
            os.remove(self._empty_segment)
        # A pending rotation goes ahead only if the staged batch opens with the
        # table state; otherwise the batch joins the full segment and maintain
        # rotates after it, so every segment still starts with the state.
        staged_state = self._staged and self._staged[0][jr.HEADER_SIZE - 1] != 0
        self._rotate = not self._segments or (self._segments[-1][2] >= self.segment_bytes and bool(staged_state))
        self._ready = True
        return RESTORED

    def _verify_segments(self, replay):
        names = []
        for name in os.listdir(self.dir):
            if name[0] == "g":
                try:
                    names.append((int(name[1:]), name))
                except ValueError:
                    self._fail(CORRUPT, "stray file " + name + " in the journal")
        names.sort()
        buf = bytearray(2 * jr.MAX_RECORD)
        for i in range(len(names)):
            first, name = names[i]
            path = self.dir + "/" + name
            with open(path, "rb") as f:
                n = f.readinto(buf)
                if n == 0 and i == len(names) - 1:
                    # Created but power failed before its first flush: not data,
                    # removed once everything else has verified.
                    self._empty_segment = path
                    break
                try:
                    seg_first, prev = jr.decode_segment_header(buf[:n])
                except ValueError:
                    self._fail(CORRUPT, "segment " + name + " has no header", first)
                if seg_first != first:
                    self._fail(CORRUPT, "segment " + name + " starts at " + str(seg_first), first)
                if i == 0:
                    self.hash = prev  # older segments were dropped (each drop is recorded)
                    self.seq = first - 1
                elif first != self.seq + 1:
                    self._fail(
                        CHAIN, "records " + str(self.seq + 1) + " to " + str(first - 1) + " missing", self.seq + 1
                    )
                size = n
                pos = jr.SEGMENT_HEADER_SIZE
                while True:
                    while pos < n:
                        if n - pos < jr.HEADER_SIZE + jr.TRAILER_SIZE or n - pos < _length(buf, pos):
                            break  # the rest of this record is in the next read
                        pos += self._accept(buf, pos, replay)
                    rest = n - pos
                    buf[:rest] = buf[pos:n]
                    got = f.readinto(memoryview(buf)[rest:])
                    if not got:
                        if rest:
                            self._fail(
                                CORRUPT, "segment " + name + " ends inside record " + str(self.seq + 1), self.seq + 1
                            )
                        break
                    size += got
                    n = rest + got
                    pos = 0
            self._segments.append([first, self.seq, size])

    def _verify_slots(self, replay):
        # Slot files hold one record each; those past the last segment, in
        # order from slot 0, are the records staged since the last flush.
        last = self.seq
        self._batch_prev = self.hash
        self._staged = []
        found = {}
        for name in os.listdir(self.dir):
            if name[0] == "s":
                data = self._read(name)
                if not data:
                    continue  # created, and power failed before its first record was written
                # Staging files are written whole, so even a stale one passes its CRC.
                if not jr.crc_ok(data, 0) or len(data) != _length(data, 0):
                    self._fail(CORRUPT, "staging file " + name + " fails its CRC", jr.peek_seq(data, 0))
                seq = jr.peek_seq(data, 0)
                if seq > last:
                    found[seq] = (name, data)
        for k in range(len(found)):
            item = found.get(last + 1 + k)
            if item is None or item[0] != "s" + str(k):
                self._fail(CHAIN, "staged records out of order after " + str(self.seq), self.seq + 1)
            self._accept(item[1], 0, replay)
            self._staged.append(item[1])

    def _accept(self, buf, pos, replay):
        try:
            r = jr.decode(buf, pos, self.hash, self.seq + 1)
        except jr.RecordError as e:
            self._fail(CHAIN if e.chain else CORRUPT, str(e), e.seq)
        self.seq = r.seq
        self.hash = r.hash
        if r.kind == jr.DROP and len(r.payload) == 8:
            self._dropped_upto = int.from_bytes(r.payload[4:8], "little")
        try:
            replay.add(r)
        except ValueError as e:
            self._fail(CORRUPT, "record " + str(r.seq) + ": " + str(e), r.seq)
        return r.size

    def _fail(self, fault, message, seq=None):
        self.fault = fault
        self._ready = False
        raise JournalError(fault, message, seq)

    @staticmethod
    def _exists(path):
        try:
            os.stat(path)
            return True
        except OSError:
            return False

    def _read(self, name):
        with open(self.dir + "/" + name, "rb") as f:
            return f.read()


class _Replay:
    # Rebuilds the table from the last state-bearing record and the rolls and
    # hand ends after it, kept as one byte each (0 = hand end) until the end.
    def __init__(self, table, base):
        self.table = table
        self.base = base
        self.state = None
        self.codes = bytearray()

    def add(self, r):
        if r.state:
            snapshot.decode(r.state)  # a bad snapshot is a fault found now, not at the end
            self.state = r.state
            self.codes = bytearray()
        elif r.kind == jr.ROLL:
            if not (1 <= r.arg >> 3 <= 6 and 1 <= r.arg & 7 <= 6):
                raise ValueError("roll " + str(r.arg) + " is not two dice")
            self.codes.append(r.arg)
        elif r.kind == jr.END_HAND:
            self.codes.append(0)
        elif r.kind in STATE_KINDS:
            raise ValueError("a " + jr.KIND_NAMES[r.kind] + " record without the table state")

    def finish(self):
        table = self.table
        if self.state is None:
            raise ValueError("no table state in the journal")
        snapshot.loads(self.state, table, self.base)
        for code in self.codes:
            if code:
                table.roll(code >> 3, code & 7)
            else:
                table.end_hand()


def _hex(data):
    return "".join("%02x" % b for b in data)


def _length(buf, pos):
    return buf[pos] | buf[pos + 1] << 8
