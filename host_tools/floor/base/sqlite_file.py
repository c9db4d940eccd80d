"""A floor SQLite file (the recorder's, the progressive's ledger) appears whole
or not at all.

Its tables are made in a file of another name, which then takes the file's name
in one rename: a reader that finds the file (`floor events`, `progressive
status` while the floor comes up) finds its tables, never a file with none."""

import contextlib
import os
import sqlite3


def create_whole(path, schema):
    """Make the SQLite file `path` with `schema` unless it exists."""
    if os.path.exists(path):
        return
    partial = path + ".partial"
    with contextlib.suppress(FileNotFoundError):
        os.remove(partial)  # left by a cut in the middle of an earlier try
    db = sqlite3.connect(partial, isolation_level=None)
    try:
        db.execute("pragma synchronous=full")  # each table on disk before the rename
        db.executescript(schema)
    finally:
        db.close()
    os.replace(partial, path)
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)
