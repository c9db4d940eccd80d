# The journal's record and file formats, shared by the board and the host tools.
#
# A record (little-endian):
#   u16 length of the whole record    u32 seq    u32 t (journal clock, ms)    u8 kind
#   u16 arg    u8 state length S      S bytes table snapshot (or none)
#   payload (opaque bytes, the rest)  8 bytes link    u32 CRC32
# link = the first 8 bytes of H(seq) = sha256(H(seq - 1) + record up to the
# link); H before the first record = sha256(journal head file). CRC32 covers
# everything before it. So a torn or altered record fails its CRC, and a record
# removed, reordered or rewritten (CRC recomputed) breaks the chain from there.
import struct
from binascii import crc32
from hashlib import sha256

from micropython import const

# Kinds 1-8 are the app's events (crapsboard.entry ACT_*); the rest are the journal's.
ROLL = const(1)  # arg: die1 * 8 + die2
UNDO = const(2)  # carries the state after the undo
END_HAND = const(3)
ERROR = const(5)  # journalled for a wrong PIN only (arg ERR_WRONG_PIN): the PIN lockout survives a restart
SUPERVISOR_ON = const(6)  # arg: entry.VIA_KEY or VIA_PIN
CONFIG = const(16)  # a configuration change; carries the state after it
RESTART = const(17)  # arg: reset cause
JOURNAL_START = const(18)  # carries the fresh state; payload: the journal it replaces
SNAPSHOT = const(19)  # the first record of every segment
DROP = const(20)  # payload: u32 first, u32 last seq of the segment removed
TIME = const(21)  # the wall clock set over the link; payload: u64 unix seconds at t

KIND_NAMES = {
    1: "roll",
    2: "undo",
    3: "end_hand",
    4: "lamp_test",
    5: "error",
    6: "supervisor_on",
    7: "supervisor_off",
    8: "clear",
    16: "config",
    17: "restart",
    18: "journal_start",
    19: "snapshot",
    20: "drop",
    21: "time",
}

# entry.Entry's PIN rule, which the restore rebuilds (tests/test_journal_pin_lockout.py ties them).
ERR_WRONG_PIN = const(7)  # entry.ERR_WRONG_PIN
VIA_PIN = const(1)  # entry.VIA_PIN
PIN_TRIES = const(3)  # entry.PIN_TRIES
PIN_LOCK_MS = const(60000)  # entry.LOCK_MS

HEADER = "<HIIBHB"
HEADER_SIZE = const(14)
TRAILER_SIZE = const(12)  # link + CRC
LINK_SIZE = const(8)
MAX_RECORD = const(1024)

# The journal head file: magic, format, board id (length + bytes), journal id, t.
HEAD_MAGIC = b"CBJ1"
# A segment file: magic, u32 first seq, 32-byte chain hash before its first record.
SEGMENT_MAGIC = b"CBS1"
SEGMENT_HEADER_SIZE = const(40)


# Staging slot k's file in the journal directory: the odd slots live in a
# subdirectory, a littlefs metadata pair of their own, so the staged records
# alternate between two pairs and a commit littlefs rolls back in one leaves a
# gap in seq against the other (docs/journal.md, "A damaged staged record").
ODD_DIR = "odd"


def slot_name(k):
    return ("s" if k % 2 == 0 else "odd/s") + str(k)


class RecordError(ValueError):
    """A record that fails its checks; `seq` is its sequence number when known,
    `chain` is True when the record is whole but missing or not the next link."""

    def __init__(self, seq, message, chain=False):
        super().__init__(message)
        self.seq = seq
        self.chain = chain


def encode(prev_hash, seq, t, kind, arg, state=b"", payload=b""):
    """(record bytes, its chain hash) for one event after `prev_hash`."""
    n = HEADER_SIZE + len(state) + len(payload) + TRAILER_SIZE
    if n > MAX_RECORD or len(state) > 255:
        raise ValueError("journal record too long")
    body = struct.pack(HEADER, n, seq, t, kind, arg, len(state)) + state + payload
    h = sha256(prev_hash)
    h.update(body)
    digest = h.digest()
    record = body + digest[:LINK_SIZE]
    return record + struct.pack("<I", crc32(record) & 0xFFFFFFFF), digest


