"""Pits: a mosquitto per pit, bridged to the floor's broker with mosquitto's
own bridge (docs/floor.md, Pits).

floor.json's `pits` ([{"name", "port", "ws_port", "tables"[, "floor_address"]}])
names each pit's broker and its tables. A table's gateway talks to its pit's
broker only; the pit's broker carries the table's `event`, `state`,
`presence` and `heartbeat` out to the floor and the table's `recorded` and
`downlink` and the progressive's meters and presence in, nothing else. The
floor's broker lets the pit's bridge account (`bridge-PIT`, a password of its
own) write only its own tables' topics and read only what they need, so a
pit can speak for no other pit's table whatever its broker is made to send.

The bridge keeps a persistent session both ways (cleansession false) and the
pit's broker persists what it queues, so records published while the bridge
is down (the floor's broker away, the network cut) go out when it is back,
in order; the gateways' outboxes and the recorder's `recorded` close any
hole a broker killed between saves leaves, as on one broker.

Each pit's broker runs from DIR/pits/PIT/ (its mosquitto.conf, passwd, acl,
data/ and log), its passwords the floor's own (DIR/secrets).
"""

import os

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import broker
from host_tools.floor.bus.pits import IN, OUT, bridge_user, pit_dir, pits

RESTART_S = (1, 10)  # the bridge's reconnection back-off: from 1 s, doubling to 10 s


def bridge_lines(directory, floor, pit):
    """The pit broker's `connection` section: its bridge to the floor's broker."""
    name, root = floor["floor"], topics.floor_root(floor["floor"])
    user = bridge_user(pit["name"])
    address = pit.get("floor_address") or "127.0.0.1:%d" % floor["port"]
    lines = [
        "",
        "# The bridge to the floor's broker: this pit's tables up, what they need down (docs/floor.md, Pits).",
        "connection " + user,
        "address " + address,
        "bridge_protocol_version mqttv311",
        "remote_clientid " + user,
        "local_clientid %s-local" % user,
        "remote_username " + user,
        "remote_password " + floordir.password(directory, user),
        "cleansession false",
        "try_private true",
        "notifications false",
        "start_type automatic",
        "restart_timeout %d %d" % RESTART_S,
        "keepalive_interval 10",
    ]
    tls = pit.get("bridge_tls")  # the floor's TLS listener: the CA, and this bridge's own certificate (CN bridge-PIT)
    if tls:
        for key in ("cafile", "certfile", "keyfile"):
            if not tls.get(key):
                raise HostToolError(
                    "floor.json's pit %s: bridge_tls needs cafile, certfile and keyfile" % pit["name"], EXIT_USAGE
                )
            lines.append("bridge_%s %s" % (key, os.path.abspath(tls[key])))
        lines.append("bridge_tls_version tlsv1.2")
    for t in pit["tables"]:
        lines += ["topic %s %s %d" % (topics.table(name, t, leaf), "out", qos) for leaf, qos in OUT]
        lines += ["topic %s in 1" % topics.table(name, t, leaf) for leaf in IN]
    lines += ["topic %s/progressive/+/meter in 1" % root, "topic %s/progressive/presence in 1" % root, ""]
    return lines


def write_pit_config(directory, floor, pit):
    """DIR/pits/PIT/: floor.json (the pit's broker: its ports and tables), mosquitto.conf with
    the bridge, acl and passwd (its tables' gateways)."""
    d = pit_dir(directory, pit)
    for sub in ("data", "logs"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    own = {
        "floor": floor["floor"],
        "tables": list(pit["tables"]),
        "port": pit["port"],
        "ws_port": pit["ws_port"],
        "people": [],
        "pit": pit["name"],
    }
    if pit.get("bind"):
        own["bind"] = pit["bind"]
    floordir.write_json(os.path.join(d, "floor.json"), own)
    acl = broker.acl_text(dict(own, tables=own["tables"]))
    acl = acl[: acl.index("user recorder")]  # the pit's broker has only its gateways
    conf = broker.config_text(d, own) + "\n".join(bridge_lines(directory, floor, pit))
    with open(os.path.join(d, "acl"), "w", encoding="utf-8") as f:
        f.write(acl)
    fd = os.open(os.path.join(d, "mosquitto.conf"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # holds a password
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(conf)
    broker.write_passwd(directory, os.path.join(d, "passwd"), [floordir.gateway_user(t) for t in pit["tables"]])
    return d


def write_pits(directory, floor):
    """Every pit's directory; [pit directory]."""
    return [write_pit_config(directory, floor, p) for p in pits(floor)]
