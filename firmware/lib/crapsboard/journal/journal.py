# The journal: every table event made durable on flash before it is shown.
#
# littlefs copies a file's tail block on every flushed append past 128 bytes
# (about one 4 KiB erase per record), but rewrites a small inline file with a
# single atomic metadata commit. So an event goes into its own small staging
# file (journal/s0 .. s{batch-1}, one record each, rewritten in place; the odd
# ones in journal/odd/, a second metadata pair) and is acknowledged when that
# file is closed; every `batch` records are appended
# to the current segment file (journal/g<first seq>) in one flush. Segments
# are rotated at `segment_bytes`, each starting with a table snapshot, and
# the oldest is removed (a DROP record first) beyond `max_segments`, on a
# board on a floor only once the recorder's receipt covers every record in it.
# Record format and chain: journal_record.py. Design and figures: docs/journal.md.
import os

from micropython import const

from crapsboard.base import files, ticks
from crapsboard.journal import journal_record as jr
from crapsboard.journal import journal_restore, snapshot
from crapsboard.journal.journal_codes import (  # noqa: F401 (re-exported: jn.RESTORED, jn.JournalError, ...)
    CHAIN,
    CORRUPT,
    DIR,
    FAULT_NAMES,
    FOREIGN,
    FULL,
    HEAD,
    NONE,
    RESTORED,
    STATE_KINDS,
    UNKEYED,
    JournalError,
    within_day,
)

SLOT_MAX = const(128)  # littlefs keeps a file this small inline in its directory

_ENOSPC = const(28)


