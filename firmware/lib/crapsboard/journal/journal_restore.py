# Mounting the journal: verify every record, then restore the table.
#
# Used at power-up (Journal.mount). Segments oldest
# first, then the staging files past the last segment in slot order (the odd
# slots in their own directory): each
# record's length, CRC, seq and hash chain. The table is set from the last
# record carrying the table state and the rolls and hand ends after it are
# replayed. A fault raises JournalError naming the first bad seq and writes
# nothing; the journal then refuses appends until a new one is started.
import os

from micropython import const

from crapsboard.base import files
from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.journal import snapshot_read
from crapsboard.journal.journal_codes import (
    CHAIN,
    CORRUPT,
    FOREIGN,
    HEAD,
    NONE,
    RESTORED,
    STATE_KINDS,
    JournalError,
    within_day,
)
from crapsboard.rules import hold
from crapsboard.rules import paytable as pt

_UNDO_REACH = const(32)  # no undo reaches further back (rules/engine.py keeps at most 32 events)


def mount(journal, table, base=None):
    """Verify the journal and restore `table` to the state after its last
    record. NONE when there is no journal; RESTORED; JournalError on a
    fault (nothing is written then, and appends are refused). `base`: the
    board's configuration, for the keys a snapshot does not hold (the PIN)."""
    journal._ready = False
    try:
        head = _read(journal, HEAD)
    except OSError:
        # A journal whose start was cut before its head was written is none.
        if files.exists(journal.dir) and os.listdir(journal.dir):
            _fail(journal, CORRUPT, "journal directory without a head file")
        return NONE
    try:
        board_id, journal_id, _ = jread.decode_head(head)
    except ValueError as e:
        if not head and os.listdir(journal.dir) == [HEAD]:
            return NONE  # its start was cut between creating and writing the head
        _fail(journal, CORRUPT, str(e))
    if board_id != journal.board_id:
        _fail(journal, FOREIGN, "journal of board " + _hex(board_id) + ", this is " + _hex(journal.board_id))
    journal.journal_id = journal_id
    _keyed(journal, head)
    replay = _Replay(table, base)
    journal.hash = jr.genesis(head)
    journal.seq = 0
    journal._segments = []
    journal._empty_segment = None
    _verify_segments(journal, replay)
    staged_state = _verify_slots(journal, replay)
    if journal.seq == 0:
        return NONE  # cut before its first record: never acknowledged
    try:
        replay.finish()
    except ValueError as e:
        _fail(journal, CORRUPT, str(e), journal.seq)
    # The clock carries on from the last record; the PIN lockout is counted
    # on that clock, so the time the board was off never shortens it.
    journal.clock = replay.t
    journal._ticks = None
    journal.pin_fails = replay.pin_fails
    journal.wall = replay.wall
    journal.backs = within_day(replay.backs, replay.t)
    journal.hold = replay.last_event()
    journal.prog = replay.prog
    journal.hits_after = [hit[2] for hit in replay.hits if hit[1] > replay.event_seq]
    journal.voids_due = replay.voids_due
    journal.pin_lock_ms = 0
    if replay.pin_lock_t is not None:
        locked_for = (replay.t - replay.pin_lock_t) & 0xFFFFFFFF
        if locked_for < jr.PIN_LOCK_MS:
            journal.pin_lock_ms = jr.PIN_LOCK_MS - locked_for
    if journal._empty_segment:
        os.remove(journal._empty_segment)
    # A pending rotation goes ahead only if the staged batch opens with the
    # table state; otherwise the batch joins the full segment and maintain
    # rotates after it, so every segment still starts with the state.
    journal._rotate = not journal._segments or (journal._segments[-1][2] >= journal.segment_bytes and staged_state)
    journal._ready = True
    return RESTORED


def _keyed(journal, head):
    # Format 2 under this board's key (the head's key id): every MAC is
    # checked. Format 1, or another key (the link key was changed): only the
    # public chain can be; journal_boot holds the fault until a new journal.
    journal.fmt = jread.head_format(head)
    journal.mac = None
    journal.unkeyed = None
    if journal.fmt < 2:
        journal.unkeyed = "format 1 journal, written before the keyed chain"
        return
    mac = journal.keyed()
    if mac.key_id() != jread.head_key_id(head):
        journal.unkeyed = "journal written under another key than this board's"
        return
    journal.mac = mac


