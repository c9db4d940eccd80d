"""`python -m host_tools floor progressive | meter | progressive-params` (docs/progressive.md).

SUBCOMMANDS maps a `floor` subcommand to (add_arguments, run, help), as
pit_cli does; host_tools/floor/cli.py takes them in.
"""

import json
import os
import time

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, metrics, topics, words
from host_tools.floor.bus import retained
from host_tools.floor.progressive import messages, params, rtp


def _dir(parser):
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR, else build/floor)")


def initial_params(directory):
    """The floor's parameters file (floor init writes the defaults): {game: Params}; exit 2 when bad.
    Once the ledger holds parameters the file is only compared with them, and may be gone."""
    path = params.params_path(directory)
    if not os.path.exists(path) and os.path.exists(params.ledger_path(directory)):
        return {}
    try:
        return params.load(path)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)


def write_default_params(directory):
    """DIR/progressive.json with the defaults, unless the floor has one."""
    path = params.params_path(directory)
    if not os.path.exists(path):
        floordir.write_json(path, params.default_params())


# ---- floor progressive -------------------------------------------------------------------


def add_service_arguments(parser):
    parser.add_argument("--broker", help="mqtt://HOST[:PORT] (default: the floor's, on this machine)")
    metrics.add_option(parser)
    parser.add_argument("--db", help="the recorder's SQLite or postgresql:// URL, for what the bus lost")
    parser.add_argument(
        "--lease",
        help="postgresql://…: write the meters only while holding the floor's progressive lease (a standby till then)",
    )
    _dir(parser)


def run_service(args):
    from host_tools.floor.progressive import service

    d = floordir.floor_dir(args.dir)
    floor = floordir.read_floor(d)
    url = args.broker or "mqtt://127.0.0.1:%d" % floor["port"]
    password = floordir.password(d, "progressive")
    recorded = args.db or os.path.join(d, "recorder.sqlite")  # the floor's verified copy, for what the bus lost
    service.serve(
        floor["floor"],
        url,
        password,
        params.ledger_path(d),
        initial_params(d),
        recorder_path=recorded,
        metrics_port=args.metrics_port,
        lease_url=args.lease,
    )


# ---- floor meter -----------------------------------------------------------------------


def add_meter_arguments(parser):
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--broker")
    parser.add_argument("--wait", type=float, default=1.0, help="seconds to collect the retained messages")
    _dir(parser)


def meters(directory, broker_url=None, wait=1.0, now=None):
    """[{game, amount, reserve, state, …, return_pct, break_even, past_break_even}] from the
    controller's retained meters; `state` is `closed` while the controller is not online
    or its meter is older than service.STALE_AFTER_S."""
    from host_tools.floor.progressive.service import STALE_AFTER_S

    floor = floordir.read_floor(directory)
    url = broker_url or "mqtt://127.0.0.1:%d" % floor["port"]
    got, presence = {}, []
    meter_prefix = topics.floor_root(floor["floor"]) + "/progressive/"
    for topic, payload in retained.read(directory, url, [meter_prefix + "#"], wait):
        if topic == messages.presence_topic(floor["floor"]):
            presence.append(payload.decode("ascii", "replace"))
        elif topic.startswith(meter_prefix) and topic.endswith("/meter"):
            try:
                obj = topics.decode(payload)
            except ValueError:
                continue
            got[obj.get("game")] = obj
    now = time.time() if now is None else now
    online = bool(presence) and presence[-1] == topics.ONLINE
    rows = []
    for game in sorted(g for g in got if g in params.GAMES):
        m = got[game]
        fresh = isinstance(m.get("at"), (int, float)) and now - m["at"] <= STALE_AFTER_S
        row = {k: m.get(k) for k in ("game", "amount", "reserve", "base_unit", "seed", "cap", "paytable", "pending")}
        row["state"] = m.get("state") if online and fresh else "closed"
        row.update(rtp.figures(game, m["paytable"], m["amount"], m["base_unit"]))
        row["return"] = "%d/%d" % (row["return"].numerator, row["return"].denominator)
        rows.append(row)
    return rows


def run_meter(args):
    rows = meters(floordir.floor_dir(args.dir), args.broker, args.wait)
    if not rows:
        raise HostToolError("no progressive meter on the broker: is the controller running?", EXIT_FAILED)
    if args.json:
        print(json.dumps(rows, sort_keys=True))
        return
    for r in rows:
        flag = "PAST BREAK-EVEN" if r["past_break_even"] else "below break-even"
        print(
            "%s %-8s %13s (%d cents)  reserve %d cents  %s return %.2f%%  break-even %s: %s"
            % (
                r["game"],
                r["state"],
                words.money(r["amount"]),
                r["amount"],
                r["reserve"],
                r["paytable"],
                r["return_pct"],
                words.money(r["break_even"]),
                flag,
            )
        )


# ---- floor progressive-params ---------------------------------------------------------------


def add_params_arguments(parser):
    parser.add_argument("--game", required=True, help="MEA or FUP")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a parameter to change")
    parser.add_argument("--technician", required=True, help="the technician doing the maintenance")
    parser.add_argument("--manager", required=True, help="the shift manager authorising it")
    parser.add_argument("--broker")
    _dir(parser)


def run_params(args):
    from host_tools.floor.progressive import maintenance

    d = floordir.floor_dir(args.dir)
    passwords = maintenance.read_passwords(args.technician, args.manager)
    print(maintenance.change(d, args.game, args.set, args.technician, args.manager, passwords, args.broker))


SUBCOMMANDS = {
    "progressive": (add_service_arguments, run_service, "the linked progressive's controller (the meters' writer)"),
    "meter": (add_meter_arguments, run_meter, "each progressive meter, its state and its return to player"),
    "progressive-params": (
        add_params_arguments,
        run_params,
        "change a progressive's parameters: a technician and a shift manager, no table live",
    ),
}
