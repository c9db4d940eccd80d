# Reading a table snapshot back (snapshot.py's format): `decode` checks it,
# `loads` puts it into a table. Used at power-up by journal_restore.py, by the
# app when the journal refuses an undo, and by the simulator.
import struct

from crapsboard.journal.snapshot import FIXED_SIZE, FORMAT, VERSION
from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt


class SnapshotError(ValueError):
    pass


def decode(data, base=None):
    """(seq, fields, config) from snapshot bytes; SnapshotError when they are
    not one. Configuration keys the snapshot does not hold (the supervisor
    PIN: not rule state) come from `base`, else the defaults."""
    if len(data) < FIXED_SIZE or data[0] != VERSION:
        raise SnapshotError("not a version " + str(VERSION) + " table snapshot")
    fields = struct.unpack_from(FORMAT, data, 0)
    config = cfg.Config(base)
    config.offered = fields[18]
    config.rebet_after_win = fields[19] == 1
    config.fire_window = fields[20]
    config.bonus_window = fields[21]
    pos = FIXED_SIZE
    for w in range(pt.WAGER_COUNT):
        if pos >= len(data) or pos + 1 + data[pos] > len(data):
            raise SnapshotError("snapshot cut short in the paytables")
        n = data[pos]
        ident = bytes(data[pos + 1 : pos + 1 + n]).decode()
        table = pt.find(w, ident)
        if table is None:
            raise SnapshotError("snapshot names unknown paytable " + ident + " for " + pt.WAGER_NAMES[w])
        config.paytables[w] = table
        pos += 1 + n
    if pos != len(data):
        raise SnapshotError("snapshot has " + str(len(data) - pos) + " bytes too many")
    _check(fields, config)
    return fields[1], fields, config


def _check(fields, config):
    # Values the engine could never hold would make later rolls misbehave.
    point = fields[5]
    if point and not (1 << point) & 0x0770:
        raise SnapshotError("snapshot point " + str(point) + " is not a point number")
    if fields[6] > 6 or fields[7] > 6 or fields[8] > 2 or fields[4] > fields[2]:
        raise SnapshotError("snapshot dice, Fire state or shooter start out of range")
    for i in (9, 10, 11, 12, 14):
        if fields[i] & ~0x1F7C:
            raise SnapshotError("snapshot marks name a total that cannot be marked")
    if fields[13] & ~0x0E or fields[17] & ~0x0E:
        raise SnapshotError("snapshot bonus flags name a wager that is not a bonus")
    sequences = config.paytables[pt.WAGER_COUNT - 1].sequences
    # With no sequence in progress the index is the last one's, which the
    # paytable in force may not have (changed while Fired Up was idle).
    if fields[16] and (fields[15] >= len(sequences) or fields[16] >= len(sequences[fields[15]])):
        raise SnapshotError("snapshot Fired Up sequence out of range")
    if config.offered >= 1 << pt.WAGER_COUNT or fields[19] > 1 or fields[20] > 1 or fields[21] > 1:
        raise SnapshotError("snapshot configuration out of range")


def loads(data, table, base=None):
    """Put the state in `data` into `table` and return the snapshot's seq.
    The table's undo history is cleared; a bad snapshot raises SnapshotError
    and leaves the table as it was. `base`: see decode."""
    seq, f, config = decode(data, base)
    table.reset()
    table.configure(config)  # a reset table has no cycle in progress: never refused
    table.rolls = f[2]
    table.shooter = f[3]
    table.shooter_start = f[4]
    table.point = f[5]
    table.die1 = f[6]
    table.die2 = f[7]
    table.fire_state = f[8]
    table.fire_points = f[9]
    table.small_marks = f[10]
    table.tall_marks = f[11]
    table.all_marks = f[12]
    table.bonus_done = f[13]
    table.mea_marks = f[14]
    table.fired_sequence = f[15]
    table.fired_count = f[16]
    table.bonus_fresh = f[17]
    # The same config again changes nothing but starts the undo history here.
    table.configure(config)
    return seq
