# How every MicroPython entry script of the simulator ends. The unix port
# writes an uncaught traceback to stdout, into the JSON stream; here every
# failure becomes one line on stderr and an exit status the CPython side reads:
# 2 a refused input (the message says why), 130 interrupted, 0 when the reader
# of our output went away (a closed pipe is not an error of ours).
import sys

EXIT_REFUSED = 2
EXIT_INTERRUPTED = 130
_EPIPE = 32
# The port has no os.strerror; the errors a run can meet, worded as CPython's.
_REASONS = {
    2: "No such file or directory",
    5: "Input/output error",
    13: "Permission denied",
    28: "No space left on device",
}


def fail(message):
    sys.stderr.write(message + "\n")
    sys.exit(EXIT_REFUSED)


def run(main):
    """Call main(argv) and turn whatever it raises into one line and a status."""
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except MemoryError:
        fail("out of memory in the MicroPython heap")
    except OSError as e:
        if e.args and e.args[0] == _EPIPE:
            sys.exit(0)
        code = e.args[0] if e.args else 0
        fail("cannot read or write: " + _REASONS.get(code, "error " + str(code)))
    except ValueError as e:
        fail(str(e.args[0]) if e.args else type(e).__name__)


def lines(stream):
    """Text lines of a binary stream; a line that is not UTF-8 is a ValueError."""
    readline = stream.readline
    number = 0
    while True:
        raw = readline()
        if not raw:
            return
        number += 1
        try:
            yield raw.decode()
        except UnicodeError:
            raise ValueError("line " + str(number) + ": not UTF-8 text")
