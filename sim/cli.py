"""The one error path of `python -m sim`: handlers raise CommandError; __main__
prints `sim <command>: <message>` on one line to stderr and exits 2.

Also the pieces every command reads and writes files with, so a missing,
unreadable or non-UTF-8 file, a directory, or a full disk is one clear line.
"""

import argparse
import json
import os

from crapsboard.rules import config as cfg


class CommandError(Exception):
    """A command cannot go on; the message is one line for the user."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse with usage mistakes raised as CommandError (one line, exit 2)."""

    def error(self, message):
        raise CommandError(message + " (see --help)")


def _reason(e):
    return e.strerror or str(e)


def read_text(path, what="file"):
    """The UTF-8 text of `path`; CommandError says why it cannot be had."""
    if os.path.isdir(path):
        raise CommandError("%s %s is a directory" % (what, path))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CommandError("cannot read %s %s: %s" % (what, path, _reason(e)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CommandError("%s %s is not UTF-8 text (byte %d)" % (what, path, e.start))


def write_text(path, text, what="output file"):
    """Write `text` to `path` whole, or raise CommandError (a full disk included)."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise CommandError("cannot write %s %s: %s" % (what, path, _reason(e)))


def check_writable(path, what="output file"):
    """Raise CommandError now, before minutes of work, when `path` cannot be
    opened for writing (a folder, a missing folder, no permission); a file this
    made is removed again. A full disk still shows at write_text."""
    existed = os.path.lexists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise CommandError("cannot write %s %s: %s" % (what, path, _reason(e)))
    if not existed:
        os.remove(path)


def load_config_text(path):
    """The text of the configuration file after checking it, ready for either runtime."""
    text = read_text(path, "config")
    try:
        cfg.loads(text)
    except cfg.ConfigError as e:
        raise CommandError("config %s: %s" % (path, e))
    return text


def json_value(value):
    """A value as it is spelt in JSON (true, "name"), for messages."""
    return json.dumps(value)
