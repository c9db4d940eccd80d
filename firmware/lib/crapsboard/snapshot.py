# The table's rule state as a few bytes, for the journal's snapshots.
#
# `dumps(table, seq)` captures what the rules need to carry on exactly after a
# restart: the hand (rolls, shooter, point, dice), the Fire Bet points made,
# every wager's cycle, the configuration in force, and the event sequence
# number. The undo history is not kept: undo never reaches back across a
# restart. `loads` checks everything before it touches the table, so a bad
# snapshot changes nothing. Only Table's public state and API are used.
import struct
from binascii import hexlify, unhexlify

from crapsboard import paytables as pt
from crapsboard.config import Config

VERSION = 1
# version, seq, rolls, shooter, point, die1, die2, fire_state, fire_points,
# small, tall, all, bonus_done, mea, fired_sequence, fired_count, offered, rebet
_FORMAT = "<BIIIBBBBHHHHBHBBBB"
_FIXED = struct.calcsize(_FORMAT)
_PIN_BYTES = 32


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
        config.offered,
        1 if config.rebet_after_win else 0,
    )
    parts = [head]
    pin = config.supervisor_pin_sha256
    if pin is None:
        parts.append(b"\x00")
    else:
        parts.append(b"\x01")
        parts.append(unhexlify(pin))
    for w in range(pt.WAGER_COUNT):
        ident = config.paytables[w].ident.encode()
        parts.append(bytes((len(ident),)))
        parts.append(ident)
    return b"".join(parts)


def decode(data):
    """(seq, fields, config) from snapshot bytes; SnapshotError when they are not one."""
    if len(data) < _FIXED + 1 or data[0] != VERSION:
        raise SnapshotError("not a version " + str(VERSION) + " table snapshot")
    fields = struct.unpack_from(_FORMAT, data, 0)
    config = Config()
    config.offered = fields[16]
    config.rebet_after_win = fields[17] == 1
    pos = _FIXED
    if data[pos] == 1:
        if len(data) < pos + 1 + _PIN_BYTES:
            raise SnapshotError("snapshot cut short in the PIN hash")
        config.supervisor_pin_sha256 = hexlify(data[pos + 1 : pos + 1 + _PIN_BYTES]).decode()
        pos += 1 + _PIN_BYTES
    elif data[pos] == 0:
        pos += 1
    else:
        raise SnapshotError("bad PIN flag in snapshot")
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
    point = fields[4]
    if point and not (1 << point) & 0x0770:
        raise SnapshotError("snapshot point " + str(point) + " is not a point number")
    if fields[5] > 6 or fields[6] > 6 or fields[7] > 2 or fields[2] < 0:
        raise SnapshotError("snapshot dice or Fire state out of range")
    for i in (8, 9, 10, 11, 13):
        if fields[i] & ~0x1F7C:
            raise SnapshotError("snapshot marks name a total that cannot be marked")
    sequences = config.paytables[pt.WAGER_COUNT - 1].sequences
    if fields[14] >= len(sequences) or fields[15] >= len(sequences[fields[14]]):
        raise SnapshotError("snapshot Fired Up sequence out of range")
    if config.offered >= 1 << pt.WAGER_COUNT:
        raise SnapshotError("snapshot offers unknown wagers")


def loads(data, table):
    """Put the state in `data` into `table` and return the snapshot's seq.
    The table's undo history is cleared; a bad snapshot raises SnapshotError
    and leaves the table as it was."""
    seq, f, config = decode(data)
    table.reset()
    table.configure(config)  # a reset table has no cycle in progress: never refused
    table.rolls = f[2]
    table.shooter = f[3]
    table.point = f[4]
    table.die1 = f[5]
    table.die2 = f[6]
    table.fire_state = f[7]
    table.fire_points = f[8]
    table.small_marks = f[9]
    table.tall_marks = f[10]
    table.all_marks = f[11]
    table.bonus_done = f[12]
    table.mea_marks = f[13]
    table.fired_sequence = f[14]
    table.fired_count = f[15]
    # The same config again changes nothing but starts the undo history here.
    table.configure(config)
    return seq
