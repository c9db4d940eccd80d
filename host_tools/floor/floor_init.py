"""A floor's directory made or read: `floor init`, and `make floor`'s first
step (supervise.py). Below both the CLI and the supervisor."""

import os

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, floorkeys


def floor_or_none(directory):
    return floordir.read_floor(directory) if os.path.exists(os.path.join(directory, "floor.json")) else None


def init(directory, tables, name="main", port=18830, ws_port=18831):
    """The floor's directory: floor.json, passwords, a key per table, the broker's files."""
    from host_tools import keys
    from host_tools.floor.bus import broker
    from host_tools.floor.progressive import cli as progressive_cli

    if tables < 1 or tables > 200:
        raise HostToolError("--tables must be 1 to 200", EXIT_USAGE)
    try:
        floor = floordir.new_floor(directory, name, ["T%d" % (i + 1) for i in range(tables)], port, ws_port)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    for t in floor["tables"]:
        path = os.path.join(directory, "keys", t + ".key")
        if not os.path.exists(path):
            keys.save_key(path, keys.new_key())
        floorkeys.provision(directory, t, keys.read_key(path))  # the floor's keys of the table's board
    progressive_cli.write_default_params(directory)
    broker.write_config(directory, floor)
    return floor
