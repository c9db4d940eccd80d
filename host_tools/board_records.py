"""What this host remembers about each board, beside its key file in KEYS_DIR
(host_tools/keys.py; 0600 files in the 0700 directory): the newest journal
head the board signed in a `hello` (`<board>.head`) and the last deploy
(`<board>.deployed`). With them `status` and `log` tell a board whose journal
went back (records deleted, an older copy restored) and a board whose
measured firmware is not what was deployed (docs/link.md, hello).
"""

import json
import os
import time

from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from host_tools import EXIT_FAILED, HostToolError, keys


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
    seen = load(board, "head")
    if seen is not None:
        then = "journal %s record %s (seen %s)" % (seen.get("journal"), seen.get("seq"), seen.get("seen"))
        if journal < seen.get("journal", 0) or (journal == seen.get("journal") and seq < seen.get("seq", 0)):
            raise HostToolError(
                "board %s's journal went back: it is at journal %d record %d, this host saw %s:"
                " records were deleted or an older journal restored" % (board, journal, seq, then),
                EXIT_FAILED,
            )
        if journal == seen.get("journal") and seq == seen.get("seq") and chain != seen.get("hash"):
            raise HostToolError(
                "board %s's journal was rewritten: record %d has another chain hash than %s" % (board, seq, then),
                EXIT_FAILED,
            )
        if journal == seen.get("journal") and seq > seen.get("seq", 0) and holds is not None:
            note = holds(board, key, seen, then)
            if note:
                return note  # the record seen was rotated away: nothing to compare; the saved head stays
    if seen is None or (journal, seq) != (seen.get("journal"), seen.get("seq")):
        save(board, "head", dict(journal=journal, seq=seq, hash=chain, tag=tag, seen=_now()))
    return None


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
