"""`python -m host_tools floor progressive | meter | progressive-params | progressive-install |
progressive-ledger-import` (docs/progressive.md).

SUBCOMMANDS maps a `floor` subcommand to (add_arguments, run, help), as
pit_cli does; host_tools/floor/cli.py takes them in.
"""

import json
import math
import os
import time
from fractions import Fraction

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, metrics, topics, words
from host_tools.floor.bus import retained
from host_tools.floor.progressive import integrity, ledgers, messages, params, rtp


def _dir(parser):
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR, else build/floor)")


def initial_params(directory, ledger=None):
    """The floor's parameters file (floor init writes the defaults): {game: Params}; exit 2 when bad.
    Once the ledger (`ledger`: its location, ledgers.py) holds parameters the file is only
    compared with them, and may be gone."""
    path = params.params_path(directory)
    if not os.path.exists(path) and ledgers.started(ledgers.where(directory, ledger)):
        return {}
    try:
        return params.load(path)
    except ValueError as e:
        raise HostToolError(str(e), EXIT_USAGE)


def write_default_params(directory):
    """DIR/progressive.json with the defaults, unless the floor has one; and the record of the
    controller's code as installed (integrity.py), which its self-check compares at start."""
    path = params.params_path(directory)
    if not os.path.exists(path):
        floordir.write_json(path, params.default_params())
    integrity.install(directory)


# ---- floor progressive-install ---------------------------------------------------------------


def add_install_arguments(parser):
    _dir(parser)


def run_install(args):
    d = floordir.floor_dir(args.dir)
    floordir.read_floor(d)  # a floor's directory, or one line
    digest = integrity.install(d)
    print("the progressive controller's code recorded as installed: %s (%s)" % (digest, integrity.record_path(d)))


# ---- floor progressive-ledger-import ---------------------------------------------------------


def add_import_arguments(parser):
    parser.add_argument("--ledger", required=True, help="postgresql://…: the empty ledger to copy into")
    _dir(parser)


def run_import(args):
    from host_tools.floor.progressive import ledger_import

    d = floordir.floor_dir(args.dir)
    path = params.ledger_path(d)
    if not ledgers.is_url(args.ledger):
        raise HostToolError("--ledger %s: give a postgresql:// URL" % args.ledger, EXIT_USAGE)
    if not os.path.exists(path):
        raise HostToolError("no SQLite ledger at %s: nothing to copy" % path, EXIT_USAGE)
    rows = ledger_import.copy(path, args.ledger)
    print("copied %s into %s: %d log rows, the same meters" % (path, ledgers.shown(args.ledger), rows))


# ---- floor progressive -------------------------------------------------------------------


def add_service_arguments(parser):
    parser.add_argument("--broker", help="mqtt://HOST[:PORT] (default: the floor's, on this machine)")
    metrics.add_option(parser)
    parser.add_argument("--db", help="the recorder's SQLite or postgresql:// URL, for what the bus lost")
    parser.add_argument(
        "--lease",
        help="postgresql://…: write the meters only while holding the floor's progressive lease (a standby till then)",
    )
    _ledger(parser)
    _dir(parser)


def _ledger(parser):
    parser.add_argument(
        "--ledger",
        help="the controller's ledger: postgresql://… (a standby on another machine reaches it) "
        "or a SQLite file (default DIR/progressive.sqlite)",
    )


