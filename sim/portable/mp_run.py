# MicroPython side of sim/session.py (and `python -m sim run --runtime micropython`).
# argv: BOARD_JSON [--config FILE] [--start MS] [--flash FILE [--fresh]
# [--cut-after-writes K] [--new-journal]]. Prints {"ready": true} (or
# {"error": ...} and exits 2), then reads stdin line by line:
#   k TOKENS   run these key-script tokens (a long script comes as many lines)
#   .          end of the script: the reply's events are closed and the state written
# Each script's reply is one line of JSON: events as they happen, then the state.
# The CPython side checks a script before sending it, so it is never held whole.
import sys

from sim.portable import vmmain
from sim.portable.keyscript import KeyScriptError, check
from sim.portable.run_core import BootError, Driver, error_json, open_flash


def start(argv):
    config_text = None
    start_ms = 0
    flash = None
    flash_path = None
    fresh = new_journal = False
    cut = 0
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
        elif flag == "--flash" and args:
            flash_path = args.pop(0)
        elif flag == "--fresh":
            fresh = True
        elif flag == "--new-journal":
            new_journal = True
        elif flag == "--cut-after-writes" and args:
            cut = int(args.pop(0))
        else:
            raise ValueError("unknown argument " + flag)
    if flash_path is not None:
        flash = open_flash(flash_path, cut)
    try:
        driver = Driver(board_path, config_text, start_ms, flash, fresh, new_journal)
    except OSError as e:
        raise ValueError("cannot read " + board_path + ": error " + str(e.args[0]))
    except BootError as e:
        raise ValueError(str(e.args[0]))
    driver.flash_path = flash_path
    return driver


def save_flash(driver):
    if driver.flash is not None:
        driver.flash.save(driver.flash_path)


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
            save_flash(driver)
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
