"""The floor's keys for each table's board, one file per role (docs/link.md, "Keys").

A board holds one secret, its link key (the technician's, written by deploy).
Every other key is derived from it with HMAC-SHA256 under a label the
firmware fixes (`crapsboard.base.link_key`), so the board derives them all and
no derived key gives back the link key or another role's key:

    DIR/keys/TABLE.journal   the journal key: checks (and could make) record MACs; recorder, controller
    DIR/keys/TABLE.gateway   signs `time` and `progressive`; the table's gateway
    DIR/keys/TABLE.floor     signs `verified`; the page
    DIR/keys/TABLE.receipt   signs the recorder's receipts; the recorder

Written by `floor provision` from the table's link key (provision()); read
here by the services, each only its own file.
"""

import hashlib
import hmac
import os
import threading

from crapsboard.journal import journal_record as jr
from host_tools import keys

ROLES = ("journal", "gateway", "floor", "receipt")


def derive(link_key, role):
    """Role `role`'s key of the board whose link key is `link_key`."""
    if role == "journal":
        return hmac.new(link_key, jr.JOURNAL_KEY_INFO, hashlib.sha256).digest()
    return keys.role_key(link_key, role)


def path(directory, table, role):
    return os.path.join(directory, "keys", "%s.%s" % (table, role))


def provision(directory, table, link_key, roles=ROLES):
    """Each role's key of `table`'s board into DIR/keys (0600); the paths written."""
    out = []
    os.makedirs(os.path.join(directory, "keys"), mode=0o700, exist_ok=True)
    keys.check_private(os.path.join(directory, "keys"), "key directory")
    for role in roles:
        p = path(directory, table, role)
        tmp = p + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(keys.key_text(derive(link_key, role)))
        os.replace(tmp, p)  # a board provisioned anew (a new link key) replaces the old role keys
        out.append(p)
    return out


def read(directory, table, role):
    """Role `role`'s key of `table`, or HostToolError (one line) when it is not provisioned."""
    return keys.read_key(path(directory, table, role))


def read_or_none(directory, table, role):
    """Role `role`'s key of `table`, or None when it is not provisioned here or cannot be read."""
    if directory is None:
        return None
    try:
        return keys.read_key(path(directory, table, role))
    except Exception:
        return None


class JournalKeys:
    """Each table's journal key (a journal_record.Mac), read from DIR/keys when
    first asked for and again when its file changes (a board provisioned anew).
    `given`: {table: journal key bytes} instead of files (tests)."""

    def __init__(self, directory=None, given=None):
        self.directory = directory
        self.given = dict(given or {})
        self.cache = {}  # table -> (mtime, Mac)
        self.lock = threading.Lock()

    def mac(self, table):
        """The table's journal Mac, or None when the floor holds no journal key for it."""
        if table in self.given:
            return jr.Mac(self.given[table])
        if self.directory is None:
            return None
        p = path(self.directory, table, "journal")
        try:
            mtime = os.stat(p).st_mtime_ns
        except OSError:
            return None
        with self.lock:
            hit = self.cache.get(table)
            if hit and hit[0] == mtime:
                return hit[1]
            try:
                mac = jr.Mac(keys.read_key(p))
            except Exception:  # unreadable or open to others: no key, so nothing verifies
                return None
            self.cache[table] = (mtime, mac)
            return mac

    def key(self, table):
        """The table's journal key itself (bytes), or None: what a board-erased step is checked under."""
        if table in self.given:
            return self.given[table]
        return read_or_none(self.directory, table, "journal")


def record_mac_ok(mac, record, digest):
    """Whether `record`'s 8-byte `mac` (hex) is the MAC of its chain hash `digest` under `mac`."""
    if mac is None:
        return False
    try:
        sent = bytes.fromhex(record.get("mac") or "")
    except (TypeError, ValueError):
        return False
    return len(sent) == jr.MAC_SIZE and hmac.compare_digest(sent, mac.tag(digest))
