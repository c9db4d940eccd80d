# The board's link key (docs/link.md, "Signed requests"): 64 lowercase hex
# characters in the file link_key, written by host_tools deploy. Read by the
# link for signed requests and, at power-up, for the journal's keyed chain
# (journal_record.journal_key), so it lives apart from the link's modules.
import binascii

from micropython import const

KEY_FILE = "link_key"
# Each role's key is HMAC-SHA256(link key, its label), derived when needed and
# never stored on the board (docs/link.md, "Keys"): the journal key
# (journal_record.JOURNAL_KEY_INFO), and these.
ROLE_GATEWAY = b"crapsboard role gateway"  # signs `time`, `progressive`
ROLE_FLOOR = b"crapsboard role floor"  # signs `verified`
ROLE_RECEIPT = b"crapsboard role receipt"  # the recorder's receipts
_KEY_HEX = const(64)


def read_key(path=KEY_FILE):
    """The board's link key (bytes) from its file: 64 lowercase hex characters.
    Missing or malformed: None, so signed requests are refused with "no key"."""
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    if len(text) != _KEY_HEX or text != text.lower():
        return None
    try:
        return binascii.unhexlify(text)
    except ValueError:
        return None
