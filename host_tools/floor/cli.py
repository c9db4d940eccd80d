"""The floor's commands: `gateway`, `recorder` and `floor init | up | status |
events | keys` (docs/floor.md). Each is a plain function too (the Python API)."""

import csv
import json
import os
import sys

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor import floor_init, pit_cli
from host_tools.floor.base import floordir, floorkeys, metrics, topics
from host_tools.floor.base.presence import shown
from host_tools.floor.bus import mqtt, pits, retained


def _dir_option(parser):
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR, else build/floor)")


def _broker_url(args, floor):
    if args.broker:
        return args.broker
    return "mqtt://127.0.0.1:%d" % (floor["port"] if floor else 1883)


def _tls_arguments(parser):
    parser.add_argument("--ca-file", help="mqtts:// only: the floor's CA certificate, PEM (default: the system's CAs)")
    parser.add_argument("--cert-file", help="mqtts:// only: the account's certificate, PEM (its CN is the account)")
    parser.add_argument("--key-file", help="mqtts:// only: that certificate's private key, PEM")


def _credentials(args, url, user, password_file):
    """(TLS context or None, password or None) for `user` at `url`. With a
    client certificate the broker takes the account from its CN
    (`use_identity_as_username`): it must be `user`, and no password is read."""
    tls = mqtt.tls_context(url, args.ca_file, args.cert_file, args.key_file)
    if args.cert_file:
        name = mqtt.certificate_name(args.cert_file)
        if name != user:
            raise HostToolError(
                "--cert-file %s is the certificate of %s (its CN), not of %s" % (args.cert_file, name, user), EXIT_USAGE
            )
        return tls, None
    return tls, floordir.read_password_file(password_file)


# ---- gateway -------------------------------------------------------------------------


def _gateway_arguments(parser):
    parser.add_argument("--port", "-p", required=True, help="the board's serial port")
    parser.add_argument("--table", required=True, help="the table's id (a topic level: letters, digits, - and _)")
    parser.add_argument("--broker", help="mqtt[s]://HOST[:PORT] (default: the floor's, on this machine)")
    parser.add_argument("--floor", help="the floor's name in the topics (default: floor.json's)")
    parser.add_argument("--user", help="broker account (default gateway-TABLE)")
    parser.add_argument(
        "--password-file", help="the account's password (default DIR/secrets/USER; none with --cert-file)"
    )
    parser.add_argument("--outbox", help="SQLite outbox (default DIR/gateways/TABLE.sqlite)")
    parser.add_argument(
        "--key", help="the table's gateway key (default DIR/keys/TABLE.gateway, from `floor provision`)"
    )
    parser.add_argument("--keepalive", type=int, default=mqtt.KEEPALIVE_S, help="MQTT keepalive, seconds")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for each board reply")
    metrics.add_option(parser)
    _tls_arguments(parser)
    _dir_option(parser)


def _run_gateway(args):
    from host_tools import keys
    from host_tools.floor.base import floorkeys
    from host_tools.floor.gateway.service import Gateway, serve

    d = floordir.floor_dir(args.dir)
    floor = floor_init.floor_or_none(d)
    try:
        topics.check_name("table", args.table)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    name = args.floor or (floor["floor"] if floor else "main")
    user = args.user or floordir.gateway_user(args.table)
    url = _broker_url(args, floor)
    pit = pits.pit_of(floor, args.table) if floor and not args.broker else None
    if pit:  # a table in a pit talks to its pit's broker
        url = "mqtt://127.0.0.1:%d" % pit["port"]
    tls, password = _credentials(args, url, user, args.password_file or os.path.join(d, "secrets", user))
    key = keys.read_key(args.key or floorkeys.path(d, args.table, "gateway"))
    outbox = args.outbox or os.path.join(d, "gateways", args.table + ".sqlite")
    if args.keepalive < 1:
        raise HostToolError("--keepalive must be at least 1 second", EXIT_USAGE)
    gateway = Gateway(
        args.port, args.table, name, url, user, password, outbox, key, args.keepalive, args.timeout, tls=tls
    )
    from host_tools.floor.gateway.metrics import GatewayFigures

    metrics.expose(args.metrics_port, GatewayFigures(gateway).read)
    serve(gateway)


