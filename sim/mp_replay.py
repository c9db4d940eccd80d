# MicroPython entry for `python -m sim replay --runtime micropython`.
# argv: [config JSON text] [--summary]; dice on stdin, JSON Lines on stdout.
import sys

from replay_core import DiceLineError, run

from crapsboard import config as cfg


def _lines():
    readline = sys.stdin.readline
    while True:
        line = readline()
        if not line:
            return
        yield line


def main(argv):
    config = None
    summary = "--summary" in argv
    args = [a for a in argv if a != "--summary"]
    try:
        if args:
            config = cfg.loads(args[0])
        run(_lines(), sys.stdout.write, config, summary)
    except (DiceLineError, cfg.ConfigError) as e:
        sys.stderr.write("replay: " + str(e.args[0]) + "\n")
        sys.exit(2)


main(sys.argv[1:])
