"""Host tools for a technician: a command table like mpremote's, usable as a Python API.

Each command is a function in a handler module; handlers raise HostToolError
with a one-line message, which `python -m host_tools` prints to stderr.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The firmware's own record codec is the reference; its `micropython` import
# comes from the CPython stand-in in sim/shims.
for _path in (os.path.join(ROOT, "sim", "shims"), os.path.join(ROOT, "firmware", "lib")):
    if _path not in sys.path:
        sys.path.insert(0, _path)


class HostToolError(Exception):
    """A failure to report in one line; `code` is the process exit status."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code
