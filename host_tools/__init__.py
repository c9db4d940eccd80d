"""Host tools for a technician: a command table like mpremote's, usable as a Python API.

Each command is a function in a handler module; handlers raise HostToolError
with a one-line message, which `python -m host_tools` prints to stderr.
"""

from sim.paths import bootstrap

# The firmware's own record codec is the reference: firmware/lib on the path.
bootstrap()


# Exit statuses scripts can rely on (host_tools/README.md).
EXIT_OK = 0
EXIT_FAILED = 1  # the board refused, or a check failed (a record, a hash, a difference)
EXIT_USAGE = 2  # the request could not be carried out: usage, a missing or unreadable file
EXIT_NO_BOARD = 3  # no board: the port cannot be opened, no answer in time, the connection lost
EXIT_BOARD_OUT_OF_MEMORY = 4  # the board answered, but had no heap to build the reply or load the link
EXIT_INTERRUPTED = 130


class HostToolError(Exception):
    """A failure to report in one line; `code` is the process exit status."""

    def __init__(self, message, code=EXIT_FAILED):
        super().__init__(message)
        self.code = code
