"""`python -m sim replay`: dice on stdin, one JSON record per roll on stdout."""

import argparse
import sys

from crapsboard import config as cfg
from sim import runtime
from sim.replay_core import DiceLineError, run


def load_config_text(path):
    """The config file's text after checking it; ConfigError names the bad key."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise cfg.ConfigError("config", "cannot read " + path + ": " + e.strerror)
    cfg.loads(text)
    return text


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m sim replay", description=__doc__)
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (see docs/replay.md)")
    parser.add_argument("--summary", action="store_true", help="print only counts of each (wager, level)")
    args = parser.parse_args(argv)
    try:
        config_text = load_config_text(args.config) if args.config else None
    except cfg.ConfigError as e:
        print("replay: " + str(e), file=sys.stderr)
        return 2
    if args.runtime == "micropython":
        extra = ([config_text] if config_text else []) + (["--summary"] if args.summary else [])
        sys.stdout.flush()
        try:
            return runtime.run_micropython("mp_replay.py", extra).returncode
        except runtime.RuntimeMissing as e:
            print("replay: " + str(e), file=sys.stderr)
            return 2
    config = cfg.loads(config_text) if config_text else None
    try:
        run(sys.stdin, sys.stdout.write, config, args.summary)
    except DiceLineError as e:
        sys.stdout.flush()
        print("replay: " + str(e), file=sys.stderr)
        return 2
    return 0
