# Fuzz of the link core, the same frames on either runtime (a seeded xorshift).
#
# Frames: valid requests of every command, validly signed `time` requests with
# growing counters, replays of them, forged tags, random bytes; then 0..3
# mutations (byte flips to anything including 0x03, \n and 0xff, insertions,
# deletions, duplicated or swapped slices, truncation, deep nesting, over-long
# lines). Fed in random chunks. Checked after every batch: no exception, the
# line buffer within LINE_MAX, one reply line per non-blank line, every reply a
# JSON object with an id and ok, printable ASCII (never 0x03); and the only
# change of state is an accepted signed request that the generator signed,
# with a counter above every one accepted before.
#
# CPython imports `run(seed, frames)`; the VM reads "SEED FRAMES" on stdin and
# prints the summary as one JSON line. Both summaries must be equal.
import gc
import hashlib
import sys

from crapsboard.base.hmac256 import hmac_sha256
from crapsboard.base.link_key import ROLE_GATEWAY
from crapsboard.link import link_json as lj
from crapsboard.link.link import LINE_MAX, CounterMemory, Link, hello_handler
from crapsboard.link.link_auth import canonical, sign

KEY = b"fuzz board key"
GATEWAY_KEY = hmac_sha256(KEY, ROLE_GATEWAY)
_MICROPYTHON = sys.implementation.name == "micropython"
_BATCH = 40


