"""Board keys on the technician's laptop: one file per board, 64 hex digits.

A board's key (docs/link.md, "Signed requests") is written to the board as
`link_key` by deploy and kept on the host as KEYS_DIR/<board id>.key, where
KEYS_DIR is $CRAPSBOARD_KEYS, else $XDG_CONFIG_HOME/crapsboard/keys, else
~/.config/crapsboard/keys. Files are created readable by their owner only
(0600) in a directory only its owner can enter (0700); a key file or key
directory that others can read is refused, never used. `--key FILE` names a
key file directly instead (its mode is checked the same way).

Sealing (optional): with $CRAPSBOARD_PASSPHRASE set, a new key file is
written sealed -- AES-256-GCM under a key stretched from the passphrase with
scrypt (the `cryptography` package, pinned) -- and a sealed file is opened
with that passphrase, or one typed at a terminal prompt. A stolen sealed file
is useless without the passphrase; a lost laptop's key is revoked by
redeploying the board with a new key (host_tools/README.md, Keys).
"""

import getpass
import hashlib
import hmac
import os
import re
import secrets
import stat
import sys

from crapsboard.base import link_key as _lk
from host_tools import EXIT_USAGE, HostToolError

KEY_BYTES = 32

# The board derives one key per role from its link key (docs/link.md, "Keys"):
# a command signed by a role is checked under that role's key and no other.
ROLE_LABELS = {"gateway": _lk.ROLE_GATEWAY, "floor": _lk.ROLE_FLOOR, "receipt": _lk.ROLE_RECEIPT}
COMMAND_ROLES = {"time": "gateway", "progressive": "gateway", "verified": "floor"}  # the rest: the link key


def role_key(link_key, role):
    """Role `role`'s key of the board whose link key is `link_key`: HMAC-SHA256(link key, its label)."""
    return hmac.new(link_key, ROLE_LABELS[role], hashlib.sha256).digest()


def receipt_tag(receipt_key, board_hex, journal_id, seq, chain_hex):
    """The recorder's receipt (hex) for `board_hex`'s journal up to `seq`, chain hash `chain_hex`."""
    from crapsboard.journal.journal_read import receipt_text

    return hmac.new(receipt_key, receipt_text(board_hex, journal_id, seq, chain_hex), hashlib.sha256).hexdigest()


def command_key(link_key, cmd):
    """The key that signs `cmd` for the board whose link key is `link_key`."""
    role = COMMAND_ROLES.get(cmd)
    return link_key if role is None else role_key(link_key, role)


_HEX = re.compile(r"^[0-9a-f]{64}$")
_BOARD = re.compile(r"^[0-9a-f]{1,64}$")


SEALED_MAGIC = "crapsboard sealed key v1"
PASSPHRASE_ENV = "CRAPSBOARD_PASSPHRASE"
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}  # ~0.15 s here: dear for a guesser, cheap for one open


def keys_dir():
    if os.environ.get("CRAPSBOARD_KEYS"):
        return os.environ["CRAPSBOARD_KEYS"]
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "crapsboard", "keys")


def key_path(board_id, directory=None):
    """Where the host keeps the key of board `board_id` (lowercase hex)."""
    if not _BOARD.match(board_id or ""):
        raise HostToolError("board id %r is not lowercase hex: cannot name its key file" % board_id, EXIT_USAGE)
    directory = directory or keys_dir()
    if os.path.isdir(directory):
        check_private(directory, "key directory")  # the keys in it are no secret otherwise
    return os.path.join(directory, board_id + ".key")


def parse_key(text, where, passphrase=None):
    """The key's bytes from a key file's text: 64 hex digits (whitespace
    around ignored), or a sealed key opened with the passphrase."""
    if text.startswith(SEALED_MAGIC):
        return unseal(text, where, passphrase)
    text = text.strip().lower()
    if not _HEX.match(text):
        raise HostToolError(where + " is not a board key (64 hex digits)", EXIT_USAGE)
    return bytes.fromhex(text)