# ---- recorder ------------------------------------------------------------------------


def _recorder_arguments(parser):
    parser.add_argument("--broker", help="mqtt[s]://HOST[:PORT] (default: the floor's, on this machine)")
    parser.add_argument("--db", help="the recorder's SQLite file or a postgresql:// URL (default DIR/recorder.sqlite)")
    parser.add_argument("--instance", help="this recorder's name among several on one database (its own session)")
    metrics.add_option(parser)
    _tls_arguments(parser)
    _dir_option(parser)


def _run_recorder(args):
    import signal

    from host_tools.floor.recorder import service as recorder

    d = floordir.floor_dir(args.dir)
    floor = floordir.read_floor(d)
    url = _broker_url(args, floor)
    tls, password = _credentials(args, url, "recorder", os.path.join(d, "secrets", "recorder"))
    stopping = []
    signal.signal(signal.SIGTERM, lambda *a: stopping.append(1))
    try:
        recorder.serve(
            args.db or os.path.join(d, "recorder.sqlite"),
            floor["floor"],
            url,
            "recorder",
            password,
            stop=lambda: bool(stopping),
            tls=tls,
            keys_dir=d,
            instance=args.instance,
            metrics_port=args.metrics_port,
        )
    except KeyboardInterrupt:
        pass


# ---- floor ---------------------------------------------------------------------------


def _floor_arguments(parser):
    sub = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    p = sub.add_parser("init", help="make the floor's directory: accounts, keys, broker configuration")
    p.add_argument("--tables", type=int, default=3)
    p.add_argument("--name", default="main")
    p.add_argument("--port", type=int, default=18830, help="the broker's MQTT port (loopback)")
    p.add_argument("--ws-port", type=int, default=18831, help="the broker's WebSockets port (loopback)")
    p.add_argument("--pits", type=int, default=0, help="that many pit brokers bridged to the floor's (default: none)")
    _dir_option(p)
    p = sub.add_parser("up", help="run a whole floor here: broker, boards, gateways, recorder (make floor)")
    p.add_argument("--tables", type=int, default=3)
    p.add_argument("--keys", default="", help="a key script every board plays once, when this floor comes up")
    p.add_argument(
        "--metrics-port", type=int, default=0, help="Prometheus figures from 127.0.0.1:PORT (kept in floor.json)"
    )
    p.add_argument("--pits", type=int, default=0, help="that many pit brokers bridged to the floor's (default: none)")
    p.add_argument("--db", help="the record's SQLite file or a postgresql:// URL (default DIR/recorder.sqlite)")
    p.add_argument(
        "--standby",
        action="store_true",
        help="with --db postgresql://…: two recorders and two progressive controllers sharing a lease",
    )
    _dir_option(p)
    p = sub.add_parser("status", help="each table: online or offline, its last record and the recorder's lag")
    p.add_argument("--json", action="store_true")
    p.add_argument("--broker")
    p.add_argument("--wait", type=float, default=1.0, help="seconds to collect the retained messages")
    _dir_option(p)
    p = sub.add_parser("events", help="the recorder's events of a table, one JSON object (or CSV row) each")
    p.add_argument("--table", required=True)
    p.add_argument("--since", type=int, default=0, help="records after this sequence number")
    p.add_argument("--journal", type=int, help="only this journal (default: all, oldest first)")
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    p.add_argument("--db", help="the recorder's SQLite file or a postgresql:// URL (default DIR/recorder.sqlite)")
    p.add_argument(
        "--archived", action="store_true", help="the records a board-erased step archived, each with its `erased` step"
    )
    _dir_option(p)
    p = sub.add_parser(
        "provision",
        help="write a table's role keys (journal, gateway, floor, receipt) derived from its board's link key",
    )
    p.add_argument("--table", required=True)
    p.add_argument("--key", required=True, help="the board's link key file (the one deploy wrote to the board)")
    p.add_argument(
        "--roles",
        default=",".join(floorkeys.ROLES),
        help="only these roles (comma-separated), for a floor whose services run on several hosts",
    )
    _dir_option(p)
    p = sub.add_parser("keys", help="press keys on a table's virtual board (make floor's)")
    p.add_argument("--table", required=True)
    p.add_argument("script", help='a key script, e.g. "3 4 6 6" (docs/keys.md)')
    _dir_option(p)
    for name, (add, _, help_text) in _subcommands().items():  # user, page; progressive, meter (22)
        add(sub.add_parser(name, help=help_text, description=help_text))


