"""`python -m host_tools floor db migrate --db postgresql://…`: the floor's
PostgreSQL schema created, or brought to this program's version. SQLite
files need no command: the recorder makes its own."""

from host_tools import EXIT_USAGE, HostToolError
from host_tools.floor.pg import schema


def add_arguments(parser):
    sub = parser.add_subparsers(dest="db_command", required=True, parser_class=type(parser))
    for name, text in (
        ("migrate", "create the schema or bring it to this version"),
        ("version", "the schema's version"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--db", required=True, help="postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        p.add_argument("--dir", help="ignored: the database is named by --db")


def run(args):
    if not schema.is_url(args.db):
        raise HostToolError(
            "--db %s: give a postgresql:// URL (a SQLite file needs no migration)" % args.db, EXIT_USAGE
        )
    if args.db_command == "migrate":
        before, after = schema.migrate(args.db)
        if before == after:
            print("schema version %d: nothing to do" % after)
        else:
            print("schema version %d -> %d" % (before, after))
    else:
        conn = schema.connect(args.db)
        try:
            print("schema version %d (this program's: %d)" % (schema.version(conn), schema.VERSION))
        finally:
            conn.close()


SUBCOMMANDS = {"db": (add_arguments, run, "the floor's PostgreSQL: migrate (create or upgrade the schema), version")}
