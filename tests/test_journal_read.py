"""journal_read.py: the reader's checks, edge by edge (the mutants of
the journal reader), each against what docs/journal.md says."""

import os
import re
import struct
from binascii import crc32

import pytest

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from sim.paths import ROOT

# docs/journal.md spells "config" records as "configuration" in its kind list.
_DOC_SPELLING = {"configuration": "config"}


def documented_kinds():
    with open(os.path.join(ROOT, "docs", "journal.md"), encoding="utf-8") as f:
        line = next(x for x in f if x.startswith("| 1 | kind: "))
    pairs = re.findall(r"(\d+) ([a-z][a-z ]*?)(?= \(|,|;| \|)", line[len("| 1 | kind: ") :])
    return {int(code): _DOC_SPELLING.get(name, name.replace(" ", "_")) for code, name in pairs}


def test_every_record_kind_has_the_name_docs_journal_md_gives_it():
    kinds = documented_kinds()
    assert sorted(kinds) == [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]
    assert kinds[4] == "lamp_test" and kinds[21] == "time" and kinds[24] == "prog_hit" and kinds[25] == "prog_void"
    assert jread.KIND_NAMES == kinds


# ---- records (docs/journal.md, "Record"): 14-byte header, state, payload,
# then the 8-byte chain link, the 8-byte MAC (format 2 only) and the CRC-32.

PREV = bytes(range(32))
MAC = jr.Mac(bytes(32))


def with_crc(record_without_crc):
    return record_without_crc + struct.pack("<I", crc32(record_without_crc) & 0xFFFFFFFF)


def refused(buf, words, fmt=jr.FORMAT, mac=MAC, seq=5, pos=0):
    with pytest.raises(jread.RecordError) as e:
        jread.decode(buf, pos, PREV, seq, fmt, mac)
    assert words in str(e.value), str(e.value)
    return e.value


def test_the_sizes_are_the_documented_ones():
    assert (jr.HEADER_SIZE, jr.TRAILER_SIZE, jr.TRAILER_SIZE_V1, jr.MAX_RECORD) == (14, 20, 12, 1024)


@pytest.mark.parametrize("fmt, size", [(2, 34), (1, 26)])
def test_the_smallest_record_alone_is_read_whole(fmt, size):
    rec, digest = jr.encode(PREV, 5, 1234, jr.END_HAND, 0, mac=MAC if fmt == 2 else None)
    assert len(rec) == size
    r = jread.decode(rec, 0, PREV, 5, fmt, MAC if fmt == 2 else None)
    assert (r.seq, r.t, r.kind, r.arg, r.state, r.payload, r.hash, r.size) == (5, 1234, 3, 0, b"", b"", digest, size)
    assert r.mac == (rec[22:30] if fmt == 2 else b"")
    assert jread.crc_ok(rec, 0)
    refused(rec[:-1], "record 5 cut short", fmt, None)
    assert not jread.crc_ok(rec[:-1], 0)


def test_a_record_cut_short_after_other_bytes_is_cut_short_not_a_crash():
    """What is left from `pos` counts, not the buffer's length: a record cut
    anywhere in its first 34 bytes is "cut short" (never a struct error)."""
    rec, _ = jr.encode(PREV, 5, 0, jr.END_HAND, 0, mac=MAC)
    for before, kept in ((20, 20), (30, 10), (3, 33)):
        refused(bytes(before) + rec[:kept], "record 5 cut short", pos=before)
        assert not jread.crc_ok(bytes(before) + rec[:kept], before)


def test_state_payload_and_fields_come_back_as_written_after_other_bytes():
    rec, digest = jr.encode(PREV, 70000, 2**32 - 1, jr.CONFIG, 0xFFFF, state=b"STATE", payload=b"pay", mac=MAC)
    buf = b"xyz" + rec + b"tail"
    r = jread.decode(buf, 3, PREV, 70000, jr.FORMAT, MAC)
    assert (r.seq, r.t, r.kind, r.arg, r.state, r.payload, r.size) == (
        70000,
        2**32 - 1,
        16,
        0xFFFF,
        b"STATE",
        b"pay",
        len(rec),
    )
    assert r.hash == digest and len(rec) == 14 + 5 + 3 + 20
    assert jread.crc_ok(buf, 3) and not jread.crc_ok(buf, 2)