def _trailer(journal):
    return jr.TRAILER_SIZE if journal.fmt >= 2 else jr.TRAILER_SIZE_V1


def _verify_segments(journal, replay):
    names = []
    for name in os.listdir(journal.dir):
        if name[0] == "g":
            try:
                names.append((int(name[1:]), name))
            except ValueError:
                _fail(journal, CORRUPT, "stray file " + name + " in the journal")
    names.sort()
    buf = bytearray(2 * jr.MAX_RECORD)
    for i in range(len(names)):
        first, name = names[i]
        path = journal.dir + "/" + name
        with open(path, "rb") as f:
            n = f.readinto(buf)
            if n == 0 and i == len(names) - 1:
                # Created but power failed before its first flush: not data,
                # removed once everything else has verified.
                journal._empty_segment = path
                break
            try:
                seg_first, prev = jread.decode_segment_header(buf[:n])
            except ValueError:
                _fail(journal, CORRUPT, "segment " + name + " has no header", first)
            if seg_first != first:
                _fail(journal, CORRUPT, "segment " + name + " starts at " + str(seg_first), first)
            if i == 0:
                journal.hash = prev  # older segments were dropped (each drop is recorded)
                journal.seq = first - 1
            elif first != journal.seq + 1:
                _fail(
                    journal,
                    CHAIN,
                    "records " + str(journal.seq + 1) + " to " + str(first - 1) + " missing",
                    journal.seq + 1,
                )
            size = n
            pos = jr.SEGMENT_HEADER_SIZE
            while True:
                while pos < n:
                    if n - pos < jr.HEADER_SIZE + _trailer(journal) or n - pos < _length(buf, pos):
                        break  # the rest of this record is in the next read
                    pos += _accept(journal, buf, pos, replay)
                rest = n - pos
                buf[:rest] = buf[pos:n]
                got = f.readinto(memoryview(buf)[rest:])
                if not got:
                    if rest:
                        _fail(
                            journal,
                            CORRUPT,
                            "segment " + name + " ends inside record " + str(journal.seq + 1),
                            journal.seq + 1,
                        )
                    break
                size += got
                n = rest + got
                pos = 0
        journal._segments.append([first, journal.seq, size])


def _verify_slots(journal, replay):
    # Slot files hold one record each; those past the last segment, in
    # order from slot 0, are the records staged since the last flush.
    # Whether the first of them opens with the table state.
    last = journal.seq
    journal._batch_prev = journal.hash
    journal.staged = 0
    found = {}
    names = [name for name in os.listdir(journal.dir) if name[0] == "s"]
    try:
        names += [jr.ODD_DIR + "/" + name for name in os.listdir(journal.dir + "/" + jr.ODD_DIR)]
    except OSError:
        pass  # a journal whose start was cut before its odd slots' directory: no records
    for name in names:
        data = _read(journal, name)
        if not data:
            continue  # created, and power failed before its first record was written
        # Staging files are written whole, so even a stale one passes its CRC.
        if not jread.crc_ok(data, 0) or len(data) != _length(data, 0):
            _fail(journal, CORRUPT, "staging file " + name + " fails its CRC", jr.peek_seq(data, 0))
        seq = jr.peek_seq(data, 0)
        if seq > last:
            found[seq] = (name, data)
    # A gap here is a commit littlefs rolled back in one slots' directory
    # (a changed byte fails its CRC) while the other kept its later records.
    for k in range(len(found)):
        item = found.get(last + 1 + k)
        if item is None or item[0] != jr.slot_name(k):
            raise _failed(journal, CHAIN, "staged records out of order after " + str(journal.seq), journal.seq + 1)
        _accept(journal, item[1], 0, replay)
        journal.staged += 1
    first = found.get(last + 1)
    return first is not None and first[1][jr.HEADER_SIZE - 1] != 0


