"""`log`: the board's journal, from a flash image (`--image`, host_tools/journal_log.py)
or downloaded over the link (`--port`) with `events` paging, verified as it comes.

Every record travels as its fields and its 8-byte chain link; the host
rebuilds its bytes with the firmware's own codec (journal_record.encode),
checks the link, and decodes it as `--image` does (journal_record.decode via
journal_log: sequence, hash chain); the output is journal_log's, so a download
and the image of the same flash print the same lines. With `--out FILE` the download
is resumable: FILE.state keeps the board and its journal's id, the last record
saved, its chain hash and FILE's length, and the next run continues from there (after a cut, FILE is
first trimmed back to the last whole page).
"""

import functools
import io
import json
import os
import sys

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError, journal_log

PAGE = 8  # records asked for per request: the board (link_events.PAGE_MAX) refuses more


def add_arguments(parser):
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--image", help="flash image of the vfs partition (4 KiB blocks)")
    source.add_argument("--port", "-p", help="download from the board on this serial port")
    parser.add_argument("--verify", action="store_true", help="print only a one-line summary of the verified journal")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    parser.add_argument("--since", type=int, default=0, help="records after this sequence number (--port)")
    parser.add_argument("--out", metavar="FILE", help="append to FILE and resume from where it ends (--port)")
    parser.add_argument("--page", type=int, default=PAGE, help="records per request (--port, default %d)" % PAGE)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for each reply (--port)")
    parser.add_argument(
        "--key",
        metavar="FILE",
        help="the board's key file, for the keyed chain (default: the host's key for the board)",
    )


def run(args):
    _run(args)


def _run(args):
    if args.image:
        for name in ("out",):
            if getattr(args, name):
                raise HostToolError("--%s goes with --port" % name, EXIT_USAGE)
        journal_log.run(args)
        return
    from host_tools.link import BoardLink

    if args.page < 1:
        raise HostToolError("--page must be at least 1", EXIT_USAGE)
    from host_tools import board_records

    with BoardLink(args.port, timeout=args.timeout) as link:
        hello = link.hello()
        mac, where = journal_log.board_mac(hello.get("board") or "", args.key)
        try:  # checked after the download, which goes ahead: its records are the evidence
            head_error = None
            board_records.check_head(hello, args.key, functools.partial(still_holds, link))
        except HostToolError as e:
            head_error = e
        if args.out:
            summary = download_to_file(link, args.out, args.format, args.since, args.page, mac)
            print(summary + "; " + keyed_words(mac, where), file=sys.stderr if not args.verify else sys.stdout)
            if head_error is not None:
                raise head_error
            return
        records = []
        sink = None if args.verify else _StdoutSink(args.format)
        summary = download(link, args.since, args.page, records.extend if sink is None else sink.write, None, mac)[0]
        summary += "; " + keyed_words(mac, where)
    if args.verify:
        print(summary)
    if head_error is not None:
        raise head_error


class _StdoutSink:
    def __init__(self, fmt):
        self.writer = PageWriter(fmt)

    def write(self, records):
        sys.stdout.write(self.writer.text(records))
        sys.stdout.flush()


class _Clock:
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


def _with_t(r, t):
    copy = jread.Record()
    for name in jread.Record.__slots__:
        setattr(copy, name, getattr(r, name))
    copy.t = t
    return copy


class PageWriter:
    """journal_log's output, a page at a time: the CSV header once, and each
    record's time unwrapped across pages exactly as journal_log.unwrapped_times
    does over a whole journal. `clock`: (raw t, unwrapped t) of the last record
    written before, when resuming."""

    def __init__(self, fmt, header=True, clock=None):
        self.fmt = fmt
        self.header = header
        self.clock = clock

    def text(self, records):
        if self.clock is None:
            times = journal_log.unwrapped_times(records)
        else:
            raw, unwrapped = self.clock
            times = [t + unwrapped - raw for t in journal_log.unwrapped_times([_Clock(raw)] + list(records))[1:]]
        # The times go in already unwrapped: never decreasing, so write_records keeps them.
        out = io.StringIO()
        journal_log.write_records([_with_t(r, t) for r, t in zip(records, times)], self.fmt, out)
        text = out.getvalue()
        if self.fmt == "csv" and not self.header:
            text = text.split("\n", 1)[1]
        self.header = False
        self.clock = (records[-1].t, times[-1])
        return text


def format_records(records, fmt, header=True):
    """journal_log's output for `records`; the CSV header only when `header`."""
    return PageWriter(fmt, header).text(records)


def pages(link, since, page=PAGE):
    """Yield (reply, events) for each page of `events` after `since` until the
    board says there are no more; refuses a page that does not move on."""
    while True:
        reply = link.request("events", since=since, limit=page)
        events = reply.get("events")
        if not isinstance(events, list):
            raise HostToolError("the board's events reply has no events list", EXIT_FAILED)
        yield reply, events
        more, nxt = reply.get("more"), reply.get("next")
        if not more:
            return
        if not isinstance(nxt, int) or nxt <= since:
            raise HostToolError(
                "the board's events paging does not move on (next %r after %d)" % (nxt, since), EXIT_FAILED
            )
        since = nxt