def run_service(args):
    from host_tools.floor.progressive import service

    d = floordir.floor_dir(args.dir)
    floor = floordir.read_floor(d)
    url = args.broker or "mqtt://127.0.0.1:%d" % floor["port"]
    password = floordir.password(d, "progressive")
    ledgers.check_not_split(d, ledgers.where(d, args.ledger))
    recorded = args.db or os.path.join(d, "recorder.sqlite")  # the floor's verified copy, for what the bus lost
    service.serve(
        floor["floor"],
        url,
        password,
        ledgers.where(d, args.ledger),
        initial_params(d, args.ledger),
        recorder_path=recorded,
        keys_dir=d,
        metrics_port=args.metrics_port,
        lease_url=args.lease,
        directory=d,
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
    got, presence, checks = {}, [], []
    meter_prefix = topics.floor_root(floor["floor"]) + "/progressive/"
    for topic, payload in retained.read(directory, url, [meter_prefix + "#"], wait):
        if topic == messages.presence_topic(floor["floor"]):
            presence.append(payload.decode("ascii", "replace"))
        elif topic == messages.check_topic(floor["floor"]):
            try:
                checks.append(topics.decode(payload))
            except ValueError:
                checks.append({"ok": False, "reason": "the controller's self-check report does not parse"})
        elif topic.startswith(meter_prefix) and topic.endswith("/meter"):
            try:
                obj = topics.decode(payload)
            except ValueError:
                continue
            got[obj.get("game")] = obj
    now = time.time() if now is None else now
    online = bool(presence) and presence[-1] == topics.ONLINE
    check = checks[-1] if checks else {"ok": None, "reason": "no self-check report from the controller"}
    controller = {
        "presence": presence[-1] if presence else None,
        "self_check_ok": check.get("ok"),
        "self_check": check.get("reason"),
        "code_digest": (check.get("code") or {}).get("digest"),
    }
    rows = []
    for game in sorted(g for g in got if g in params.GAMES):
        m = got[game]
        fresh = isinstance(m.get("at"), (int, float)) and now - m["at"] <= STALE_AFTER_S
        keys = ("game", "amount", "reserve", "overflow", "base_unit", "base", "reset", "reserve_ceiling", "cap")
        row = {k: m.get(k) for k in keys + ("paytable", "pay_rule", "pending")}
        row["state"] = m.get("state") if online and fresh else "closed"
        rule = m.get("pay_rule") or "shared"
        after = min(m["cap"], m["reset"] + (m.get("overflow") or 0)) if "reset" in m and "cap" in m else None
        fig = rtp.figures(
            game,
            m["paytable"],
            m["amount"],
            m["base_unit"],
            rule,
            after,
            m.get("hits_seen") or 0,
            m.get("winning_wagers_seen") or 0,
        )
        seen, per = fig["winners_per_hit"], fig["per_wager"]
        row.update(
            {
                "return": "%d/%d" % (fig["return"].numerator, fig["return"].denominator),
                "return_pct": fig["return_pct"],
                "return_per_wager": {str(w): "%d/%d" % (v.numerator, v.denominator) for w, v in per.items()},
                "return_per_wager_pct": {str(w): rtp.truncated_pct(v, 4) for w, v in per.items()},
                "break_even": fig["break_even"],
                "hits_seen": m.get("hits_seen") or 0,
                "winners_per_hit": "%d/%d" % (seen.numerator, seen.denominator),
                "break_even_seen": fig["break_even_seen"],
                "past_break_even": fig["past_break_even"],
                "controller": controller,
                "tables": m.get("tables") or {},
                "closed_tables": m.get("closed_tables") or {},
            }
        )
        rows.append(row)
    if not rows and check.get("ok") is False:
        raise HostToolError("the progressive controller refused to open: %s" % check.get("reason"), EXIT_FAILED)
    return rows


def tables_line(r):
    """The tables linked to a game and the paytable each plays, as `floor meter` prints them."""
    if not r["tables"]:
        return "%s tables: none has said its paytable yet" % r["game"]
    said = []
    for t, plays in sorted(r["tables"].items()):
        closed = r["closed_tables"].get(t)
        said.append("%s %s%s" % (t, plays, " (CLOSED: %s)" % closed if closed else ""))
    return "%s tables: %s" % (r["game"], ", ".join(said))


def controller_line(c):
    """The controller's self-check, as `floor meter` prints it under the meters."""
    if c["self_check_ok"] is True:
        return "controller %s; self-check: %s" % (c["presence"], c["self_check"])
    if c["self_check_ok"] is False:
        return "controller REFUSED to open (every table closed): %s" % c["self_check"]
    return "controller %s; %s" % (c["presence"], c["self_check"])


def meter_line(r):
    """One game as `floor meter` prints it; percentages cut, never rounded up past break-even."""
    flag = "PAST BREAK-EVEN" if r["past_break_even"] else "below break-even"
    seen = Fraction(r["winners_per_hit"])
    rule = "shared by winning wagers" if r["pay_rule"] != "positional" else "each winning wager in position order"
    per = " / ".join("%.2f%%" % rtp.truncated_pct(Fraction(r["return_per_wager"][w]), 2) for w in ("1", "2", "3"))
    return (
        "%s %-8s %13s (%d cents)  reserve %d cents  overflow %d cents  %s %s  "
        "return per wager %s (1 / 2 / 3 winning wagers)  winning wagers per hit seen %.2f (%d hits)  "
        "break-even %s (%s at the winners seen): %s"
        % (
            r["game"],
            r["state"],
            words.money(r["amount"]),
            r["amount"],
            r["reserve"],
            r["overflow"] or 0,
            r["paytable"],
            rule,
            per,
            math.floor(seen * 100) / 100,
            r["hits_seen"],
            words.money(r["break_even"]),
            words.money(r["break_even_seen"]),
            flag,
        )
    )


def run_meter(args):
    rows = meters(floordir.floor_dir(args.dir), args.broker, args.wait)
    if not rows:
        raise HostToolError("no progressive meter on the broker: is the controller running?", EXIT_FAILED)
    if args.json:
        print(json.dumps(rows, sort_keys=True))
        return
    for r in rows:
        print(meter_line(r))
        print(tables_line(r))
    print(controller_line(rows[0]["controller"]))


# ---- floor progressive-params ---------------------------------------------------------------


def add_params_arguments(parser):
    parser.add_argument("--game", required=True, help="MEA or FUP")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a parameter to change")
    parser.add_argument("--technician", required=True, help="the technician doing the maintenance")
    parser.add_argument("--manager", required=True, help="the shift manager authorising it")
    parser.add_argument("--broker")
    _ledger(parser)
    _dir(parser)


def run_params(args):
    from host_tools.floor.progressive import maintenance

    d = floordir.floor_dir(args.dir)
    maintenance.checked_change(d, args.game, args.set, args.ledger)  # every field, before passwords and live tables
    passwords = maintenance.read_passwords(args.technician, args.manager)
    print(
        maintenance.change(
            d, args.game, args.set, args.technician, args.manager, passwords, args.broker, ledger=args.ledger
        )
    )


SUBCOMMANDS = {
    "progressive-install": (
        add_install_arguments,
        run_install,
        "record the progressive controller's code as installed (its self-check compares it at start)",
    ),
    "progressive-ledger-import": (
        add_import_arguments,
        run_import,
        "copy the floor's SQLite progressive ledger into an empty one on PostgreSQL (once, on moving there)",
    ),
    "progressive": (add_service_arguments, run_service, "the linked progressive's controller (the meters' writer)"),
    "meter": (add_meter_arguments, run_meter, "each progressive meter, its state and its return to player"),
    "progressive-params": (
        add_params_arguments,
        run_params,
        "change a progressive's parameters: a technician and a shift manager, no table live",
    ),
}
