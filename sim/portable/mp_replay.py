# MicroPython entry for `python -m sim replay --runtime micropython`.
# argv: [--config FILE] [--summary]; dice on stdin, JSON Lines on stdout.
import sys

from crapsboard.rules import config as cfg
from sim.portable import vmmain
from sim.portable.replay_core import run


def main(argv):
    config = None
    summary = False
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag == "--summary":
            summary = True
        elif flag == "--config" and args:
            with open(args.pop(0)) as f:
                config = cfg.loads(f.read())
        else:
            raise ValueError("unknown argument " + flag)
    run(vmmain.lines(sys.stdin.buffer), sys.stdout.write, config, summary)


vmmain.run(main)
