# Authentication of the link's changing commands (docs/link.md, "Signed requests").
#
# A signed request carries "ctr", a counter that only grows, and "tag", the
# lowercase hex HMAC-SHA256 under the board's key of the request's canonical
# form: the request object without "tag", keys sorted, no spaces, ASCII --
# exactly CPython's json.dumps(req, sort_keys=True, separators=(",", ":")).
# The parser refuses duplicate keys and floats, so the canonical form is one
# text for one meaning. The last accepted counter is kept in a store passed in
# (`load() -> int`, `save(n)`); it is saved before the command runs, so an
# authentic request is never accepted twice, whatever its command then does.
# It must also be at most CTR_STEP_MAX above the last, so it cannot be used up.
import binascii

from micropython import const

from crapsboard.link.link_json import encode

# A counter is accepted only up to this far above the last accepted one: a
# keyholder (or a bug) sending 999999999999999999 would otherwise use the
# counter up for good (the parser takes at most 18 digits), while a host
# reads the last one from `hello` and sends the next. At 1000 per request the
# 18-digit range lasts 10**15 signed requests.
CTR_STEP_MAX = const(1000)


class AuthError(Exception):
    pass


def canonical(request):
    """The bytes that are signed: `request` without its tag (link_json.encode, compact)."""
    rest = {}
    for key in request:
        if key != "tag":
            rest[key] = request[key]
    return encode(rest, True).encode()


def hmac_sha256(key, msg):
    # Imported for a signed request only: a board that is never sent one
    # keeps hmac256's code off its heap.
    from crapsboard.base.hmac256 import hmac_sha256

    return hmac_sha256(key, msg)


def _same(given, want):
    """Whether two byte strings are equal, every byte compared: no early exit to time."""
    diff = len(given) ^ len(want)
    for a, b in zip(given, want):
        diff |= a ^ b
    return not diff


def receipt_ok(key, board, journal_id, seq, head, receipt):
    """Whether `receipt` (hex) is the floor recorder's receipt for `board`'s journal
    up to `seq`, chain head `head`: HMAC-SHA256 under the receipt key, HMAC(link
    key, ROLE_RECEIPT) (docs/link.md, "Keys"). `key`: the link key, or None."""
    from crapsboard.base.link_key import ROLE_RECEIPT
    from crapsboard.journal.journal_read import receipt_text

    if key is None:
        return False
    text = receipt_text(board, journal_id, seq, head)
    return _same(receipt.encode(), binascii.hexlify(hmac_sha256(hmac_sha256(key, ROLE_RECEIPT), text)))


def sign(key, request):
    """The tag for `request` (what a host does; the tests and the fuzz use it too)."""
    return binascii.hexlify(hmac_sha256(key, canonical(request))).decode()


class Auth:
    def __init__(self, key, store, role=True):
        """`key`: the link key (bytes), or None when the board has not been
        provisioned; `role`: True (the link key signs) or a role's label, whose
        key HMAC(link key, label) alone signs the command."""
        if key is not None and role is not True:
            key = hmac_sha256(key, role)
        self.key = key
        self.store = store

    def check(self, request):
        """Accept `request` (and consume its counter) or raise AuthError, having changed nothing."""
        ctr = request.get("ctr")
        tag = request.get("tag")
        if type(ctr) is not int or ctr < 0 or type(tag) is not str:
            raise AuthError("signed command: needs ctr (a counter) and tag")
        if self.key is None:
            raise AuthError("no key on this board: deploy one")
        try:
            want = binascii.hexlify(hmac_sha256(self.key, canonical(request)))
        except TypeError:
            raise AuthError("cannot be signed: floats or odd values")
        if not _same(tag.encode(), want):
            raise AuthError("bad tag")
        try:
            last = self.store.load()
        except Exception:
            raise AuthError("counter unreadable: provision the board again")
        if ctr <= last:
            raise AuthError("replayed or old counter: last accepted is %d" % last)
        if ctr - last > CTR_STEP_MAX:
            raise AuthError("counter too far ahead: at most %d above the last accepted, %d" % (CTR_STEP_MAX, last))
        try:
            self.store.save(ctr)
        except Exception:
            raise AuthError("counter not stored: nothing done")
