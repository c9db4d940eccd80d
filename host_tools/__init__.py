"""Host tools for a technician: a command table like mpremote's, usable as a Python API.

Each command is a function in a handler module; handlers raise HostToolError
with a one-line message, which `python -m host_tools` prints to stderr.
"""

from sim.paths import bootstrap

# The firmware's own record codec is the reference: firmware/lib on the path.
bootstrap()


class HostToolError(Exception):
    """A failure to report in one line; `code` is the process exit status."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code
