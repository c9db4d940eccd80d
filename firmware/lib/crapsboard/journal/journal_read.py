# Reading the journal's records and files back: the checks of the format
# in journal_record.py (record, head file, segment header). Used at power-up by
# journal_restore.py, by the link's `events` and on the desktop by the host tools.
import struct
from binascii import crc32
from hashlib import sha256

from crapsboard.journal.journal_record import (
    FORMAT,
    HEAD_MAGIC,
    HEADER,
    HEADER_SIZE,
    JOURNAL_KEY_INFO,
    LINK_SIZE,
    MAC_SIZE,
    MAX_RECORD,
    SEGMENT_HEADER_SIZE,
    SEGMENT_MAGIC,
    TRAILER_SIZE,
    TRAILER_SIZE_V1,
)

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
    22: "verified",
    23: "prog_wager",
    24: "prog_hit",
    25: "prog_void",
}


class RecordError(ValueError):
    """A record that fails its checks; `seq` is its sequence number when known,
    `chain` is True when the record is whole but missing or not the next link."""

    def __init__(self, seq, message, chain=False):
        super().__init__(message)
        self.seq = seq
        self.chain = chain


class Record:
    __slots__ = ("seq", "t", "kind", "arg", "state", "payload", "hash", "size", "mac")


def decode(buf, pos, prev_hash, expect_seq, fmt=FORMAT, mac=None):
    """The Record at buf[pos:], checked against its CRC and the chain after
    `prev_hash`; RecordError naming the seq at fault otherwise. `fmt`: the
    journal's format (its head's); `mac`: a journal_record.Mac to check the
    keyed chain with (format 2), or None to check the public chain only."""
    trailer = TRAILER_SIZE if fmt >= 2 else TRAILER_SIZE_V1
    if len(buf) - pos < HEADER_SIZE + trailer:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " cut short")
    n, seq, t, kind, arg, slen = struct.unpack_from(HEADER, buf, pos)
    if n < HEADER_SIZE + slen + trailer or n > MAX_RECORD or pos + n > len(buf):
        raise RecordError(expect_seq, "record " + str(expect_seq) + " has a bad length")
    mv = memoryview(buf)
    crc = struct.unpack_from("<I", buf, pos + n - 4)[0]
    if crc32(mv[pos : pos + n - 4]) & 0xFFFFFFFF != crc:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " fails its CRC")
    if seq != expect_seq:
        raise RecordError(expect_seq, "record " + str(expect_seq) + " is missing (found " + str(seq) + ")", True)
    body_end = pos + n - trailer
    h = sha256(prev_hash)
    h.update(mv[pos:body_end])
    digest = h.digest()
    if digest[:LINK_SIZE] != bytes(mv[body_end : body_end + LINK_SIZE]):
        raise RecordError(seq, "record " + str(seq) + " breaks the hash chain", True)
    tag = b""
    if fmt >= 2:
        tag = bytes(mv[body_end + LINK_SIZE : body_end + LINK_SIZE + MAC_SIZE])
        if mac is not None and mac.tag(digest) != tag:
            raise RecordError(seq, "record " + str(seq) + " fails its MAC: not written by this board's key", True)
    r = Record()
    r.mac = tag
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
    if len(buf) - pos < HEADER_SIZE + TRAILER_SIZE_V1:
        return False
    n = buf[pos] | buf[pos + 1] << 8
    if n < HEADER_SIZE + TRAILER_SIZE_V1 or pos + n > len(buf):
        return False
    crc = struct.unpack_from("<I", buf, pos + n - 4)[0]
    return crc32(memoryview(buf)[pos : pos + n - 4]) & 0xFFFFFFFF == crc


def head_format(data):
    """The format (1 or 2) of a journal head file; ValueError when it is not one."""
    if len(data) < 6 or data[:4] != HEAD_MAGIC or data[4] not in (1, FORMAT):
        raise ValueError("not a journal head")
    return data[4]


def head_key_id(data):
    """The key id (8 bytes) a format 2 head names; None for format 1."""
    return bytes(data[-8:]) if head_format(data) >= 2 else None


def decode_head(data):
    """(board_id, journal_id, t) of a journal head file; ValueError when it is not one."""
    fmt = head_format(data)
    n = data[5]
    if len(data) != 6 + n + 8 + (8 if fmt >= 2 else 0):
        raise ValueError("journal head has a bad length")
    journal_id, t = struct.unpack_from("<II", data, 6 + n)
    return bytes(data[6 : 6 + n]), journal_id, t


def decode_segment_header(data):
    """(first_seq, chain hash before it); ValueError when it is not a segment header."""
    if len(data) < SEGMENT_HEADER_SIZE or data[:4] != SEGMENT_MAGIC:
        raise ValueError("not a journal segment")
    return struct.unpack_from("<I", data, 4)[0], bytes(data[8:SEGMENT_HEADER_SIZE])


def journal_key(link_key):
    """The journal key of a board whose link key is `link_key` (bytes, or None:
    a board not provisioned yet, whose keyed chain proves nothing). Reached as
    journal_record.journal_key; needed only to start or mount a journal."""
    from crapsboard.base.hmac256 import hmac_sha256

    return hmac_sha256(link_key or b"", JOURNAL_KEY_INFO)


def receipt_text(board_hex, journal_id, seq, chain_hex):
    """What a recorder's receipt signs (hex HMAC-SHA256 under the receipt key):
    the floor holds every record of the journal up to `seq`, chain hash `chain_hex`."""
    return ("crapsboard receipt %s %d %d %s" % (board_hex, journal_id, seq, chain_hex)).encode()


def signed_head_text(board_hex, journal_id, seq, chain_hex):
    """What hello's `head` signs (its tag: hex HMAC-SHA256 under the journal
    key): the journal's newest record and chain hash, so a host that saw a
    later one can tell the journal was truncated or rolled back."""
    return ("crapsboard head %s %d %d %s" % (board_hex, journal_id, seq, chain_hex)).encode()
