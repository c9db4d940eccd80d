"""A floor's pits as floor.json names them (`pits`: [{"name", "port",
"ws_port", "tables"[, "floor_address", "bridge_tls"]}]): which pit holds a
table, each pit's bridge account, and what the floor's broker lets that
account do (docs/floor.md, Pits). bridge.py writes the pits' brokers.
"""

import os

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.base import topics

OUT = (("event", 1), ("state", 1), ("presence", 1), ("heartbeat", 0))  # a table's topics the pit sends up
IN = ("recorded", "downlink")  # a table's topics the pit takes down


def bridge_user(pit):
    return "bridge-" + pit


def pits(floor):
    """floor.json's pits, checked: names, ports and tables (each table in at most one pit)."""
    out, seen = [], set()
    for p in floor.get("pits") or []:
        if not isinstance(p, dict) or not isinstance(p.get("port"), int) or not isinstance(p.get("ws_port"), int):
            raise HostToolError("floor.json's pits: each needs a name, a port, a ws_port and tables", EXIT_USAGE)
        try:
            topics.check_name("pit", p.get("name"))
        except ValueError as e:
            raise HostToolError("floor.json's pits: %s" % e, EXIT_USAGE)
        for t in p.get("tables") or []:
            if t not in floor["tables"] or t in seen:
                raise HostToolError(
                    "floor.json's pit %s: table %s is not the floor's or is in two pits" % (p["name"], t), EXIT_USAGE
                )
            seen.add(t)
        out.append(p)
    return out


def pit_of(floor, table):
    """The pit holding `table`, or None (a table on the floor's broker itself)."""
    for p in pits(floor):
        if table in p["tables"]:
            return p
    return None


def pit_dir(directory, pit):
    return os.path.join(directory, "pits", pit["name"])


def floor_acl(floor):
    """The floor broker's ACL lines for every pit's bridge account."""
    root = topics.floor_root(floor["floor"])
    lines = []
    for p in pits(floor):
        lines += ["user " + bridge_user(p["name"])]
        for t in p["tables"]:
            lines += ["topic write " + topics.table(floor["floor"], t, leaf) for leaf, _ in OUT]
            lines += ["topic read " + topics.table(floor["floor"], t, leaf) for leaf in IN]
        lines += ["topic read %s/progressive/+/meter" % root, "topic read %s/progressive/presence" % root, ""]
    return lines


def assign(tables, count, port):
    """`count` pits over `tables` in order (as even as can be), their brokers on port, port+2, …"""
    if count < 1 or count > len(tables):
        raise HostToolError("--pits must be 1 to the number of tables (%d)" % len(tables), EXIT_USAGE)
    out, start = [], 0
    for i in range(count):
        n = len(tables) // count + (1 if i < len(tables) % count else 0)
        out.append(
            {
                "name": "P%d" % (i + 1),
                "port": port + 2 * i,
                "ws_port": port + 2 * i + 1,
                "tables": list(tables[start : start + n]),
            }
        )
        start += n
    return out