class Record:
    __slots__ = ("seq", "t", "kind", "arg", "state", "payload", "hash", "size")


def decode(buf, pos, prev_hash, expect_seq):
    """The Record at buf[pos:], checked against its CRC and the chain after
    `prev_hash`; RecordError naming the seq at fault otherwise."""
    if len(buf) - pos < HEADER_SIZE + TRAILER_SIZE:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " cut short")
    n, seq, t, kind, arg, slen = struct.unpack_from(HEADER, buf, pos)
    if n < HEADER_SIZE + slen + TRAILER_SIZE or n > MAX_RECORD or pos + n > len(buf):
        raise RecordError(expect_seq, "record " + str(expect_seq) + " has a bad length")
    mv = memoryview(buf)
    crc = struct.unpack_from("<I", buf, pos + n - 4)[0]
    if crc32(mv[pos : pos + n - 4]) & 0xFFFFFFFF != crc:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " fails its CRC")
    if seq != expect_seq:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " is missing (found " + str(seq) + ")", True)
    body_end = pos + n - TRAILER_SIZE
    h = sha256(prev_hash)
    h.update(mv[pos:body_end])
    digest = h.digest()
    if digest[:LINK_SIZE] != bytes(mv[body_end : body_end + LINK_SIZE]):
        raise RecordError(seq, "record " + str(seq) + " breaks the hash chain", True)
    r = Record()
    r.seq = seq
    r.t = t
    r.kind = kind
    r.arg = arg
    start = pos + HEADER_SIZE
    r.state = bytes(mv[start : start + slen])
    r.payload = bytes(mv[start + slen : body_end])
    r.hash = digest
    r.size = n
    return r


def crc_ok(buf, pos):
    """The record at buf[pos:] is whole and passes its CRC (chain not checked)."""
    if len(buf) - pos < HEADER_SIZE + TRAILER_SIZE:
        return False
    n = buf[pos] | buf[pos + 1] << 8
    if n < HEADER_SIZE + TRAILER_SIZE or pos + n > len(buf):
        return False
    crc = struct.unpack_from("<I", buf, pos + n - 4)[0]
    return crc32(memoryview(buf)[pos : pos + n - 4]) & 0xFFFFFFFF == crc


def peek_seq(buf, pos):
    """The seq field of the record at buf[pos:] without checking it (-1 if too short)."""
    if len(buf) - pos < HEADER_SIZE:
        return -1
    return struct.unpack_from("<I", buf, pos + 2)[0]


def encode_head(board_id, journal_id, t):
    return HEAD_MAGIC + struct.pack("<BB", 1, len(board_id)) + board_id + struct.pack("<II", journal_id, t)


def decode_head(data):
    """(board_id, journal_id, t) of a journal head file; ValueError when it is not one."""
    if len(data) < 6 or data[:4] != HEAD_MAGIC or data[4] != 1:
        raise ValueError("not a journal head")
    n = data[5]
    if len(data) != 6 + n + 8:
        raise ValueError("journal head has a bad length")
    journal_id, t = struct.unpack_from("<II", data, 6 + n)
    return bytes(data[6 : 6 + n]), journal_id, t


def genesis(head_bytes):
    """The chain hash before a journal's first record."""
    return sha256(head_bytes).digest()


def encode_segment_header(first_seq, prev_hash):
    return SEGMENT_MAGIC + struct.pack("<I", first_seq) + prev_hash


def decode_segment_header(data):
    """(first_seq, chain hash before it); ValueError when it is not a segment header."""
    if len(data) < SEGMENT_HEADER_SIZE or data[:4] != SEGMENT_MAGIC:
        raise ValueError("not a journal segment")
    return struct.unpack_from("<I", data, 4)[0], bytes(data[8:SEGMENT_HEADER_SIZE])
