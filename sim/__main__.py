"""`python -m sim COMMAND`: the simulator and analysis tools."""

import importlib
import sys

import sim  # noqa: F401  (puts firmware/lib on sys.path)

# Command -> (module with main(argv) -> exit status, what it does). Modules load
# only when their command runs: the board needs textual, odds does not.
COMMANDS = {
    "board": ("sim.tui", "the lit board in a full-screen terminal (the default; `make sim`)"),
    "replay": ("sim.replay", "dice lines in, JSON Lines out (the engine's scriptable face)"),
    "odds": ("sim.odds", "exact odds of every paytable; --simulate checks the engine"),
    "bench": ("sim.bench", "engine speed and memory against crapssim and MicroPython"),
    "run": ("sim.run", "run the firmware app on a simulated board from a key script"),
    "play": ("sim.play", "type dice at a prompt and see the table, line by line"),
    "pin-hash": ("sim.pin_hash", "the config entry for a supervisor PIN (salted, slow hash)"),
}


def usage():
    lines = ["usage: python -m sim [COMMAND] [options]", "", "commands:"]
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
    return importlib.import_module(command[0]).main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