def _subcommands():
    from host_tools.floor import erase_cli
    from host_tools.floor.pg import cli as pg_cli
    from host_tools.floor.progressive import cli as progressive_cli

    return dict(pit_cli.SUBCOMMANDS, **progressive_cli.SUBCOMMANDS, **pg_cli.SUBCOMMANDS, **erase_cli.SUBCOMMANDS)


def _run_floor(args):
    if args.action in _subcommands():
        return _subcommands()[args.action][1](args)
    d = floordir.floor_dir(args.dir)
    if args.action == "init":
        floor = floor_init.init(d, args.tables, args.name, args.port, args.ws_port, args.pits)
        print(
            "floor %s in %s: %d tables, broker on 127.0.0.1:%d"
            % (floor["floor"], d, len(floor["tables"]), floor["port"])
        )
    elif args.action == "up":
        from host_tools.floor import supervise

        supervise.up(d, args.tables, args.keys, args.metrics_port, args.pits, args.db, args.standby)
    elif args.action == "status":
        rows = status(d, args.broker, args.wait)
        if args.json:
            print(json.dumps(rows, sort_keys=True))
        else:
            for r in rows:
                print(status_line(r))
    elif args.action == "events":
        events(d, args.table, args.since, args.journal, args.format, args.db, sys.stdout, args.archived)
    elif args.action == "provision":
        provision(d, args.table, args.key, args.roles)
    elif args.action == "keys":
        from host_tools.floor import supervise

        queued = supervise.press(d, args.table, args.script)
        print("table %s: queued %s" % (args.table, queued))


def status_line(r):
    """One table for people: `T1  online   board at record 12, recorded 12 (lag 0)`;
    a number the floor does not have is left out, never shown as `-`."""
    said = []
    if r["seq"] is not None:
        said.append("board at record %d" % r["seq"])
    if r["recorded"] is not None:
        said.append("recorded %d" % r["recorded"] + (" (lag %d)" % r["lag"] if r["lag"] is not None else ""))
    presence = r["presence"] or "no word yet"
    return "%-6s %-11s %s" % (r["table"], presence, ", ".join(said) or "no record yet")


def provision(directory, table, key_file, roles="journal,gateway,floor,receipt"):
    """Each role's key of `table`'s board into DIR/keys (docs/link.md, "Keys"); prints what it wrote."""
    from host_tools import keys

    try:
        topics.check_name("table", table)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)
    wanted = [r.strip() for r in roles.split(",") if r.strip()]
    unknown = [r for r in wanted if r not in floorkeys.ROLES]
    if unknown or not wanted:
        raise HostToolError(
            "--roles: %s is not one of %s" % (",".join(unknown) or "nothing", ",".join(floorkeys.ROLES)), EXIT_USAGE
        )
    for path in floorkeys.provision(directory, table, keys.read_key(key_file), wanted):
        print("wrote %s" % path)


