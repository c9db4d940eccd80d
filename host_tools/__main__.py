"""python -m host_tools COMMAND ...: dispatch to the handler module of COMMAND.

Exit status: 0 done; 1 the board or image failed a check (a bad record, a
broken chain); 2 the request could not be carried out (usage, a missing or
unreadable file); 130 interrupted. Every failure is one line on stderr.
"""

import argparse
import importlib
import os
import sys

from host_tools import HostToolError

# command -> (handler module, one-line help); each module has add_arguments(parser) and run(args).
COMMANDS = {
    "log": ("host_tools.journal_log", "print and verify the journal in a board's flash image"),
}
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """Usage mistakes as one line, like every other failure."""

    def error(self, message):
        raise HostToolError(message + " (see --help)", EXIT_USAGE)


def main(argv=None):
    parser = _Parser(prog="python -m host_tools")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    modules = {}
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=help_text))
    command = "host_tools"
    try:
        args = parser.parse_args(argv)
        command += " " + args.command
        modules[args.command].run(args)
        sys.stdout.flush()
    except HostToolError as e:
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