class Journal:
    def __init__(self, root, board_id, batch=32, segment_bytes=32768, max_segments=24, key=None):
        """`key`: the board's link key (bytes; None on a board not provisioned
        yet): a new journal is keyed with journal_record.journal_key(key)."""
        self.dir = root + "/" + DIR if root else DIR
        self.board_id = board_id
        self.link_key = key
        self.fmt = jr.FORMAT  # the format of the journal mounted (1: an old one, restored, not extended)
        self.mac = None  # journal_record.Mac under this board's journal key (set by start_new and mount)
        # Set by mount when the journal verifies only by its public chain (format
        # 1, or written under another key): why; the board then holds the fault
        # UNKEYED until a supervisor starts a new journal (journal_boot).
        self.unkeyed = None
        self.segment_bytes = segment_bytes
        self.fault = 0
        self.journal_id = 0
        self.seq = 0  # last record written
        self.hash = b""  # chain hash after it
        # Records in the staging files s0.., not yet in a segment: only their
        # number is held; a flush reads them back (up to `batch` records of
        # heap the board would otherwise hold; docs/board.md, Memory).
        self.staged = 0
        self._segments = []  # [first seq, last seq, bytes] oldest first
        self._rotate = True  # the next flush starts a new segment
        self._dropped_upto = 0
        self._batch_prev = b""  # chain hash before the first staged record
        self._empty_segment = None
        self._ready = False
        self.batch = batch
        self.max_segments = max_segments
        # The journal clock (each record's t): ms since the journal started,
        # counting only time the board was on; `_ticks` is the board's tick
        # count at the last record (None: the next record takes `clock` as it is).
        self.clock = 0
        self._ticks = None
        # Set by mount: wrong PINs in a row (below the lockout) and the ms of
        # a PIN lockout still to run, for the app's entry (crapsboard/table/entry.py).
        self.pin_fails = 0
        self.pin_lock_ms = 0
        self.on_append = None  # on_append(record, chain hash before it): the link's pushed events
        # The last wall clock set (unix seconds, journal clock t), restored from
        # the last accepted time record: the link refuses a clock set back.
        self.wall = None
        # (t, seconds) of each accepted set that moved that clock back within
        # the last day of the journal clock (journal_codes.within_day), restored
        # from the time records: the link's daily bound survives a power cycle.
        self.backs = []
        # The floor's recorder holds every record of this journal up to
        # `received` (its receipt, checked by the link's `received`); a board
        # that has seen a receipt since power-up (`on_floor`) drops a segment
        # only once every record in it is received, else keeps it (and when the
        # flash is full, the FULL fault stops play rather than lose a record).
        self.received = 0
        self.on_floor = False
        # Set by mount: (seq, wagers, marks, verified) of the table's last
        # event, the HOLD it raised and whether a `verified` record cleared it
        # (table/hold_state.py); None when the journal holds no table event.
        self.hold = None
        # Per progressive game, (count, roll) of the wagers last keyed (table/progressive.py), or None.
        self.prog = [None, None]  # type: list[tuple[int, int] | None]
        # Set by mount: the games of the prog_hit records after the last table
        # event, and when it is an undo, the hits it took back that no
        # prog_void names yet, (seq, game, count) each (table/app.py journals them).
        self.hits_after = []
        self.voids_due = []

    def mount(self, table, base=None):
        """Verify the journal and restore `table` to the state after its last
        record. NONE when there is no journal; RESTORED; JournalError on a
        fault (nothing is written then, and appends are refused). `base`: the
        board's configuration, for the keys a snapshot does not hold (the PIN).
        The verifying code is journal_restore.py."""
        return journal_restore.mount(self, table, base)

    # ---- a new journal -------------------------------------------------

    def start_new(self, table, t, journal_id, reason=0):
        """Begin a fresh journal for `table` (a supervisor's decision, or first
        use). The previous journal, if any, is kept as journal.old (replacing
        an older one); the JOURNAL_START record names it."""
        previous = b""
        self._rebase(t)
        old = self.dir + ".old"
        if files.exists(self.dir):
            _remove_tree(old)
            os.rename(self.dir, old)
            previous = self.journal_id.to_bytes(4, "little") + self.seq.to_bytes(4, "little") + self.hash[:8]
        os.mkdir(self.dir)
        mac = self.keyed()
        head = jr.encode_head(self.board_id, journal_id, t, mac.key_id())
        self._write(HEAD, head)
        os.mkdir(self.dir + "/" + jr.ODD_DIR)
        self.fmt = jr.FORMAT
        self.mac = mac
        self.unkeyed = None
        self.journal_id = journal_id
        self.hash = jr.genesis(head)
        self.seq = 0
        self.fault = 0
        self.staged = 0
        self._segments = []
        self._rotate = True
        self._dropped_upto = 0
        self.received = 0
        self._ready = True
        self.clock = 0
        self._ticks = None
        self.append(jr.JOURNAL_START, reason, t, table, previous)

    def _rebase(self, now_ms):
        # The new journal's clock starts at 0 at `now_ms`: the wall clock known
        # and the day's backward sets are carried over onto it (the wall rounded
        # down to the second: never ahead of the true time).
        if not self.seq:
            return
        clock = self.clock
        if self._ticks is not None:
            clock = (clock + ((now_ms - self._ticks) & ticks.MASK)) & 0xFFFFFFFF
        if self.wall is not None:
            self.wall = (self.wall[0] + ((clock - self.wall[1]) & 0xFFFFFFFF) // 1000, 0)
        self.backs = [((b[0] - clock) & 0xFFFFFFFF, b[1]) for b in within_day(self.backs, clock)]

    # ---- appending -------------------------------------------------------

    def append(self, kind, arg, now_ms, table, payload=b""):
        """Make one event durable: when this returns the event may be shown.
        `now_ms` is the board's tick count (wrapping like time.ticks_ms; the
        record gets the journal clock, see `_time`). `table` is the table
        after the event (its state goes into undo, configuration and snapshot
        records). Costs one small metadata commit; call `maintain` once the
        event is shown."""
        if not self._ready:
            raise JournalError(self.fault or CORRUPT, "journal not mounted")
        if self.mac is None:
            raise JournalError(UNKEYED, "a journal this board cannot verify is never extended: start a new one")
        seq = self.seq + 1
        state = snapshot.dumps(table, seq) if kind in STATE_KINDS else b""
        record, digest = jr.encode(self.hash, seq, self._time(now_ms), kind, arg, state, payload, self.mac)
        try:
            if self.staged >= self.batch:
                self._flush()  # maintain was not called: make room first
            if not self.staged:
                self._batch_prev = self.hash  # a new segment's header starts the chain here
            if len(record) <= SLOT_MAX:
                self._write(jr.slot_name(self.staged), record)
                self.staged += 1
            else:
                self._flush(record)  # too big for a staging file: straight into the segment with the batch
        except OSError as e:
            self._os_error(e, seq)
        prev = self.hash
        self.seq = seq
        self.hash = digest
        if self.on_append is not None:
            self.on_append(record, prev)

    def keyed(self):
        """A journal_record.Mac under this board's journal key, derived from
        its link key (never stored: a rewrite must know the link key)."""
        from crapsboard.base.hmac256 import hmac_sha256  # as journal_read.journal_key, without loading that module

        return jr.Mac(hmac_sha256(self.link_key or b"", jr.JOURNAL_KEY_INFO))

    def maintain(self, table, t):
        """The slow part, after the event is shown: every `batch` records the
        staged ones go into the segment (about one 4 KiB erase); segments are
        rotated and the oldest dropped. `table` is the table now."""
        if not self._ready:
            return
        try:
            if self.staged >= self.batch:
                self._flush()
            while len(self._segments) > self.max_segments:
                first, last, _ = self._segments[0]
                if self.on_floor and last > self.received:
                    break  # the floor has not received all of it: kept
                if last > self._dropped_upto:
                    self.append(jr.DROP, 0, t, table, first.to_bytes(4, "little") + last.to_bytes(4, "little"))
                    self._dropped_upto = last
                os.remove(self.dir + "/g" + str(first))
                self._segments.pop(0)
            if self._segments and self._segments[-1][2] >= self.segment_bytes and not self._rotate:
                # The new segment will open with the table state, so it
                # restores on its own once older segments are dropped.
                if self.staged:
                    self._flush()
                self._rotate = True
                self.append(jr.SNAPSHOT, 0, t, table)
        except OSError as e:
            self._os_error(e, self.seq + 1)

    def _time(self, now_ms):
        # The clock moves on by the ticks since the last record, taken modulo
        # the tick period (2**30 ms, 12.4 days), so it never runs backwards
        # and a tick wrap costs nothing; after a restart it carries on from
        # the last record (mount), so the time the board was off is not counted.
        # Stored as 32 bits: the host unwraps it in seq order (host_tools log).
        if self._ticks is not None:
            self.clock = (self.clock + ((now_ms - self._ticks) & ticks.MASK)) & 0xFFFFFFFF
        self._ticks = now_ms
        return self.clock

    def _os_error(self, e, seq):
        if e.args and e.args[0] == _ENOSPC:
            self._fail(FULL, "no room for record " + str(seq), seq)
        raise e

    def _flush(self, extra=b""):
        # The staged records, then `extra`, in one write: the segment gains
        # the whole batch or, if power fails, none of it.
        data = b"".join([self._read(jr.slot_name(k)) for k in range(self.staged)]) + extra
        first = jr.peek_seq(data, 0)
        if self._rotate or not self._segments:
            self._write("g" + str(first), jr.encode_segment_header(first, self._batch_prev) + data)
            self._segments.append([first, first - 1, jr.SEGMENT_HEADER_SIZE])
            self._rotate = False
        else:
            with open(self.dir + "/g" + str(self._segments[-1][0]), "ab") as f:
                f.write(data)
        segment = self._segments[-1]
        segment[1] = first + self.staged - (0 if extra else 1)
        segment[2] += len(data)
        self.staged = 0

    # ---- files -----------------------------------------------------------

    def _write(self, name, data):
        # One open-write-close: littlefs commits at close, so the file is all
        # old or all new, and no handle stays open across a rename or remove.
        with open(self.dir + "/" + name, "wb") as f:
            f.write(data)

    def _read(self, name):
        with open(self.dir + "/" + name, "rb") as f:
            return f.read()

    def _fail(self, fault, message, seq=None):
        self.fault = fault
        self._ready = False
        raise JournalError(fault, message, seq)

    def segments(self):
        """[first seq, last seq, bytes] of each segment, oldest first."""
        return [list(s) for s in self._segments]


def _remove_tree(path):
    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        if name == jr.ODD_DIR:
            _remove_tree(path + "/" + name)
        else:
            os.remove(path + "/" + name)
    os.rmdir(path)
