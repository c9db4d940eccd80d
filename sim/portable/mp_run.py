# MicroPython side of sim/session.py (and `python -m sim run --runtime micropython`).
# argv: BOARD_JSON [--config FILE] [--start MS]. Prints {"ready": true} (or
# {"error": ...} and exits 2), then reads stdin line by line:
#   k TOKENS   run these key-script tokens (a long script comes as many lines)
#   .          end of the script: the reply's events are closed and the state written
# Each script's reply is one line of JSON: events as they happen, then the state.
# The CPython side checks a script before sending it, so it is never held whole.
import sys

from sim.portable import vmmain
from sim.portable.keyscript import KeyScriptError, check
from sim.portable.run_core import Driver, error_json


def start(argv):
    config_text = None
    start_ms = 0
    args = list(argv)
    if not args:
        raise ValueError("usage: mp_run.py BOARD_JSON [--config FILE] [--start MS]")
    board_path = args.pop(0)
    while args:
        flag = args.pop(0)
        if flag == "--config" and args:
            with open(args.pop(0)) as f:
                config_text = f.read()
        elif flag == "--start" and args:
            start_ms = int(args.pop(0))
        else:
            raise ValueError("unknown argument " + flag)
    try:
        return Driver(board_path, config_text, start_ms)
    except OSError as e:
        raise ValueError("cannot read " + board_path + ": error " + str(e.args[0]))


def serve(driver):
    write = sys.stdout.write
    replying = False
    for line in vmmain.lines(sys.stdin.buffer):
        if line.startswith("k "):
            try:
                check(line[2:], driver.layout)
            except KeyScriptError as e:
                if replying:
                    driver.end()
                    replying = False
                    write("\n")
                write(error_json(str(e.args[0])) + "\n")
                continue
            if not replying:
                driver.begin(write)
                replying = True
            driver.run(line[2:])
        elif line.rstrip() == ".":
            if not replying:
                driver.begin(write)
            driver.end()
            replying = False
            write("\n")
        else:
            raise ValueError("mp_run.py: unknown request " + line[:20])


def main(argv):
    try:
        driver = start(argv)
    except ValueError as e:
        sys.stdout.write(error_json(str(e.args[0])) + "\n")
        sys.exit(vmmain.EXIT_REFUSED)
    sys.stdout.write('{"ready": true}\n')
    serve(driver)


vmmain.run(main)
