"""`python -m sim COMMAND`: the simulator and analysis tools.

Every command fails the same way: one line `sim <command>: <message>` on
stderr and exit status 2 (CommandError, sim/cli.py); Ctrl-C exits 130 and a
reader that closes the pipe early (`| head`) ends the command quietly.
"""

import importlib
import os
import sys

from sim.paths import bootstrap

bootstrap()

from sim.cli import CommandError  # noqa: E402  (after the paths are set)

# Command -> (module with main(argv) -> exit status, what it does). Modules load
# only when their command runs: the board needs textual, odds does not.
COMMANDS = {
    "board": ("sim.tui.app", "the lit board in a full-screen terminal (the default; `make sim`)"),
    "replay": ("sim.replay", "dice lines in, JSON Lines out (the engine's scriptable face)"),
    "odds": ("sim.analysis.odds", "exact odds of every paytable; --simulate checks the engine"),
    "bench": ("sim.analysis.bench", "engine speed and memory against crapssim and MicroPython"),
    "run": ("sim.run", "run the firmware app on a simulated board from a key script"),
    "play": ("sim.play", "type dice at a prompt and see the table, line by line"),
    "pin-hash": ("sim.pin_hash", "the config entry for a supervisor PIN (salted, slow hash)"),
    "device-layout": ("sim.devlayout", "the compact layout.json a deploy puts on the board"),
    "device": ("sim.device", "a virtual board on a pseudo-terminal, for mpremote and the host tools"),
}
EXIT_REFUSED = 2
EXIT_INTERRUPTED = 130


def usage():
    lines = ["usage: python -m sim [COMMAND] [options]", "", "commands:"]
    lines += ["  %-8s %s" % (name, text) for name, (_, text) in COMMANDS.items()]
    return "\n".join(lines)


def _quiet_stdout():
    """After a closed pipe, send what is still buffered nowhere, so the
    interpreter's own flush at exit does not complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def dispatch(name, argv):
    """Run one command; its exit status, with every failure turned into one line."""
    try:
        status = importlib.import_module(COMMANDS[name][0]).main(argv)
        sys.stdout.flush()
        return status
    except CommandError as e:
        message = str(e)
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as e:  # stdout on a full disk, or a file nobody named
        message = "%s%s" % (e.strerror or e, " (%s)" % e.filename if e.filename else "")
        if e.filename is None:
            message = "cannot write output: " + message
    except Exception as e:  # a bug: still one line, with the way to the traceback
        if os.environ.get("SIM_TRACEBACK"):
            raise
        message = "internal error: %s: %s (run with SIM_TRACEBACK=1 for the traceback)" % (type(e).__name__, e)
    try:
        sys.stdout.flush()
    except OSError:
        _quiet_stdout()
    print("sim %s: %s" % (name, message), file=sys.stderr)
    return EXIT_REFUSED


def main(argv):
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["board"] + argv  # `python -m sim --seed 3` is the board with options
    if argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] not in COMMANDS:
        print("sim: unknown command %r (one of %s)" % (argv[0], ", ".join(COMMANDS)), file=sys.stderr)
        return EXIT_REFUSED
    return dispatch(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