_KIND_CODES = {name: code for code, name in jread.KIND_NAMES.items()}


def keyed_words(mac, where):
    if mac is None:
        return "public chain only, keyed chain NOT checked (%s: give --key FILE)" % where
    return "keyed chain verified with " + where


def encode_fields(event, chain):
    """(record bytes, chain hash) of a record rebuilt from the board's fields
    (docs/link.md, `events`) after chain hash `chain`: format 2 when it has a
    `mac`, else format 1. KeyError, TypeError, ValueError or OverflowError
    when a field is missing or malformed."""
    kind = event["kind"]
    kind = _KIND_CODES[kind] if kind in _KIND_CODES else int(kind)
    return jr.encode(
        chain,
        event["seq"],
        event["t"],
        kind,
        event["arg"],
        bytes.fromhex(event.get("state", "")),
        bytes.fromhex(event.get("payload", "")),
        bytes.fromhex(event["mac"]) if "mac" in event else None,
    )


def record_bytes(event, chain):
    """A record's bytes rebuilt from the board's fields (docs/link.md, `events`),
    after chain hash `chain`, with the 8-byte `link` the board sent checked:
    any field changed on the way, or on the flash, breaks it. A record with a
    `mac` is format 2 (its MAC is checked by verify_page, with the key)."""
    seq = event.get("seq") if isinstance(event, dict) else None
    try:
        data, digest = encode_fields(event, chain)
        link = bytes.fromhex(event["link"])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise HostToolError("record %s: the board sent it incomplete or malformed" % seq, EXIT_FAILED)
    if digest[: jr.LINK_SIZE] != link:
        raise HostToolError("record %s breaks the hash chain" % seq, EXIT_FAILED)
    return data


def verify_page(events, chain, expect_seq, mac=None):
    """The decoded, verified Records of one page, continuing the chain hash
    `chain` at sequence number `expect_seq` (None: take the first record's,
    as at the start of a download older records may have been dropped).
    `mac`: a journal_record.Mac under the board's journal key, to check the
    keyed chain (every record must then carry its MAC)."""
    records = []
    for event in events:
        seq = event.get("seq") if isinstance(event, dict) else None
        if expect_seq is not None and seq != expect_seq:
            raise HostToolError("record %d is missing (found %s)" % (expect_seq, seq), EXIT_FAILED)
        if mac is not None and isinstance(event, dict) and "mac" not in event:
            raise HostToolError("record %s has no MAC: the board's journal is not keyed" % seq, EXIT_FAILED)
        data = record_bytes(event, chain)
        want = jr.peek_seq(data, 0) if expect_seq is None else expect_seq
        fmt = jr.FORMAT if "mac" in event else 1
        r = journal_log._decode(data, 0, chain, want, fmt, mac)  # journal_log's check, as for --image
        records.append(r)
        chain, expect_seq = r.hash, r.seq + 1
    return records, chain


def still_holds(link, board, key, seen, then):
    """Whether the board's journal still holds record `seen["seq"]` with the chain
    hash `seen["hash"]`: the record after it must continue that hash, its link and
    its MAC under the journal key checked (a board's `prev` alone is its word).
    None when it does; a line for people when that record has been rotated off
    the flash (nothing left to compare); HostToolError (exit 1) when it does not."""
    from host_tools import board_records

    seq = seen["seq"]
    reply = link.request("events", since=seq, limit=1)
    events = reply.get("events") or []
    if reply.get("journal") != seen.get("journal") or not events:
        raise HostToolError(
            "board %s's journal went back: it no longer gives the record after %s%s"
            % (board, then, board_records.ERASED_STEP),
            EXIT_FAILED,
        )
    if events[0].get("seq") != seq + 1:
        return "journal head checked; record %d this host saw is no longer on the board (rotated away)" % seq
    try:
        verify_page(events, bytes.fromhex(seen["hash"]), seq + 1, jr.Mac(jread.journal_key(key)))
    except (HostToolError, ValueError, TypeError):
        raise HostToolError(
            "board %s's journal went back: record %d no longer has the chain hash of %s:"
            " records were deleted, then the board played past them%s" % (board, seq, then, board_records.ERASED_STEP),
            EXIT_FAILED,
        )
    return None