def _accept(journal, buf, pos, replay):
    try:
        r = jread.decode(buf, pos, journal.hash, journal.seq + 1, journal.fmt, journal.mac)
    except jread.RecordError as e:
        _fail(journal, CHAIN if e.chain else CORRUPT, str(e), e.seq)
    journal.seq = r.seq
    journal.hash = r.hash
    if r.kind == jr.DROP and len(r.payload) == 8:
        journal._dropped_upto = int.from_bytes(r.payload[4:8], "little")
    try:
        replay.add(r)
    except ValueError as e:
        _fail(journal, CORRUPT, "record " + str(r.seq) + ": " + str(e), r.seq)
    return r.size


class _Replay:
    # Rebuilds the table from the last state-bearing record and the rolls and
    # hand ends after it, kept as one byte each (0 = hand end) until the end;
    # and the PIN lockout from the wrong PINs (entry.Entry's rule: PIN_TRIES
    # in a row lock the PIN key, a good PIN clears the count).
    def __init__(self, table, base):
        self.table = table
        self.base = base
        self.state = None
        self.codes = bytearray()
        self.t = 0  # the last record's time
        self.pin_fails = 0
        self.pin_lock_t = None  # time of the wrong PIN that locked the PIN key
        self.wall = None  # (unix, t) of the last accepted clock set (arg 0)
        self.backs = []  # (t, seconds) of the sets that moved that clock back, the last day's
        # The last table event (roll, undo, hand end), the HOLD it raised and
        # whether a verified record (arg: the HOLD's seq, 16 bits) cleared it.
        self.event_seq = 0
        self.event_kind = 0
        self.verified = False
        self.held = 0
        self.marks = [0] * pt.WAGER_COUNT
        # The state and rolls up to the last roll, when a state record that is
        # no undo (a snapshot, a configuration) came after it: its HOLD is
        # judged by playing it again from there.
        self.before = None
        # Per progressive game, (count, roll) of its last keyings at one roll.
        self.prog = [None, None]  # type: list[tuple[int, int] | None]
        # A power cut can fall between a roll and its prog_hit records, or an
        # undo of it and its prog_void records; the app journals the missing
        # ones at power-up. The hits an undo may still reach: (depth, seq,
        # game, count), depth counting rolls and hand ends less undos; and the
        # hits the last undo took back that no prog_void names yet (seq, game, count).
        self.depth = 0
        self.hits = []
        self.voids_due = []

    def add(self, r):
        self.t = r.t
        kind = r.kind
        if kind == jr.ROLL or kind == jr.UNDO or kind == jr.END_HAND:
            self.event_seq = r.seq
            self.event_kind = kind
            self.before = None
            self.verified = False
            self._undo_depth(kind)
        elif kind == jr.VERIFIED:
            self.verified = r.arg == self.event_seq & 0xFFFF
        elif r.state and self.codes and self.codes[-1] and self.state is not None:
            self.before = (self.state, bytes(self.codes))
        if kind == jr.PROG_WAGER:
            self._prog_wager(r)
        elif kind == jr.PROG_HIT:
            self.hits.append((self.depth, r.seq, _game(r, "prog_hit"), r.arg))
        elif kind == jr.PROG_VOID:
            hit = _voided_seq(r)
            self.voids_due = [due for due in self.voids_due if due[0] != hit]
        if r.kind == jr.TIME and r.arg == 0 and len(r.payload) == 8:
            unix = int.from_bytes(r.payload, "little")
            wall = self.wall
            if wall is not None:  # how far back it set the clock the journal knew, as link_admin judged it
                known = wall[0] + ((r.t - wall[1]) & 0xFFFFFFFF) // 1000
                if unix < known:
                    self.backs = within_day(self.backs, r.t)
                    self.backs.append((r.t, known - unix))
            self.wall = (unix, r.t)
        if r.kind == jr.ERROR and r.arg == jr.ERR_WRONG_PIN:
            self.pin_fails += 1
            if self.pin_fails >= jr.PIN_TRIES:
                self.pin_fails = 0
                self.pin_lock_t = r.t
        elif r.kind == jr.SUPERVISOR_ON and r.arg == jr.VIA_PIN:
            self.pin_fails = 0
        if r.state:
            snapshot_read.decode(r.state)  # a bad snapshot is a fault found now, not at the end
            self.state = r.state
            self.codes = bytearray()
        elif r.kind == jr.ROLL:
            if not (1 <= r.arg >> 3 <= 6 and 1 <= r.arg & 7 <= 6):
                raise ValueError("roll " + str(r.arg) + " is not two dice")
            self.codes.append(r.arg)
        elif r.kind == jr.END_HAND:
            self.codes.append(0)
        elif r.kind in STATE_KINDS:
            raise ValueError("a " + jread.KIND_NAMES[r.kind] + " record without the table state")

    def _undo_depth(self, kind):
        hits = self.hits
        if kind == jr.UNDO:
            # It took back the event at this depth, and the hits that followed it.
            self.voids_due = [hit[1:] for hit in hits if hit[0] == self.depth]
            self.hits = [hit for hit in hits if hit[0] != self.depth]
            self.depth -= 1
            return
        self.depth += 1
        self.voids_due = []
        while hits and hits[0][0] <= self.depth - _UNDO_REACH:
            hits.pop(0)

    def _prog_wager(self, r):
        # Its payload, as table/progressive.payload writes it: {"game": "MEA", "roll": N}.
        text = r.payload.decode()
        game = 0 if '"MEA"' in text else 1 if '"FUP"' in text else -1
        at = text.find('"roll": ')
        if game < 0 or at < 0 or not text.endswith("}"):
            raise ValueError("a prog_wager record without its game and roll")
        roll = int(text[at + 8 : -1])
        last = self.prog[game]
        count = r.arg + (last[0] if last is not None and last[1] == roll else 0)
        self.prog[game] = (count, roll)

    def finish(self):
        table = self.table
        if self.state is None:
            raise ValueError("no table state in the journal")
        codes = self.codes
        if self.event_kind == jr.ROLL and not codes and self.before is not None:
            # The last roll's HOLD, from the state before it; then the state after.
            snapshot_read.loads(self.before[0], table, self.base)
            self._play(self.before[1])
            snapshot_read.loads(self.state, table, self.base)
            return
        snapshot_read.loads(self.state, table, self.base)
        self._play(codes)

    def _play(self, codes):
        table = self.table
        last = len(codes) - 1
        for i in range(len(codes)):
            code = codes[i]
            if code:
                points = table.fire_points
                table.roll(code >> 3, code & 7)
                if i == last:
                    self.held = hold.raised(table, points, self.marks)
            else:
                table.end_hand()

    def last_event(self):
        # What hold_state.HoldState.restore takes.
        if not self.event_seq:
            return None
        held = self.held if self.event_kind == jr.ROLL else 0
        return (self.event_seq, held, self.marks, bool(held) and self.verified)


def _game(r, kind):
    # A progressive record's game, from its JSON payload (table/progressive.payload).
    text = r.payload.decode()
    if '"MEA"' in text:
        return 0
    if '"FUP"' in text:
        return 1
    raise ValueError("a " + kind + " record without its game")


def _voided_seq(r):
    # The seq of the prog_hit a prog_void names: {"game": "MEA", "hit": N}.
    text = r.payload.decode()
    at = text.find('"hit": ')
    if at < 0 or not text.endswith("}"):
        raise ValueError("a prog_void record without its hit")
    return int(text[at + 7 : -1])


def _hex(data):
    return "".join("%02x" % b for b in data)


def _length(buf, pos):
    return buf[pos] | buf[pos + 1] << 8


def _fail(journal, fault, message, seq=None):
    raise _failed(journal, fault, message, seq)


def _failed(journal, fault, message, seq=None):
    # As Journal._fail: the journal refuses appends from now on.
    journal.fault = fault
    journal._ready = False
    return JournalError(fault, message, seq)


def _read(journal, name):
    with open(journal.dir + "/" + name, "rb") as f:
        return f.read()
