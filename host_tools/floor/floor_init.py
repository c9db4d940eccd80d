"""A floor's directory made or read: `floor init`, and `make floor`'s first
step (supervise.py). Below both the CLI and the supervisor."""

import os

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, floorkeys


def floor_or_none(directory):
    return floordir.read_floor(directory) if os.path.exists(os.path.join(directory, "floor.json")) else None


def init(directory, tables, name="main", port=18830, ws_port=18831, pits=0):
    """The floor's directory: floor.json, passwords, a key per table, the broker's files;
    with `pits`, that many pit brokers (from the broker's port + 100) bridged to the floor's."""
    from host_tools import keys
    from host_tools.floor.bus import broker
    from host_tools.floor.progressive import cli as progressive_cli

    if tables < 1 or tables > 200:
        raise HostToolError("--tables must be 1 to 200", EXIT_USAGE)
    from host_tools.floor.bus import bridge
    from host_tools.floor.bus import pits as pit_list

    names = ["T%d" % (i + 1) for i in range(tables)]
    try:
        floor = floordir.new_floor(directory, name, names, port, ws_port)
        if pits or floor.get("pits"):  # written, then made again: each bridge gets its password
            kept = floor.get("pits") or []
            if pits and [t for p in kept for t in p["tables"]] == names and len(kept) == pits:
                pass  # the same pits over the same tables: their brokers keep their ports
            elif pits:
                floor["pits"] = pit_list.assign(names, pits, port + 100)
            else:
                del floor["pits"]
            floordir.write_json(os.path.join(directory, "floor.json"), floor)
            floor = floordir.new_floor(directory, name, names, port, ws_port)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    for t in floor["tables"]:
        path = os.path.join(directory, "keys", t + ".key")
        if not os.path.exists(path):
            keys.save_key(path, keys.new_key())
        floorkeys.provision(directory, t, keys.read_key(path))  # the floor's keys of the table's board
    progressive_cli.write_default_params(directory)
    broker.write_config(directory, floor)
    bridge.write_pits(directory, floor)
    return floor