def status(directory, broker_url=None, wait=1.0):
    """[{table, presence, judged_by, gateway, seq, recorded, lag, link}] from the
    broker's retained messages. `presence` combines the recorder's verdict
    (its `availability`, judged from the gateway's heartbeats within 1.5x the
    keepalive) with the gateway's own retained word and last will (`gateway`,
    which the broker may give ~7 s late): `offline` if either says so
    (presence.shown); `judged_by` "recorder" where there is a verdict."""
    floor = floordir.read_floor(directory)
    url = broker_url or "mqtt://127.0.0.1:%d" % floor["port"]
    root = topics.floor_root(floor["floor"])
    filters = [root + "/table/+/" + leaf for leaf in ("availability", "presence", "state", "recorded")]
    got = {}
    for topic, payload in retained.read(directory, url, filters, wait):
        where = topics.parse_table_topic(floor["floor"], topic)
        if where:
            got.setdefault(where[0], {})[where[1]] = payload
    rows = []
    for t in sorted(set(floor["tables"]) | set(got)):
        msgs = got.get(t, {})
        gateway = msgs.get("presence", b"").decode("ascii", "replace") or None
        verdict = msgs.get("availability", b"").decode("ascii", "replace") or None
        presence, judged_by = shown(verdict, gateway)
        state = _json(msgs.get("state"))
        recorded = _json(msgs.get("recorded"))
        seq = (state.get("journal") or {}).get("seq") if state else None
        rec = recorded.get("seq") if recorded else None
        lag = seq - rec if isinstance(seq, int) and isinstance(rec, int) else None
        rows.append(
            {
                "table": t,
                "presence": presence,
                "judged_by": judged_by,
                "gateway": gateway,
                "seq": seq,
                "recorded": rec,
                "lag": lag,
                "link": state.get("link") if state else None,
            }
        )
    return rows


def _json(payload):
    if not payload:
        return None
    try:
        return topics.decode(payload)
    except ValueError:
        return None


def events(directory, table_id, since=0, journal=None, fmt="jsonl", db=None, out=None, archived=False):
    """Write the recorder's events of `table_id` after `since` to `out`; `archived`:
    those board-erased steps archived instead, each with its step (`erased`)."""
    from host_tools.floor.alerts import hands
    from host_tools.floor.base import words
    from host_tools.floor.pg.schema import is_url
    from host_tools.floor.recorder.backends import open_store
    from host_tools.floor.recorder.store import NotRecorderDatabase

    path = db or os.path.join(directory, "recorder.sqlite")
    if not is_url(path) and not os.path.exists(path):
        raise HostToolError("no recorder database at %s" % path, EXIT_USAGE)
    try:
        store = open_store(path, readonly=True)
    except NotRecorderDatabase as e:
        raise HostToolError(str(e), EXIT_USAGE) from None
    floor = floor_init.floor_or_none(directory)
    steps = {}
    if archived:
        rows = []
        for step, *row in store.archived(table_id):
            if journal is None or row[2] == journal:
                steps[len(rows)] = step
                rows.append(tuple(row))
    if floor and table_id not in floor["tables"] and next(iter(store.events(table_id, 0, None)), None) is None:
        store.close()  # a table the floor does not have, nor ever recorded
        raise HostToolError(
            "no table %s on this floor (tables: %s)" % (table_id, ", ".join(floor["tables"])), EXIT_USAGE
        )
    if not archived:
        rows = store.events(table_id, 0, journal)  # from each journal's start: its clock records count
    writer = None
    clocks = {}
    for n, (tbl, board, jid, seq, record, received) in enumerate(rows):
        obj = dict(json.loads(record), table=tbl, board=board, journal=jid)
        if archived:
            obj["erased"] = steps[n]
        wall, wall_from = clocks.setdefault((board, jid, steps.get(n)), hands.WallClock()).of(obj, received)
        if seq <= since:
            continue
        obj.update(time=words.when(wall), time_from=wall_from)
        if fmt == "jsonl":
            out.write(json.dumps(obj, sort_keys=True) + "\n")
            continue
        if writer is None:
            fields = [
                "table",
                "board",
                *(["erased"] if archived else []),
                "journal",
                "seq",
                "time",
                "time_from",
                "t",
                "kind",
                "arg",
                "dice",
                "unix",
                "state",
                "payload",
                "link",
            ]
            writer = csv.DictWriter(out, fields, extrasaction="ignore")
            writer.writeheader()
        writer.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in obj.items()})
    store.close()


COMMANDS = {
    "gateway": (_gateway_arguments, _run_gateway, "a table's journal onto the floor's MQTT broker"),
    "recorder": (_recorder_arguments, _run_recorder, "the floor's record: every event once, chains checked"),
    "floor": (_floor_arguments, _run_floor, "floor init | up | status | events | keys"),
}