def download(link, since=0, page=PAGE, on_page=None, chain=None, mac=None):
    """(summary, last seq, chain head) of the records after `since`, verified page
    by page; `on_page(records)` receives each page's Records. `chain` (bytes):
    the hash after record `since`, known from an earlier download: the board's
    records must continue it, with none missing in between."""
    expect = None if chain is None else since + 1
    first = last = None
    for reply, events in pages(link, since, page):
        if not events:
            continue
        prev = reply.get("prev")
        if chain is None:
            if not isinstance(prev, str):
                raise HostToolError("the board's events reply has no prev hash: cannot verify the chain", EXIT_FAILED)
            chain = _hex32(prev)
            head = reply.get("head")
            if isinstance(head, str) and events[0].get("seq") == 1 and jr.genesis(_unhex(head)) != chain:
                raise HostToolError("record 1: the journal's head does not start the chain", EXIT_FAILED)
            if isinstance(head, str) and mac is not None:
                try:
                    key_id = jread.head_key_id(_unhex(head))
                except ValueError:
                    raise HostToolError("the board's journal head is not one", EXIT_FAILED)
                if key_id is not None and key_id != mac.key_id():
                    raise HostToolError("the journal was written under another key than the one given", EXIT_FAILED)
        elif isinstance(prev, str) and _hex32(prev) != chain:
            seq = expect if expect is not None else "?"
            raise HostToolError("record %s: does not continue the chain already downloaded" % seq, EXIT_FAILED)
        records, chain = verify_page(events, chain, expect, mac)
        if first is None:
            first = records[0].seq
        last = records[-1].seq
        expect = last + 1
        if on_page:
            on_page(records)
    if last is None:
        return "no records after %d" % since, since, chain
    return "records %d-%d verified, chain head %s" % (first, last, chain.hex()), last, chain


def _unhex(text):
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise HostToolError("the board's journal head is not hex", EXIT_FAILED)


def _hex32(text):
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) != 32:
        raise HostToolError("the board's chain hash %r is not 32 bytes of hex" % text[:80], EXIT_FAILED)
    return value


# ---- resumable download to a file ----------------------------------------------------


def read_state(out):
    """FILE.state of an earlier download, or None (no earlier download)."""
    try:
        with open(out + ".state", encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise HostToolError("cannot read %s.state: %s" % (out, getattr(e, "strerror", None) or e), EXIT_USAGE)
    if not all(k in state for k in ("board", "seq", "chain", "length", "format")):
        raise HostToolError(out + ".state is not a download state: remove it and FILE to start again", EXIT_USAGE)
    return state


def write_state(out, state):
    tmp = out + ".state.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out + ".state")


def download_to_file(link, out, fmt="jsonl", since=0, page=PAGE, mac=None):
    """Append the records after the last one in `out` (or after `since` on a
    first download) to `out`, verified; returns the summary line."""
    hello = link.hello()
    board = hello.get("board")
    journal = hello.get("journal") if isinstance(hello.get("journal"), dict) else {}
    state = read_state(out)
    chain = None
    if state is not None:
        if state.get("journal") is not None and journal.get("id") not in (None, state["journal"]):
            raise HostToolError(
                "the board started journal %s since %s was saved from journal %s: download it to another file"
                % (journal.get("id"), out, state["journal"]),
                EXIT_FAILED,
            )
        if isinstance(journal.get("seq"), int) and journal["seq"] < state["seq"]:
            raise HostToolError(
                "the board's journal ends at record %d, %s at %d: not the same journal"
                % (journal["seq"], out, state["seq"]),
                EXIT_FAILED,
            )
        if state["board"] != board:
            raise HostToolError(
                "%s holds board %s's journal, not board %s's" % (out, state["board"], board), EXIT_USAGE
            )
        if state["format"] != fmt:
            raise HostToolError("%s is %s: give --format %s" % (out, state["format"], state["format"]), EXIT_USAGE)
        since, chain = state["seq"], bytes.fromhex(state["chain"]) if state["chain"] else None
        with open(out, "r+b") as f:  # a cut after writing a page, before saving the state: drop that page
            f.truncate(state["length"])
    elif os.path.exists(out) and os.path.getsize(out):
        raise HostToolError(out + " exists without its .state: not appended to (move it away)", EXIT_USAGE)
    clock = tuple(state["clock"]) if state is not None and state.get("clock") else None
    writer = PageWriter(fmt, state is None or state["length"] == 0, clock)
    kept = {"board": board, "format": fmt, "journal": journal.get("id")}

    def save(records):
        with open(out, "a", encoding="utf-8", newline="") as f:
            f.write(writer.text(records))
            f.flush()
            os.fsync(f.fileno())
            length = f.tell()
        last = records[-1]
        write_state(out, dict(kept, seq=last.seq, chain=last.hash.hex(), length=length, clock=list(writer.clock)))

    if state is None:  # chain None: no record saved yet, a rerun starts again after `since`
        open(out, "a").close()
        write_state(out, dict(kept, seq=since, chain=None, length=0))
    summary, _, _ = download(link, since, page, save, chain, mac)
    return summary


COMMANDS = {"log": (add_arguments, run, "the board's journal: from a flash image or over the link, verified")}
