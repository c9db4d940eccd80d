"""The technician's `board-erased` step as the floor carries it (docs/floor.md,
"A board erased"): a board whose flash was erased (re-flashed, or replaced by
one with the same chip id) starts its journals again from journal 1, which
the floor would otherwise hold against its copy for ever.

The step is signed under the table's journal key, which the technician
derives from the board's link key (the one deploy wrote) and the recorder
holds; the gateway host holds neither, and the broker lets only the
`floorctl` account write the step's topic. A step is taken within
MAX_AGE_S of its time, and once (its nonce).
"""

import hashlib
import hmac
import json
import secrets

LABEL = b"crapsboard board erased v1\n"  # what a step's MAC covers first: nothing else signed is one
MAX_NAME = 64  # the technician's name, as the page and the audit show it
MAX_AGE_S = 600  # a step older or newer than this at the recorder is refused (a replay, a wrong clock)
FIELDS = ("table", "board", "by", "at", "nonce")
KIND = "board erased"  # the recorder's alert (a notice for the floor supervisor) and audit line
REFUSED = "board-erased step refused"  # the recorder's alert for a step it did not take


def _text(fields):
    return LABEL + json.dumps({k: fields[k] for k in FIELDS}, sort_keys=True, separators=(",", ":")).encode()


def sign(journal_key, table, board, by, at, nonce=None):
    """The step's payload fields, MAC included."""
    fields = {"v": 1, "table": table, "board": board, "by": by, "at": int(at), "nonce": nonce or secrets.token_hex(8)}
    fields["mac"] = hmac.new(journal_key, _text(fields), hashlib.sha256).hexdigest()
    return fields


def check(mac_key, fields, now):
    """None when `fields` is a step signed under `mac_key` (a journal key, or None
    when the floor holds none) within MAX_AGE_S of `now`; else why not, one line."""
    if not isinstance(fields, dict) or any(
        not isinstance(fields.get(k), str) for k in ("table", "board", "by", "nonce")
    ):
        return "not a board-erased step"
    if not isinstance(fields.get("at"), int) or isinstance(fields.get("at"), bool) or not fields["by"].strip():
        return "not a board-erased step"
    if len(fields["by"]) > MAX_NAME or len(fields["nonce"]) > 32 or len(fields["board"]) > 64:
        return "not a board-erased step"
    if mac_key is None:
        return "the floor holds no journal key for table %s" % fields["table"]
    good = hmac.new(mac_key, _text(fields), hashlib.sha256).hexdigest()
    if not isinstance(fields.get("mac"), str) or not hmac.compare_digest(good, fields["mac"]):
        return "its MAC is not under the board's journal key"
    if abs(now - fields["at"]) > MAX_AGE_S:
        return "signed at %d, %d s from the recorder's clock (more than %d)" % (
            fields["at"],
            now - fields["at"],
            MAX_AGE_S,
        )
    return None
