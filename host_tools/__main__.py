"""python -m host_tools COMMAND ...: dispatch to the handler of COMMAND.

Exit status: 0 done; 1 the board refused or failed a check (a bad record, a
broken chain, a hash, a configuration that differs); 2 the request could not
be carried out (usage, a missing or unreadable file); 3 no board (the port
cannot be opened, no answer in time, the connection lost); 130 interrupted.
Every failure is one line on stderr.
"""

import argparse
import importlib
import os
import sys

from host_tools import EXIT_INTERRUPTED, EXIT_USAGE, HostToolError

# Handler modules; each has COMMANDS = {name: (add_arguments(parser), run(args), one-line help)}.
MODULES = (
    "host_tools.commands",
    "host_tools.status",
    "host_tools.monitor",
    "host_tools.sync",
    "host_tools.deploy",
    "host_tools.journal_reset",
    "host_tools.erased",
    "host_tools.floor.cli",
)
# The order `--help` lists them in.
ORDER = (
    "ports",
    "status",
    "monitor",
    "log",
    "config",
    "selftest",
    "time",
    "maintenance",
    "journal-reset",
    "reset",
    "deploy",
    "board-erased",
    "gateway",
    "recorder",
    "floor",
)


class _Parser(argparse.ArgumentParser):
    """Usage mistakes as one line, like every other failure."""

    def error(self, message):
        raise HostToolError(message + " (see --help)", EXIT_USAGE)


def command_table():
    """name -> (add_arguments, run, help) of every command."""
    table = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        table.update(module.COMMANDS)
    return {name: table[name] for name in ORDER}


def main(argv=None):
    command = "host_tools"
    try:
        parser = _Parser(prog="python -m host_tools", description="Tools for the craps marker board over USB serial.")
        sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
        table = command_table()
        for name, (add_arguments, _, help_text) in table.items():
            add_arguments(sub.add_parser(name, help=help_text, description=help_text))
        args = parser.parse_args(argv)
        command += " " + args.command
        table[args.command][1](args)
        sys.stdout.flush()
    except HostToolError as e:
        if str(e):
            print(command + ": " + str(e), file=sys.stderr)
        return e.code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return 0


if __name__ == "__main__":
    sys.exit(main())