def check_private(path, what):
    """Refuse a key file or key directory that anyone but its owner (this
    user) can read, write or enter: a key others can read is no secret."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise HostToolError("cannot read %s %s: %s" % (what, path, e.strerror), EXIT_USAGE)
    if st.st_mode & 0o077 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        fix = "chmod 700" if stat.S_ISDIR(st.st_mode) else "chmod 600"
        raise HostToolError(
            "%s %s is open to others (mode %03o, owner uid %d): not used; %s it if it is yours"
            % (what, path, st.st_mode & 0o777, st.st_uid, fix),
            EXIT_USAGE,
        )


def read_key(path, passphrase=None):
    check_private(path, "key file")
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return parse_key(f.read(), path, passphrase)
    except OSError as e:
        raise HostToolError("cannot read key %s: %s" % (path, e.strerror), EXIT_USAGE)


def key_text(key):
    return key.hex() + "\n"


def _passphrase(where, passphrase):
    if passphrase is not None:
        return passphrase
    if os.environ.get(PASSPHRASE_ENV):
        return os.environ[PASSPHRASE_ENV]
    if sys.stdin.isatty():
        return getpass.getpass("passphrase for %s: " % where)
    raise HostToolError(
        "%s is sealed: set %s or run on a terminal to type its passphrase" % (where, PASSPHRASE_ENV), EXIT_USAGE
    )


def _stretch(passphrase, salt):
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=32, **_SCRYPT).derive(passphrase.encode("utf-8"))


def seal(key, passphrase):
    """A sealed key file's text: the key under AES-256-GCM with a scrypt-stretched passphrase."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    salt, nonce = secrets.token_bytes(16), secrets.token_bytes(12)
    sealed = AESGCM(_stretch(passphrase, salt)).encrypt(nonce, key, SEALED_MAGIC.encode())
    return "%s scrypt n=%d r=%d p=%d\n%s\n%s\n%s\n" % (
        SEALED_MAGIC,
        _SCRYPT["n"],
        _SCRYPT["r"],
        _SCRYPT["p"],
        salt.hex(),
        nonce.hex(),
        sealed.hex(),
    )


def unseal(text, where, passphrase=None):
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    lines = text.split("\n")
    try:
        if lines[0] != "%s scrypt n=%d r=%d p=%d" % (SEALED_MAGIC, _SCRYPT["n"], _SCRYPT["r"], _SCRYPT["p"]):
            raise ValueError
        salt, nonce, sealed = (bytes.fromhex(line) for line in lines[1:4])
        if len(salt) != 16 or len(nonce) != 12 or len(sealed) != KEY_BYTES + 16:
            raise ValueError
    except ValueError:
        raise HostToolError(where + " is not a sealed board key this tool can read", EXIT_USAGE)
    try:
        return AESGCM(_stretch(_passphrase(where, passphrase), salt)).decrypt(nonce, sealed, SEALED_MAGIC.encode())
    except InvalidTag:
        raise HostToolError(where + ": wrong passphrase, or the sealed key was altered", EXIT_USAGE)


def save_key(path, key, passphrase=None):
    """Write a key file readable by its owner only, in a directory only its
    owner can enter; sealed when a passphrase is given or $CRAPSBOARD_PASSPHRASE
    is set; never overwrite another key."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, mode=0o700, exist_ok=True)
    check_private(directory, "key directory")
    passphrase = passphrase if passphrase is not None else os.environ.get(PASSPHRASE_ENV) or None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if read_key(path, passphrase) == key:
            return
        raise HostToolError(path + " already holds another key: not overwritten", EXIT_USAGE)
    except OSError as e:
        raise HostToolError("cannot write key %s: %s" % (path, e.strerror), EXIT_USAGE)
    os.fchmod(fd, 0o600)  # whatever the umask
    with os.fdopen(fd, "w") as f:
        f.write(seal(key, passphrase) if passphrase else key_text(key))


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
