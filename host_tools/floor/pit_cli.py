"""`python -m host_tools floor user add | page`: the floor's people and the pit page.

SUBCOMMANDS maps a `floor` subcommand to (add_arguments, run, help); the
floor's own `floor` command (host_tools/floor/cli.py) takes them in.
"""

import getpass
import sys

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.alerts import book as alerts
from host_tools.floor.base import floordir
from host_tools.floor.people import accounts as people


def read_new_password(stdin=None):
    """The new password: asked twice on a terminal, else the first line of stdin (scripts)."""
    stdin = stdin or sys.stdin
    if stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise HostToolError("the two passwords differ; nothing changed", EXIT_USAGE)
        return first
    line = stdin.readline()
    if not line:
        raise HostToolError("no password on stdin; nothing changed", EXIT_USAGE)
    return line.rstrip("\r\n")


def add_dir_option(parser):
    parser.add_argument("--dir", help="the floor's directory (default $CRAPSFLOOR_DIR or %s)" % floordir.DEFAULT_DIR)


def add_user_arguments(parser):
    sub = parser.add_subparsers(dest="user_command", required=True, parser_class=type(parser))
    add = sub.add_parser("add", help="add a person (or set their role and password)")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=alerts.ROLES)
    add_dir_option(add)
    sub.add_parser("list", help="the floor's people and their roles")
    for p in sub.choices.values():
        if p is not add:
            add_dir_option(p)


def run_user(args):
    directory = floordir.floor_dir(args.dir)
    if args.user_command == "add":
        password = read_new_password()
        people.add_person(directory, args.name, args.role, password)
        print("%s added as %s" % (args.name, alerts.ROLE_TITLES[args.role]))
    else:
        for name, person in sorted(people.read_people(directory).items()):
            print("%s %s" % (name, person["role"]))


def add_page_arguments(parser):
    from host_tools.floor.page import cli

    cli.add_arguments(parser)


def run_page(args):
    from host_tools.floor.page import cli

    cli.run(args)


SUBCOMMANDS = {
    "user": (add_user_arguments, run_user, "the floor's people: add NAME --role ROLE, list"),
    "page": (add_page_arguments, run_page, "the pit and surveillance page"),
}