def test_a_record_of_max_record_bytes_is_read_and_one_byte_more_is_a_bad_length():
    payload = bytes(jr.MAX_RECORD - 34)
    rec, _ = jr.encode(PREV, 5, 0, jr.DROP, 0, payload=payload, mac=MAC)
    assert len(rec) == 1024 and jread.decode(rec, 0, PREV, 5, 2, MAC).payload == payload
    assert jread.crc_ok(rec, 0)  # its length field's high byte counts (1024 = 0x0400)
    body = struct.pack(jr.HEADER, 1025, 5, 0, jr.DROP, 0, 0) + bytes(1025 - 14 - 4)
    refused(with_crc(body), "record 5 has a bad length")


def test_a_length_below_header_state_and_trailer_is_a_bad_length():
    # slen 3 claimed in a record that holds 34 bytes: header + 3 + trailer is 37.
    body = struct.pack(jr.HEADER, 34, 5, 0, jr.CONFIG, 0, 3) + bytes(34 - 14 - 4)
    refused(with_crc(body), "record 5 has a bad length")
    # n one below the smallest record, of a buffer long enough for it
    body = struct.pack(jr.HEADER, 33, 5, 0, jr.END_HAND, 0, 0) + bytes(33 - 14 - 4)
    refused(with_crc(body) + b"\0", "record 5 has a bad length")


def test_a_record_cut_inside_its_payload_is_a_bad_length():
    rec, _ = jr.encode(PREV, 5, 0, jr.DROP, 0, payload=bytes(8), mac=MAC)
    refused(rec[:-1], "record 5 has a bad length")
    assert not jread.crc_ok(rec[:-1], 0)


def test_crc_link_mac_and_seq_faults_are_told_apart():
    rec, _ = jr.encode(PREV, 5, 0, jr.END_HAND, 0, mac=MAC)
    flipped = rec[:6] + bytes([rec[6] ^ 1]) + rec[7:]
    e = refused(flipped, "record 5 fails its CRC")
    assert (e.seq, e.chain) == (5, False)
    assert not jread.crc_ok(flipped, 0)
    e = refused(rec, "record 6 is missing (found 5)", seq=6)
    assert (e.seq, e.chain) == (6, True)
    e = refused(with_crc(rec[:14] + bytes(8) + rec[22:-4]), "record 5 breaks the hash chain")
    assert (e.seq, e.chain) == (5, True)
    e = refused(rec, "record 5 fails its MAC: not written by this board's key", mac=jr.Mac(bytes(31) + b"\1"))
    assert (e.seq, e.chain) == (5, True)
    assert jread.decode(rec, 0, PREV, 5, jr.FORMAT, None).mac == rec[22:30]  # public chain only


def test_crc_ok_of_an_empty_or_one_byte_tail_is_false():
    # A staging file cut at its creation holds nothing, or a byte.
    for tail in (b"", b"\x22", b"\x22\x00"):
        assert jread.crc_ok(tail, 0) is False
        assert jread.crc_ok(b"xx" + tail, 2) is False


def test_crc_ok_refuses_a_length_field_below_the_smallest_record():
    rec, _ = jr.encode(PREV, 5, 0, jr.END_HAND, 0)  # format 1, 26 bytes
    short = with_crc(struct.pack("<H", 25) + rec[2:21])  # claims 25 bytes, CRC right for them
    assert len(short) == 25 and jread.crc_ok(short + b"\0", 0) is False  # a bool, as the first check's
    assert jread.crc_ok(rec[:-1], 0) is False  # a length past the end of what was read
    assert jread.crc_ok(rec + b"\0", 0) is True


# ---- head and segment files


