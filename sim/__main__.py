"""`python -m sim COMMAND`: the simulator and analysis tools."""

import sys

import sim  # noqa: F401  (puts firmware/lib on sys.path)


def _replay(argv):
    from sim import replay

    return replay.main(argv)


def _odds(argv):
    from sim import odds

    return odds.main(argv)


def _bench(argv):
    from sim import bench

    return bench.main(argv)


def _run(argv):
    from sim import run

    return run.main(argv)


def _board(argv):
    from sim import tui

    return tui.main(argv)


def _play(argv):
    from sim import play

    return play.main(argv)


COMMANDS = {
    "board": (_board, "the lit board in a full-screen terminal (the default; `make sim`)"),
    "replay": (_replay, "dice lines in, JSON Lines out (the engine's scriptable face)"),
    "odds": (_odds, "exact odds of every paytable; --simulate checks the engine"),
    "bench": (_bench, "engine speed and memory against crapssim and MicroPython"),
    "run": (_run, "run the firmware app on a simulated board from a key script"),
    "play": (_play, "type dice at a prompt and see the table, line by line"),
}


def usage():
    lines = ["usage: python -m sim COMMAND [options]", "", "commands:"]
    lines += ["  %-8s %s" % (name, text) for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv):
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["board"] + argv  # `python -m sim --seed 3` is the board with options
    if argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    command = COMMANDS.get(argv[0])
    if command is None:
        print("sim: unknown command %r\n%s" % (argv[0], usage()), file=sys.stderr)
        return 2
    return command[0](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
