"""What this host remembers about each board, beside its key file in KEYS_DIR
(host_tools/keys.py; 0600 files in the 0700 directory): the newest journal
head the board signed in a `hello` (`<board>.head`) and the last deploy
(`<board>.deployed`). With them `status` and `log` tell a board whose journal
went back (records deleted, an older copy restored) and a board whose
measured firmware is not what was deployed (docs/link.md, hello).

A board whose flash was erased (re-flashed, or the board replaced by one with
the same chip id) starts its journals again from journal 1: that is a
technician's explicit step, `board-erased --by NAME` (erased_board below),
kept in `<board>.erased` (every such step, oldest first). After it the board's
new head is the one checked against; without it the journal went back.
"""

import json
import os
import time

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError, keys


def record_path(board, what):
    return keys.key_path(board)[: -len(".key")] + "." + what


def load(board, what):
    path = record_path(board, what)
    if not os.path.exists(path):
        return None
    try:
        keys.check_private(path, "board record")
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        raise HostToolError("board record %s is unreadable: move it away" % path, EXIT_FAILED)
    return value if isinstance(value, dict) else None


def save(board, what, value):
    path = record_path(board, what)
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    keys.check_private(directory, "key directory")
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(value, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _key(board, key_file=None):
    """The board's link key, or None when this host has none it can open
    without asking (a sealed key with no passphrase given is skipped)."""
    path = key_file or keys.key_path(board)
    if not os.path.exists(path):
        return None
    with open(path, encoding="ascii", errors="replace") as f:
        sealed = f.read().startswith(keys.SEALED_MAGIC)
    if sealed and not os.environ.get(keys.PASSPHRASE_ENV):
        return None
    return keys.read_key(path)


def check_head(hello, key_file=None, holds=None):
    """Check the journal head the board signed in `hello` against the newest
    one this host saw, and keep it if it is newer. Returns a line for people:
    None (nothing to say), or what was found; HostToolError (exit 1) when the
    head is not signed by the board's key, or is older than one seen
    (truncated, rolled back or rewritten). With `holds(board, key, seen, then)`
    (sync.still_holds on the board's link), a board that has gone past the
    record seen must still hold it with the hash seen: records deleted, then
    played past, went back too."""
    board = hello.get("board")
    head = hello.get("head")
    if not isinstance(board, str) or not isinstance(head, dict):
        return None
    key = _key(board, key_file)
    if key is None:
        return "journal head not checked: no key for board %s on this host" % board
    journal, seq, chain, tag = signed_head(board, head, key)
    seen = load(board, "head")
    if seen is not None:
        then = "journal %s record %s (seen %s)" % (seen.get("journal"), seen.get("seq"), seen.get("seen"))
        if journal < seen.get("journal", 0) or (journal == seen.get("journal") and seq < seen.get("seq", 0)):
            raise HostToolError(
                "board %s's journal went back: it is at journal %d record %d, this host saw %s:"
                " records were deleted or an older journal restored%s" % (board, journal, seq, then, ERASED_STEP),
                EXIT_FAILED,
            )
        if journal == seen.get("journal") and seq == seen.get("seq") and chain != seen.get("hash"):
            raise HostToolError(
                "board %s's journal was rewritten: record %d has another chain hash than %s%s"
                % (board, seq, then, ERASED_STEP),
                EXIT_FAILED,
            )
        if journal == seen.get("journal") and seq > seen.get("seq", 0) and holds is not None:
            note = holds(board, key, seen, then)
            if note:
                return note  # the record seen was rotated away: nothing to compare; the saved head stays
    if seen is None or (journal, seq) != (seen.get("journal"), seen.get("seq")):
        save(board, "head", dict(journal=journal, seq=seq, hash=chain, tag=tag, seen=_now()))
    return None


# What the refusals above add: the one legitimate reason, and its step.
ERASED_STEP = (
    "; if the board's flash was erased (re-flashed or replaced), a technician records that with"
    " `python -m host_tools board-erased --port PORT --by NAME`"
)


def signed_head(board, head, key):
    """(journal, seq, chain hash, tag) of `head` from hello; HostToolError (exit 1)
    unless the board's key signed it."""
    try:
        journal, seq, chain, tag = head["journal"], head["seq"], head["hash"], head["tag"]
        text = jread.signed_head_text(board, journal, seq, chain)
        good = jr.Mac(jread.journal_key(key)).digest(text).hex() == tag
    except (KeyError, TypeError, ValueError):
        good = False
    if not good:
        raise HostToolError(
            "board %s's journal head is not signed by its key: not the real board, or its key was changed" % board,
            EXIT_FAILED,
        )
    return journal, seq, chain, tag


def _went_back(board, key, seen, now, holds):
    """Whether the board's head `now` (journal, seq, hash) went back from the one `seen`,
    as check_head judges it (`holds` as there)."""
    journal, seq, chain = now
    then = (seen.get("journal", 0), seen.get("seq", 0))
    if (journal, seq) < then or ((journal, seq) == then and chain != seen.get("hash")):
        return True
    if journal == then[0] and seq > then[1] and holds is not None:
        try:
            holds(board, key, seen, "journal %s record %s" % then)
        except HostToolError:
            return True
    return False


def erased_board(hello, by, key_file=None, holds=None):
    """The technician's step for a board whose flash was erased: the head the
    board now signs becomes the one this host checks against, and the step
    (who, when, the head seen before, the new one) is added to `<board>.erased`.
    Returns the line for people. HostToolError: exit 2 without the board's key
    or a name; exit 1 when the head is not the board's, or when the board's
    journal continues the one seen (nothing was erased: no step to record;
    `holds` as for check_head tells a board erased then played past the seq seen)."""
    board, head = hello.get("board"), hello.get("head")
    if not isinstance(board, str) or not isinstance(head, dict):
        raise HostToolError("the board's hello has no signed journal head: firmware before the head", EXIT_FAILED)
    if not by or not by.strip():
        raise HostToolError("--by: the technician's name is required", EXIT_USAGE)
    key = _key(board, key_file)
    if key is None:
        raise HostToolError(
            "no key for board %s on this host (or it is sealed: set %s): --key FILE" % (board, keys.PASSPHRASE_ENV),
            EXIT_USAGE,
        )
    journal, seq, chain, tag = signed_head(board, head, key)
    seen = load(board, "head")
    if seen is not None and not _went_back(board, key, seen, (journal, seq, chain), holds):
        raise HostToolError(
            "board %s's journal %d record %d continues the journal %s record %s this host saw: nothing was erased,"
            " no step to record" % (board, journal, seq, seen.get("journal"), seen.get("seq")),
            EXIT_FAILED,
        )
    now = _now()
    new = dict(journal=journal, seq=seq, hash=chain, tag=tag, seen=now)
    steps = load(board, "erased") or {"steps": []}
    steps["steps"].append(dict(at=now, by=by.strip(), before=seen, after=new))
    save(board, "erased", steps)
    save(board, "head", new)
    before = "journal %s record %s" % (seen.get("journal"), seen.get("seq")) if seen else "no journal"
    return "board %s: erased board recorded at %s by %s; this host saw %s before, now journal %d record %d" % (
        board,
        now,
        by.strip(),
        before,
        journal,
        seq,
    )


def check_firmware(hello):
    """(ok, line for people): the measured firmware hash in `hello` against
    this host's record of the board's last deploy."""
    board = hello.get("board")
    measured = hello.get("firmware_hash")
    if measured is None:
        return True, "firmware not measured by the board (firmware before the measurement)"
    deployed = load(board, "deployed") if isinstance(board, str) else None
    if deployed is None:
        return True, "no deploy record for board %s on this host: measured %s" % (board, measured)
    if deployed.get("hash") == measured:
        return True, "measured firmware is the deploy of %s (%s)" % (deployed.get("version"), deployed.get("when"))
    return False, "measured firmware %s DIFFERS from the deploy of %s (%s, %s): files changed since the deploy" % (
        measured,
        deployed.get("version"),
        deployed.get("hash"),
        deployed.get("when"),
    )


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
