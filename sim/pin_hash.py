"""`python -m sim pin-hash`: the config entry for a supervisor PIN (salted PBKDF2-HMAC-SHA256)."""

import argparse
import binascii
import getpass
import json
import os
import sys

from crapsboard.table import entry as en

# One check costs ~1.8 ms on the MicroPython unix port (x86-64, tests/vm/mp_pin_bench.py:
# 2.6 us per iteration). Assuming an ESP32 at 240 MHz runs this loop ~40x slower
# (~105 us per iteration), 700 iterations cost ~75 ms there: inside 50-100 ms.
ITERATIONS = 700
SALT_BYTES = 16


def config_entry(pin, salt=None, iterations=ITERATIONS):
    """The `supervisor_pin` value for `pin` (a string of 1-8 digits)."""
    if not (pin.isdigit() and pin.isascii() and 1 <= len(pin) <= en.PIN_DIGITS):
        raise ValueError("a PIN is 1 to %d digits 0-9" % en.PIN_DIGITS)
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    _, _, digest = en.pin_record(pin, salt, iterations)
    return {
        "pbkdf2_sha256": binascii.hexlify(digest).decode(),
        "salt": binascii.hexlify(salt).decode(),
        "iterations": iterations,
    }


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m sim pin-hash", description=__doc__)
    parser.add_argument("pin", nargs="?", help="the PIN (asked for without echo when left out)")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help="PBKDF2 iterations (default %(default)s)")
    args = parser.parse_args(argv)
    pin = args.pin if args.pin is not None else getpass.getpass("supervisor PIN: ")
    if not 1 <= args.iterations <= 1000000:
        print("sim pin-hash: --iterations must be 1 to 1000000", file=sys.stderr)
        return 2
    try:
        entry = config_entry(pin, iterations=args.iterations)
    except ValueError as e:
        print("sim pin-hash: " + str(e), file=sys.stderr)
        return 2
    print(json.dumps({"supervisor_pin": entry}))
    return 0
