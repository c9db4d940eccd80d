# The names both the journal (journal.py) and its verifier (journal_restore.py)
# use: the file names, the fault codes and JournalError, what a mount found,
# and the record kinds that carry the table's state.
#
# Below both, so neither imports the other's half; journal.py re-exports
# them (jn.RESTORED, jn.JournalError).
from micropython import const

from crapsboard.journal import journal_record as jr

DIR = "journal"
HEAD = "head"

# Faults: the journal refuses appends until a supervisor starts a new one.
CORRUPT = const(1)  # a record fails its CRC or a file is not what it should be
CHAIN = const(2)  # a record is missing, out of order or breaks the hash chain
FULL = const(3)  # the filesystem has no room for the next record
FOREIGN = const(4)  # the journal belongs to another board
UNKEYED = const(5)  # the journal verifies only by its public chain: format 1, or another key
FAULT_NAMES = ("none", "corrupt", "chain", "full", "foreign", "unkeyed")

# What mount found.
NONE = const(0)  # no journal on this filesystem (first use)
RESTORED = const(1)

STATE_KINDS = (jr.UNDO, jr.CONFIG, jr.JOURNAL_START, jr.SNAPSHOT)


class JournalError(Exception):
    def __init__(self, fault, message, seq=None):
        super().__init__(FAULT_NAMES[fault] + ": " + message)
        self.fault = fault
        self.seq = seq
