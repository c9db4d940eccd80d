# MicroPython side of sim/session.py (and `python -m sim run --runtime micropython`).
# argv: BOARD_JSON [--config JSON_TEXT] [--start MS]. Prints {"ready": true} (or
# {"error": ...} and exits 2), then answers each line of key script on stdin
# with one line of state JSON, until end of input.
import sys

from run_core import Driver, error_json


def main(argv):
    config_text = None
    start = 0
    args = list(argv)
    board_path = args[0] if args else "?"
    try:
        args.pop(0)
        while args:
            flag = args.pop(0)
            if flag == "--config":
                config_text = args.pop(0)
            elif flag == "--start":
                start = int(args.pop(0))
            else:
                raise ValueError("unknown argument " + flag)
        driver = Driver(board_path, config_text, start)
    except OSError as e:
        sys.stdout.write(error_json("cannot read " + board_path + ": " + str(e)) + "\n")
        sys.exit(2)
    except (ValueError, IndexError) as e:
        sys.stdout.write(error_json(str(e)) + "\n")
        sys.exit(2)
    sys.stdout.write('{"ready": true}\n')
    readline = sys.stdin.readline
    write = sys.stdout.write
    while True:
        line = readline()
        if not line:
            return
        driver.send(line, write)
        write("\n")


main(sys.argv[1:])