def test_a_head_is_read_with_its_format_board_journal_time_and_key_id():
    key_id = bytes(range(8))
    head = jr.encode_head(b"BOARD7", 3, 99, key_id)
    assert len(head) == 6 + 6 + 8 + 8
    assert jread.head_format(head) == 2 and jread.head_key_id(head) == key_id
    assert jread.decode_head(head) == (b"BOARD7", 3, 99)
    old = jr.encode_head(b"B", 4, 5)
    assert jread.head_format(old) == 1 and jread.head_key_id(old) is None
    assert jread.decode_head(old) == (b"B", 4, 5)
    for bad in (head + b"\0", head[:-1], old + b"\0", old[:-1]):
        with pytest.raises(ValueError, match="journal head has a bad length"):
            jread.decode_head(bad)


def test_a_head_needs_its_magic_and_format_1_or_2_in_six_bytes():
    assert jread.head_format(b"CBJ1\x02\x00") == 2
    assert jread.head_format(b"CBJ1\x01\x00") == 1
    for bad in (b"CBJ1\x02", b"CBJ1\x00\x00", b"CBJ1\x03\x00", b"CBJ2\x02\x00"):
        with pytest.raises(ValueError, match="not a journal head"):
            jread.head_format(bad)


def test_a_segment_header_is_40_bytes_after_its_magic():
    header = jr.encode_segment_header(77, PREV[:32])
    assert len(header) == 40
    assert jread.decode_segment_header(header) == (77, PREV[:32])
    assert jread.decode_segment_header(header + b"more") == (77, PREV[:32])
    for bad in (header[:-1], b"CBS2" + header[4:]):
        with pytest.raises(ValueError, match="not a journal segment"):
            jread.decode_segment_header(bad)


def test_the_journal_key_and_the_signed_head_text_are_the_documented_ones():
    import hashlib
    import hmac

    link_key = bytes(range(32))
    assert jread.journal_key(link_key) == hmac.new(link_key, b"crapsboard journal v2", hashlib.sha256).digest()
    assert jread.journal_key(None) == hmac.new(b"", b"crapsboard journal v2", hashlib.sha256).digest()
    # docs/link.md: `crapsboard head BOARD JOURNAL SEQ HASH`
    assert jread.signed_head_text("ab12", 3, 41, "cd" * 32) == b"crapsboard head ab12 3 41 " + b"cd" * 32


def test_the_writer_s_kind_codes_are_the_documented_ones():
    kinds = documented_kinds()
    written = {
        "roll": jr.ROLL,
        "undo": jr.UNDO,
        "end_hand": jr.END_HAND,
        "error": jr.ERROR,
        "supervisor_on": jr.SUPERVISOR_ON,
        "config": jr.CONFIG,
        "restart": jr.RESTART,
        "journal_start": jr.JOURNAL_START,
        "snapshot": jr.SNAPSHOT,
        "drop": jr.DROP,
        "time": jr.TIME,
        "verified": jr.VERIFIED,
        "prog_wager": jr.PROG_WAGER,
        "prog_hit": jr.PROG_HIT,
        "prog_void": jr.PROG_VOID,
    }
    assert {name: kinds_code for kinds_code, name in kinds.items() if name in written} == written


def test_a_state_of_255_bytes_is_written_and_read_and_one_of_256_is_refused():
    # The header keeps the state's length in one byte (docs/journal.md, Records).
    state = bytes(range(255))
    rec, _ = jr.encode(PREV, 5, 0, jr.SNAPSHOT, 0, state=state, mac=MAC)
    assert jread.decode(rec, 0, PREV, 5, jr.FORMAT, MAC).state == state
    with pytest.raises(ValueError, match="journal record too long"):
        jr.encode(PREV, 5, 0, jr.SNAPSHOT, 0, state=bytes(256), mac=MAC)


def test_peek_seq_reads_a_records_seq_from_its_14_byte_header_at_any_position():
    rec, _ = jr.encode(PREV, 5, 0, jr.ROLL, 3 * 8 + 4, mac=MAC)
    assert jr.peek_seq(rec[: jr.HEADER_SIZE], 0) == 5
    assert jr.peek_seq(b"x" * 10 + rec[: jr.HEADER_SIZE], 10) == 5
    assert jr.peek_seq(b"x" * 10 + rec[: jr.HEADER_SIZE - 1], 10) == -1  # too short to hold it