class Rng:
    def __init__(self, seed):
        self.state = (seed * 2654435761 + 1) & 0xFFFFFFFF or 1

    def next(self):
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def below(self, n):
        return self.next() % n

    def bytes(self, size):
        """`size` random bytes: SHA-256 blocks of the generator's output, cheap on both runtimes."""
        blocks = []
        block = hashlib.sha256(b"%d" % self.next()).digest()
        for _ in range(size // 32 + 1):
            blocks.append(block)
            block = hashlib.sha256(block).digest()
        return b"".join(blocks)[:size]


class Board:
    """What signed commands change, and the oracle they must pass."""

    def __init__(self):
        self.clock = 0
        self.store = CounterMemory()
        self.signed = {}  # canonical form -> ctr, for every request the generator signed
        self.accepted = []
        self.violations = 0

    def set_time(self, request):
        ctr = request["ctr"]
        if self.signed.get(canonical(request)) != ctr or (self.accepted and ctr <= self.accepted[-1]):
            self.violations += 1
        self.accepted.append(ctr)
        self.clock = request["unix"]


_TEMPLATES = (
    '{"id": %d, "cmd": "hello"}',
    '{"id": %d, "cmd": "ping", "data": "a\\u0003b\\n\\"q\\" \\ud83d\\ude00 %%"}',
    '{"id":%d,"cmd":"events","since":12,"limit":5}',
    '{"id": %d, "cmd": "subscribe", "on": true}',
    '{"id": %d, "cmd": "status"}',
    '{"id": %d, "cmd": "config_get"}',
    '{"id": %d, "cmd": "config_set", "config": {"paytables": {"fire": "3"}}, "ctr": 9, "tag": "00"}',
    '{"id": %d, "cmd": "maintenance", "ctr": 99999, "tag": "' + "ab" * 32 + '"}',
    '{"id": %d, "cmd": "selftest"}',
    '{"id": %d, "cmd": "journal_reset", "ctr": 1, "tag": ""}',
    '{"id": %d, "cmd": "nope", "x": [1, [2, {"y": null}]], "z": -0}',
)


def make_link(board):
    handlers = {
        "hello": hello_handler("fuzz", "board-f", lambda: 1000),
        "status": lambda r: {"clock": board.clock},
        "events": lambda r: {"events": [], "next": r["since"], "more": False},
        "subscribe": lambda r: {"on": r["on"]},
        "config_get": lambda r: {"config": {}},
        "time": board.set_time,
    }
    return Link(handlers, KEY, board.store)


def frame(rng, board, sent, state):
    kind = rng.below(16)
    rid = rng.below(1 << 31)
    if kind < 6:
        text = _TEMPLATES[rng.below(len(_TEMPLATES))] % rid
    elif kind < 9:  # a validly signed request, the next counter
        state[0] += 1 + rng.below(3)
        request = {"id": rid, "cmd": "time", "unix": rng.next(), "ctr": state[0]}
        request["tag"] = sign(GATEWAY_KEY, request)  # `time`: the gateway's key (docs/link.md, "Keys")
        board.signed[canonical(request)] = state[0]
        text = lj.encode(request, rng.below(2) == 1)
        sent.append(text)
    elif kind < 10 and sent:  # a replay of an earlier one
        text = sent[rng.below(len(sent))]
    elif kind < 12:  # a forged tag
        request = {"id": rid, "cmd": "time", "unix": 5, "ctr": state[0] + 1, "tag": "%064x" % rng.next()}
        text = lj.encode(request)
    else:
        return rng.bytes(rng.below(1 << (rng.below(11) + 1))), False
    data = text.encode()
    mutated = False
    for _ in range(rng.below(4) if rng.below(2) else 0):
        data = mutate(rng, data)
        mutated = True
    return data, not mutated and kind >= 6 and kind < 9


def mutate(rng, data):
    n = len(data)
    if n == 0:
        return bytes([rng.below(256)])
    at = rng.below(n)
    how = rng.below(8)
    if how == 0:
        return data[:at] + bytes([(0x03, 0x0A, 0xFF, 0x00, 0x22, 0x5C)[rng.below(6)]]) + data[at + 1 :]
    if how == 1:
        return data[:at] + bytes([rng.below(256)]) + data[at + 1 :]
    if how == 2:
        return data[:at] + bytes([rng.below(128)]) + data[at:]
    if how == 3:
        return data[:at] + data[at + 1 + rng.below(8) :]
    if how == 4:
        return data[:at] + data[at : at + rng.below(64)] * (1 + rng.below(40)) + data[at:]
    if how == 5:
        return data[:at]
    if how == 6:
        return data[:at] + b"[" * rng.below(20) + data[at:]
    cut = rng.below(n)
    return data[cut:] + data[:cut]


def expected_replies(stream):
    count = 0
    for segment in stream.split(b"\n")[:-1]:
        if segment.strip(b" \t\r"):
            count += 1
    return count


def check_replies(out):
    """Count of reply lines, or -1 when one is not a well-formed reply."""
    lines = out.split(b"\n")
    if lines[-1] != b"":
        return -1
    for line in lines[:-1]:
        if not line or min(line) < 0x20 or max(line) > 0x7E:
            return -1
        try:
            reply = lj.parse(line, len(line))
        except lj.JsonError:
            return -1
        if not isinstance(reply, dict) or "id" not in reply or reply.get("ok") not in (True, False):
            return -1
        if reply["ok"] is False and type(reply.get("error")) is not str:
            return -1
    return len(lines) - 1


def run(seed, frames):
    rng = Rng(seed)
    board = Board()
    link = make_link(board)
    digest = hashlib.sha256()
    sent = []
    state = [0]
    must_accept = []
    done = 0
    replies = 0
    max_length = 0
    too_long = 0
    while done < frames:
        parts = []
        for _ in range(min(_BATCH, frames - done)):
            data, valid = frame(rng, board, sent, state)
            parts.append(data)
            if valid:
                must_accept.append(board.signed[canonical(lj.parse(data, len(data)))])
            done += 1
        stream = b"\n".join(parts) + b"\n"
        chunks = []
        i = 0
        while i < len(stream):
            k = 1 + rng.below(300)
            chunks.append(link.feed(stream[i : i + k]))
            if link.length > LINE_MAX or len(link.buf) != LINE_MAX:
                board.violations += 1
            max_length = max(max_length, link.length)
            i += k
        out = b"".join(chunks)
        got = check_replies(out)
        if got != expected_replies(stream):
            board.violations += 1
        replies += got
        too_long += out.count(b"line longer than")
        digest.update(out)
        if len(sent) > 64:
            sent = sent[-32:]
        if _MICROPYTHON:
            gc.collect()  # the harness's big strings fragment the VM's heap; the core's are small
    accepted = board.accepted
    for ctr in must_accept:
        if ctr not in accepted:
            board.violations += 1
    if board.store.value != (accepted[-1] if accepted else 0):
        board.violations += 1
    return {
        "frames": frames,
        "replies": replies,
        "accepted": len(accepted),
        "must_accept": len(must_accept),
        "violations": board.violations,
        "max_length": max_length,
        "too_long": too_long,
        "digest": "".join("%02x" % b for b in digest.digest()),
    }


if __name__ == "__main__":
    seed, count = sys.stdin.read().split()
    print(lj.encode(run(int(seed), int(count))))
