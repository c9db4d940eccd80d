"""Ctrl-C for a child process, whatever the test runner's own SIGINT disposition.

A shell starts background jobs with SIGINT ignored, and an ignored signal stays
ignored across exec, so `make test &` (or a CI runner that does the same) would
hand every child a Ctrl-C it cannot feel: the test fails and the child runs on.
The children these tests interrupt start with SIGINT at its default, as from a
terminal."""

import signal


def default_sigint():
    """preexec_fn for subprocess.Popen: SIGINT back to its default in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
