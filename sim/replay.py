"""`python -m sim replay`: dice on stdin, one JSON record per roll on stdout."""

import subprocess
import sys

from crapsboard.rules import config as cfg
from sim import runtime
from sim.cli import ArgumentParser, CommandError, load_config_text
from sim.portable import vmmain
from sim.portable.replay_core import run


def run_micropython(config_path, summary):
    """The VM reads the config file and stdin itself and writes stdout; its one
    line of stderr, if it fails, becomes this command's error."""
    args = (["--config", runtime.vm_path(config_path)] if config_path else []) + (["--summary"] if summary else [])
    sys.stdout.flush()
    try:
        done = runtime.run("sim/portable/mp_replay.py", args, stderr=subprocess.PIPE)
    except runtime.RuntimeMissing as e:
        raise CommandError(str(e))
    if done.returncode == vmmain.EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    if done.returncode:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise CommandError(lines[-1] if lines else "micropython exited with status %d" % done.returncode)


def main(argv):
    parser = ArgumentParser(prog="python -m sim replay", description=__doc__)
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython")
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (see docs/replay.md)")
    parser.add_argument("--summary", action="store_true", help="print only counts of each (wager, level)")
    args = parser.parse_args(argv)
    config_text = load_config_text(args.config) if args.config else None
    if args.runtime == "micropython":
        run_micropython(args.config, args.summary)
        return 0
    config = cfg.loads(config_text) if config_text else None
    try:
        run(vmmain.lines(sys.stdin.buffer), sys.stdout.write, config, args.summary)
    except ValueError as e:  # a bad dice line (numbered), or one that is not UTF-8
        sys.stdout.flush()
        raise CommandError(str(e))
    return 0
