"""A floor's own directory: everything one floor needs, and nothing outside it.

    DIR/floor.json        the floor's name, ports, tables and people
    DIR/mosquitto.conf    the broker's configuration (broker.py writes it)
    DIR/passwd, DIR/acl   mosquitto_passwd's hashed passwords; the ACL
    DIR/secrets/USER      each account's password, owner-only (what a client reads)
    DIR/keys/TABLE.key    each table's board key (deploy --key)
    DIR/data/             the broker's persistence; DIR/mosquitto.log its log
    DIR/gateways/TABLE.sqlite, DIR/recorder.sqlite, DIR/boards/TABLE.img, DIR/logs/

Accounts: `gateway-TABLE` per table, the floor services (`recorder`,
`floorctl`, `page` and `progressive`, the linked progressive's controller),
and one per person with a role. DIR/progressive.json and
DIR/progressive.sqlite are the controller's (docs/progressive.md).
"""

import json
import os
import secrets

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.base import topics

DEFAULT_DIR = os.path.join("build", "floor")
SERVICES = ("recorder", "floorctl", "page", "progressive")
ROLES = ("supervisor", "surveillance", "shift_manager", "technician")
# No default person: each is added with `floor user add` and a password of their own (people.py).
DEFAULT_PEOPLE = ()


def floor_dir(given=None):
    return given or os.environ.get("CRAPSFLOOR_DIR") or DEFAULT_DIR


def gateway_user(table_id):
    return "gateway-" + table_id


def read_floor(directory):
    """floor.json of `directory`, or HostToolError (exit 2) when there is none."""
    path = os.path.join(directory, "floor.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise HostToolError(
            "no floor in %s (floor.json missing): run `make floor` or `floor init`" % directory, EXIT_USAGE
        )
    except (OSError, ValueError) as e:
        raise HostToolError("cannot read %s: %s" % (path, getattr(e, "strerror", None) or e), EXIT_USAGE)


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def password(directory, user):
    """The password of `user` kept in DIR/secrets, or HostToolError (exit 2)."""
    return read_password_file(os.path.join(directory, "secrets", user))


def read_password_file(path):
    try:
        with open(path, encoding="ascii") as f:
            text = f.read().strip()
    except (OSError, UnicodeDecodeError) as e:
        raise HostToolError("cannot read password file %s: %s" % (path, getattr(e, "strerror", None) or e), EXIT_USAGE)
    if not text:
        raise HostToolError("password file %s is empty" % path, EXIT_USAGE)
    return text


def accounts(floor):
    """Every account the floor has: [(user, kind, detail)]."""
    out = [(gateway_user(t), "gateway", t) for t in floor["tables"]]
    out += [(s, "service", s) for s in SERVICES]
    out += [("bridge-" + p["name"], "bridge", p["name"]) for p in floor.get("pits") or []]  # bus/pits.py
    out += [(p["user"], "person", p["role"]) for p in floor["people"]]
    return out


def new_floor(directory, name="main", tables=("T1", "T2", "T3"), port=1883, ws_port=9001, people=DEFAULT_PEOPLE):
    """floor.json and a password for each account (kept ones are not replaced)."""
    topics.check_name("floor", name)
    for t in tables:
        topics.check_name("table", t)
    for p in people:
        topics.check_name("user", p["user"])
        if p["role"] not in ROLES:
            raise HostToolError("role %r: one of %s" % (p["role"], ", ".join(ROLES)), EXIT_USAGE)
    for sub in ("secrets", "keys", "data", "gateways", "boards", "logs"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    for private in ("secrets", "keys"):  # the boards' link keys: host_tools.keys refuses a directory others can enter
        os.chmod(os.path.join(directory, private), 0o700)
    # The people added since (`floor user add`) stay when the floor is made again (`make floor`).
    kept = [p for p in _existing_people(directory) if p["user"] not in {q["user"] for q in people}]
    floor = {"floor": name, "tables": list(tables), "port": port, "ws_port": ws_port, "people": list(people) + kept}
    floor.update(_operators_settings(directory))
    write_json(os.path.join(directory, "floor.json"), floor)
    for user, _, _ in accounts(floor):
        path = os.path.join(directory, "secrets", user)
        if not os.path.exists(path):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(16) + "\n")
    return floor


def _operators_settings(directory):
    """What an operator added to floor.json by hand (`bind`: more MQTT addresses;
    `tls`: the TLS listener; `metrics_port`: the services' Prometheus figures; `pits`: the
    pits' brokers, docs/floor.md),
    kept when the floor is made again."""
    try:
        with open(os.path.join(directory, "floor.json"), encoding="utf-8") as f:
            old = json.load(f)
        return {k: old[k] for k in ("bind", "tls", "metrics_port", "pits") if k in old}
    except (OSError, ValueError, TypeError):
        return {}


def _existing_people(directory):
    try:
        with open(os.path.join(directory, "floor.json"), encoding="utf-8") as f:
            people = json.load(f).get("people", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [p for p in people if isinstance(p, dict) and isinstance(p.get("user"), str) and p.get("role") in ROLES]
