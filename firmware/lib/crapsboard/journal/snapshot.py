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
#
# This module writes snapshots; `loads`, `decode` and SnapshotError are in
# snapshot_read.py.
import struct

from crapsboard.rules import paytables as pt

VERSION = 1
# version, seq, rolls, shooter, shooter_start, point, die1, die2, fire_state,
# fire_points, small, tall, all, bonus_done, mea, fired_sequence,
# fired_count, bonus_fresh; config: offered, rebet, fire_window, bonus_window
FORMAT = "<BIIIIBBBBHHHHBHBBBBBBB"
FIXED_SIZE = struct.calcsize(FORMAT)


def dumps(table, seq):
    """The snapshot of `table` after event `seq`, as bytes."""
    config = table.config
    head = struct.pack(
        FORMAT,
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
