"""Board keys on the technician's laptop: one file per board, 64 hex digits.

A board's key (docs/link.md, "Signed requests") is written to the board as
`link_key` by deploy and kept on the host as KEYS_DIR/<board id>.key, where
KEYS_DIR is $CRAPSBOARD_KEYS, else $XDG_CONFIG_HOME/crapsboard/keys, else
~/.config/crapsboard/keys. Files are created readable by their owner only.
`--key FILE` names a key file directly instead.
"""

import os
import re
import secrets

from host_tools import EXIT_USAGE, HostToolError

KEY_BYTES = 32
_HEX = re.compile(r"^[0-9a-f]{64}$")
_BOARD = re.compile(r"^[0-9a-f]{1,64}$")


def keys_dir():
    if os.environ.get("CRAPSBOARD_KEYS"):
        return os.environ["CRAPSBOARD_KEYS"]
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "crapsboard", "keys")


def key_path(board_id, directory=None):
    """Where the host keeps the key of board `board_id` (lowercase hex)."""
    if not _BOARD.match(board_id or ""):
        raise HostToolError("board id %r is not lowercase hex: cannot name its key file" % board_id, EXIT_USAGE)
    return os.path.join(directory or keys_dir(), board_id + ".key")


def parse_key(text, where):
    """The key's bytes from a key file's text (64 hex digits, whitespace around ignored)."""
    text = text.strip().lower()
    if not _HEX.match(text):
        raise HostToolError(where + " is not a board key (64 hex digits)", EXIT_USAGE)
    return bytes.fromhex(text)


def read_key(path):
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return parse_key(f.read(), path)
    except OSError as e:
        raise HostToolError("cannot read key %s: %s" % (path, e.strerror), EXIT_USAGE)


def key_text(key):
    return key.hex() + "\n"


def save_key(path, key):
    """Write a key file readable by its owner only; never overwrite another key."""
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if read_key(path) == key:
            return
        raise HostToolError(path + " already holds another key: not overwritten", EXIT_USAGE)
    except OSError as e:
        raise HostToolError("cannot write key %s: %s" % (path, e.strerror), EXIT_USAGE)
    with os.fdopen(fd, "w") as f:
        f.write(key_text(key))


def new_key():
    return secrets.token_bytes(KEY_BYTES)


def find_key(key_file, board_id):
    """The key for a signed command: `key_file` if given, else the host's key
    for `board_id`; HostToolError (exit 2) naming where it looked."""
    if key_file:
        return read_key(key_file)
    path = key_path(board_id)
    if not os.path.exists(path):
        raise HostToolError("no key for board %s at %s: give one with --key FILE" % (board_id, path), EXIT_USAGE)
    return read_key(path)
