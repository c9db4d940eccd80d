"""A recorded maintenance of a progressive's parameters (docs/progressive.md).

Two people of the floor (host_tools/floor/people/accounts.py) must give their own
passwords: a technician, who makes the change, and a shift manager, who
authorises it. Every field is checked first (params.check_game, one line),
then the ledger against its own replay (integrity.py), before the people
and before anyone asks whether a table is live. It is
refused while any table is live (its gateway's retained presence `online`)
or when the broker cannot say, and refused if the meter
would drop (a cap below it) or is not open. The change is one ledger
transaction with its log row naming both people, read, changed and written
under the ledger's write lock; a running controller sees the ledger change
and reloads before its next step (controller.fresh). Nothing changes on a
refusal.
"""

import getpass
import sys

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, topics
from host_tools.floor.bus import retained
from host_tools.floor.people import accounts as people
from host_tools.floor.progressive import integrity, ledgers, params


def read_passwords(technician, manager, stdin=None):
    """The two passwords: asked on a terminal, else two lines of stdin (technician's first)."""
    stdin = stdin or sys.stdin
    if stdin.isatty():
        return getpass.getpass("%s's password: " % technician), getpass.getpass("%s's password: " % manager)
    lines = [stdin.readline().rstrip("\r\n") for _ in range(2)]
    if not all(lines):
        raise HostToolError(
            "give the technician's and the shift manager's passwords, a line each; nothing changed", EXIT_USAGE
        )
    return lines[0], lines[1]


def live_tables(directory, floor, broker_url=None, wait=0.5):
    """Tables whose gateway's retained presence is `online`; HostToolError when no broker answers."""
    url = broker_url or "mqtt://127.0.0.1:%d" % floor["port"]
    root = topics.floor_root(floor["floor"])
    unreachable = "no broker at %s: cannot tell whether tables are live; nothing changed"
    seen = {}
    for topic, payload in retained.read(directory, url, [root + "/table/+/presence"], wait, unreachable):
        where = topics.parse_table_topic(floor["floor"], topic)
        if where and where[1] == "presence":
            seen[where[0]] = payload.decode("ascii", "replace")
    return sorted(t for t, word in seen.items() if word == topics.ONLINE)


def parse_settings(settings):
    """{field: value} of FIELD=VALUE settings, each field one of params.FIELDS and each
    number a whole number: checked before anything else; ValueError naming the first fault."""
    parsed = {}
    for item in settings:
        field, sep, value = item.partition("=")
        if not sep or field not in params.FIELDS:
            raise ValueError("--set %r: give FIELD=VALUE, FIELD one of %s" % (item, ", ".join(params.FIELDS)))
        if field in ("paytable", "pay_rule"):
            parsed[field] = value
        else:
            try:
                parsed[field] = int(value)
            except ValueError:
                raise ValueError("--set %s: %r is not a whole number" % (field, value))
    return parsed


def new_params(current, settings):
    """`current` (Params) with FIELD=VALUE settings applied, checked; ValueError otherwise."""
    entry = current.to_dict()
    entry.update(parse_settings(settings))
    return params.check_game(current.game, entry)


def checked_change(directory, game, settings, ledger=None):
    """The new Params for `game`, the ledger (`ledger`: its location, ledgers.py; the
    floor's SQLite by default) checked against its replay and every field against the
    parameters in force, before anyone is asked for anything; HostToolError (one line)
    otherwise."""

    if game not in params.GAMES:
        raise HostToolError("unknown game %r: the linked games are %s" % (game, ", ".join(params.GAMES)), EXIT_USAGE)
    if not settings:
        raise HostToolError("nothing to change: give --set FIELD=VALUE", EXIT_USAGE)
    path = ledgers.where(directory, ledger)
    if not ledgers.started(path):
        raise HostToolError(
            "no progressive ledger at %s: start the controller once first" % ledgers.shown(path), EXIT_USAGE
        )
    ledger_check = integrity.check(directory, path)["ledger"]
    if not ledger_check["ok"]:  # a change is never written onto a ledger that is not its own replay
        raise HostToolError("%s; nothing changed" % ledger_check["reason"], EXIT_FAILED)
    book = ledgers.open_ledger(path, readonly=True)
    try:
        current = book.params().get(game)
    finally:
        book.close()
    if current is None:
        raise HostToolError("%s is not linked on this floor" % game, EXIT_FAILED)
    try:
        return new_params(current, settings)
    except ValueError as e:
        raise HostToolError(str(e) + "; nothing changed", EXIT_USAGE)


def change(directory, game, settings, technician, manager, passwords, broker_url=None, ledger=None):
    """Apply the change; returns the line to print. HostToolError (one line) on any refusal.
    Order: every field checked, then the two people, then whether any table is live."""
    from host_tools.floor.progressive.controller import Controller

    floor = floordir.read_floor(directory)
    new = checked_change(directory, game, settings, ledger)
    if people.verify(directory, technician, passwords[0]) != "technician":
        raise HostToolError(
            "%s is not a technician of this floor, or the password is wrong; nothing changed" % technician, EXIT_FAILED
        )
    if people.verify(directory, manager, passwords[1]) != "shift_manager":
        raise HostToolError(
            "%s is not a shift manager of this floor, or the password is wrong; nothing changed" % manager, EXIT_FAILED
        )
    live = live_tables(directory, floor, broker_url)
    if live:
        raise HostToolError(
            "tables %s are live: parameters change only while no table is; nothing changed" % ", ".join(live),
            EXIT_FAILED,
        )
    controller = Controller(ledgers.where(directory, ledger), {})
    try:
        if controller.ledger.params().get(game) is None:
            raise HostToolError("%s is not linked on this floor" % game, EXIT_FAILED)
        outcome = controller.change_params(new, technician, manager)
    finally:
        controller.close()
    if outcome != "applied":
        raise HostToolError("%s; nothing changed" % outcome[len("refused: ") :], EXIT_FAILED)
    return "%s parameters changed by %s, authorised by %s: %s" % (game, technician, manager, ", ".join(settings))
