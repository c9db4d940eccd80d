# The table's rule state as a few bytes, for the journal's snapshots.
#
# `dumps(table, seq)` captures what the rules need to carry on exactly after a
# restart: the hand (rolls, shooter, point, dice), the Fire Bet points made,
# every wager's cycle, the rule configuration in force (offered wagers,
# paytables, rebet, betting windows) and the event sequence number. Not the
# undo history: undo never reaches back across a restart. Not the supervisor
# PIN: it is not rule state, and stays in the board's configuration file.
# `loads` checks everything before it touches the table, so a bad snapshot
# changes nothing. Only Table's public state and API are used.
import struct

from crapsboard import config as cfg
from crapsboard import paytables as pt

VERSION = 1
# version, seq, rolls, shooter, shooter_start, point, die1, die2, fire_state,
# fire_points, small, tall, all, bonus_done, mea, fired_sequence,
# fired_count, bonus_fresh; config: offered, rebet, fire_window, bonus_window
_FORMAT = "<BIIIIBBBBHHHHBHBBBBBBB"
_FIXED = struct.calcsize(_FORMAT)


class SnapshotError(ValueError):
    pass


def dumps(table, seq):
    """The snapshot of `table` after event `seq`, as bytes."""
    config = table.config
    head = struct.pack(
        _FORMAT,
        VERSION,
        seq,
        table.rolls,
        table.shooter,
        table.shooter_start,
        table.point,
        table.die1,
        table.die2,
        table.fire_state,
        table.fire_points,
        table.small_marks,
        table.tall_marks,
        table.all_marks,
        table.bonus_done,
        table.mea_marks,
        table.fired_sequence,
        table.fired_count,
        table.bonus_fresh,
        config.offered,
        1 if config.rebet_after_win else 0,
        config.fire_window,
        config.bonus_window,
    )
    parts = [head]
    for w in range(pt.WAGER_COUNT):
        ident = config.paytables[w].ident.encode()
        parts.append(bytes((len(ident),)))
        parts.append(ident)
    return b"".join(parts)


def decode(data, base=None):
    """(seq, fields, config) from snapshot bytes; SnapshotError when they are
    not one. Configuration keys the snapshot does not hold (the supervisor
    PIN: not rule state) come from `base`, else the defaults."""
    if len(data) < _FIXED or data[0] != VERSION:
        raise SnapshotError("not a version " + str(VERSION) + " table snapshot")
    fields = struct.unpack_from(_FORMAT, data, 0)
    config = cfg.parse({}, base)
    config.offered = fields[18]
    config.rebet_after_win = fields[19] == 1
    config.fire_window = fields[20]
    config.bonus_window = fields[21]
    pos = _FIXED
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
    if fields[15] >= len(sequences) or fields[16] >= len(sequences[fields[15]]):
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
