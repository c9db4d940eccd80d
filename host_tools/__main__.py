"""python -m host_tools COMMAND ...: dispatch to the handler module of COMMAND."""

import argparse
import importlib
import sys

from host_tools import HostToolError

# command -> (handler module, one-line help); each module has add_arguments(parser) and run(args).
COMMANDS = {
    "log": ("host_tools.journal_log", "print and verify the journal in a board's flash image"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m host_tools")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=help_text))
    args = parser.parse_args(argv)
    try:
        modules[args.command].run(args)
    except HostToolError as e:
        print("host_tools " + args.command + ": " + str(e), file=sys.stderr)
        return e.code
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
