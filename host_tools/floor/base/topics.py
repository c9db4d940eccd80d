"""The floor's topic tree and payloads (docs/floor.md), in one place.

Home-Assistant-like: a device's availability is a retained `online` /
`offline` that the broker itself turns to `offline` (the client's last will)
when a gateway vanishes, so any tool a broker operator already knows shows a
table's presence without a floor-specific protocol. Payloads are JSON with a
version field `v`; a consumer ignores a version it does not know.
"""

import json
import re

ROOT = "crapsfloor/v1"
VERSION = 1
ONLINE, OFFLINE = "online", "offline"
# Names that go into topics: letters, digits, '-' and '_' (no '/', '+', '#').
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def check_name(what, name):
    """`name` if it can be a topic level, else ValueError naming `what`."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError("%s %r: use 1-32 letters, digits, '-' or '_'" % (what, name))
    return name


def floor_root(floor):
    return "%s/%s" % (ROOT, floor)


def table(floor, table_id, leaf):
    """crapsfloor/v1/<floor>/table/<table>/<leaf>; leaf: event, state, presence,
    heartbeat, availability, recorded, downlink."""
    return "%s/table/%s/%s" % (floor_root(floor), table_id, leaf)


def alert(floor, alert_id):
    return "%s/alert/%s" % (floor_root(floor), alert_id)


def ack(floor, role, user):
    return "%s/ack/%s/%s" % (floor_root(floor), role, user)


def meter(floor, game):
    return "%s/progressive/%s/meter" % (floor_root(floor), game)


def heartbeat_payload(table_id, keepalive, online):
    """A gateway's heartbeat (every keepalive/2, QoS 0, not retained): its own
    word on the table (`online` while it reaches the board) and its keepalive,
    from which the recorder judges the table (host_tools/floor/base/presence.py)."""
    return encode({"table": table_id, "keepalive": keepalive, "presence": ONLINE if online else OFFLINE})


def parse_heartbeat(table_id, payload):
    """(online, keepalive) of a heartbeat on table_id's topic, or ValueError with a one-line reason."""
    obj = decode(payload)
    keepalive = obj.get("keepalive")
    if obj.get("table") != table_id:
        raise ValueError("heartbeat of table %r on table %s's topic" % (obj.get("table"), table_id))
    if not isinstance(keepalive, (int, float)) or isinstance(keepalive, bool) or not 1 <= keepalive <= 65535:
        raise ValueError("heartbeat keepalive %r" % (keepalive,))
    if obj.get("presence") not in (ONLINE, OFFLINE):
        raise ValueError("heartbeat presence %r" % (obj.get("presence"),))
    return obj["presence"] == ONLINE, keepalive


def parse_table_topic(floor, topic):
    """(table, leaf) of a table topic on `floor`, or None."""
    prefix = floor_root(floor) + "/table/"
    if not topic.startswith(prefix):
        return None
    parts = topic[len(prefix) :].split("/")
    if len(parts) != 2 or not _NAME.match(parts[0]):
        return None
    return parts[0], parts[1]


def encode(obj):
    """A payload: compact JSON, keys sorted, with the version first-class."""
    return json.dumps(dict(obj, v=VERSION), sort_keys=True, separators=(",", ":")).encode()


def decode(payload):
    """The payload's object, or ValueError with a one-line reason."""
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("not JSON")
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if obj.get("v") != VERSION:
        raise ValueError("payload version %r, this floor reads %d" % (obj.get("v"), VERSION))
    return obj


def event_payload(table_id, board, journal_id, record, prev_hex, head_hex=None):
    """One journal record on the bus: the table, the journal's identity
    (board id and journal id), the record's fields as the link sends them
    (seq, t, kind, arg, dice, state, payload, unix) with its 8-byte chain
    `link` and, in a format-2 journal, its 8-byte `mac` (the keyed chain,
    checked only with the board's key), and `prev`, the chain hash before it,
    so any consumer can check the link: sha256(prev ‖ record)[:8]
    (docs/journal.md)."""
    fields = {k: v for k, v in record.items() if k not in ("event",)}
    out = {"table": table_id, "journal": {"board": board, "id": journal_id}, "prev": prev_hex, "record": fields}
    if head_hex is not None:
        out["head"] = head_hex
    return encode(out)
