# The names both the journal (journal.py) and its verifier (journal_restore.py)
# use: the file names, the fault codes and JournalError, what a mount found,
# the record kinds that carry the table's state, and the day over which the
# clock's backward sets are counted.
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


# The wall clock may be set back at most link_admin.TIME_BACK_S in all over a
# day of the journal clock (the time the board was on), counted from the
# accepted time records, so a power cycle does not renew the allowance.
DAY_MS = const(86400000)


def within_day(backs, t):
    """The (t, seconds back) entries of `backs` less than a day of the journal
    clock before `t` (32-bit ms, wrapping)."""
    return [b for b in backs if (t - b[0]) & 0xFFFFFFFF < DAY_MS]
