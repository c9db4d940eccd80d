# The journal's record and file formats, shared by the board and the host tools.
#
# A record (little-endian), format 2 (docs/journal.md):
#   u16 length of the whole record    u32 seq    u32 t (journal clock, ms)    u8 kind
#   u16 arg    u8 state length S      S bytes table snapshot (or none)
#   payload (opaque bytes, the rest)  8 bytes link    8 bytes MAC    u32 CRC32
# link = the first 8 bytes of H(seq) = sha256(H(seq - 1) + record up to the
# link); H before the first record = sha256(journal head file): the public
# chain, which anyone can check. MAC = the first 8 bytes of
# HMAC-SHA256(journal key, H(seq)): the keyed chain, which only a holder of the
# board's secret can extend -- H(seq) covers every record before it, so
# recomputing the public chain after changing a record leaves every later MAC
# wrong. The journal key is HMAC-SHA256(the board's link key, JOURNAL_KEY_INFO),
# derived on the board from link_key whenever it is needed and never sent over
# the link; a host holding the board's key file derives the same. CRC32 covers
# everything before it, so a torn record fails its CRC.
# Format 1 (journals written before the keyed chain) has no MAC; it is read
# (the public chain checked) so a supervisor can go on from its table in a
# keyed journal (docs/journal.md, "Format").
#
# This module writes records; reading them back (decode, crc_ok, decode_head,
# decode_segment_header, Record, RecordError, KIND_NAMES) is journal_read.py.
import struct
from binascii import crc32
from hashlib import sha256

from micropython import const

# Kinds 1-8 are the app's events (crapsboard.table.entry ACT_*); the rest are the journal's.
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
VERIFIED = const(22)  # a HOLD cleared (the link's `verified`); arg: the HOLD's seq; payload: JSON alert, by, seq
PROG_WAGER = const(23)  # progressive wagers keyed; arg: their count; payload: JSON game, roll (docs/progressive.md)
PROG_HIT = const(24)  # a progressive top award; arg: the winning wagers; payload: JSON game
PROG_VOID = const(25)  # an undo took a prog_hit back; arg: its wagers; payload: JSON game, hit (its seq)

# entry.Entry's PIN rule, which the restore rebuilds (tests/test_journal_pin_lockout.py ties them).
ERR_WRONG_PIN = const(7)  # entry.ERR_WRONG_PIN
VIA_PIN = const(1)  # entry.VIA_PIN
PIN_TRIES = const(3)  # entry.PIN_TRIES
PIN_LOCK_MS = const(60000)  # entry.LOCK_MS

HEADER = "<HIIBHB"
HEADER_SIZE = const(14)
TRAILER_SIZE = const(20)  # link + MAC + CRC (format 2)
TRAILER_SIZE_V1 = const(12)  # link + CRC (format 1)
LINK_SIZE = const(8)
MAC_SIZE = const(8)
MAX_RECORD = const(1024)
FORMAT = const(2)  # the head's format byte of the journals this firmware writes
JOURNAL_KEY_INFO = b"crapsboard journal v2"  # the journal key = HMAC-SHA256(link key, this)
KEY_ID_INFO = b"crapsboard journal key id"  # the head's key id = first 8 bytes of HMAC(journal key, this)

# The journal head file: magic, format, board id (length + bytes), journal id,
# t; format 2 adds the key id (8 bytes), so a host can tell which key a journal
# was written under without any record.
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


class Mac:
    """HMAC-SHA256 under one journal key, its padded keys computed once (the
    restore checks a MAC per record)."""

    def __init__(self, key):
        # RFC 2104's padded keys (hmac256._pads), here so the board's resident
        # journal code does not keep hmac256 loaded; a journal key is 32 bytes.
        key = key + bytes(64 - len(key))
        self.inner = bytes([b ^ 0x36 for b in key])
        self.outer = bytes([b ^ 0x5C for b in key])

    def digest(self, data):
        """The whole HMAC-SHA256 of `data` (32 bytes)."""
        h = sha256(self.inner)
        h.update(data)
        o = sha256(self.outer)
        o.update(h.digest())
        return o.digest()

    def tag(self, data):
        return self.digest(data)[:MAC_SIZE]

    def key_id(self):
        return self.tag(KEY_ID_INFO)


def encode(prev_hash, seq, t, kind, arg, state=b"", payload=b"", mac=None):
    """(record bytes, its chain hash) for one event after `prev_hash`. `mac`:
    a Mac (format 2, the MAC computed), the MAC's 8 bytes as a host received
    them (format 2), or None (format 1, no MAC)."""
    n = HEADER_SIZE + len(state) + len(payload) + (TRAILER_SIZE if mac is not None else TRAILER_SIZE_V1)
    if n > MAX_RECORD or len(state) > 255:
        raise ValueError("journal record too long")
    body = struct.pack(HEADER, n, seq, t, kind, arg, len(state)) + state + payload
    h = sha256(prev_hash)
    h.update(body)
    digest = h.digest()
    record = body + digest[:LINK_SIZE]
    if mac is not None:
        record += mac if isinstance(mac, bytes) else mac.tag(digest)
    return record + struct.pack("<I", crc32(record) & 0xFFFFFFFF), digest


def peek_seq(buf, pos):
    """The seq field of the record at buf[pos:] without checking it (-1 if too short)."""
    if len(buf) - pos < HEADER_SIZE:
        return -1
    return struct.unpack_from("<I", buf, pos + 2)[0]


def encode_head(board_id, journal_id, t, key_id=None):
    """A journal head file: format 2 with the key id, format 1 without (tests of old journals)."""
    fmt = 1 if key_id is None else FORMAT
    head = HEAD_MAGIC + struct.pack("<BB", fmt, len(board_id)) + board_id + struct.pack("<II", journal_id, t)
    return head if key_id is None else head + key_id


def genesis(head_bytes):
    """The chain hash before a journal's first record."""
    return sha256(head_bytes).digest()


def encode_segment_header(first_seq, prev_hash):
    return SEGMENT_MAGIC + struct.pack("<I", first_seq) + prev_hash
