# Power-cut proof of the journal, run under the MicroPython unix port with the
# board's own littlefs (vfs.VfsLfs2) on a NOR-flash block device.
#
# A scripted session (rolls, undo, end hand, supervisor, a configuration
# change, segment rotation and drops) runs once on a freshly formatted flash,
# logging every program and erase and how many events had been acknowledged
# (shown) when it started. Then for each cut point k the flash is rebuilt as
# it would be had power failed before write k, or half-way through it, and:
# the filesystem must mount, the journal must restore without a fault, the
# restored table must equal a fresh Table fed exactly the acknowledged events,
# the journal must hold every acknowledged record and none past it, and it
# must go on working (one more record, remount, same state).
#
# stdin: "all" or "sample N", then optional "ack-early" (the deliberate bug:
# an event counts as shown before it is written). Prints one RESULT line.
import gc
import sys
import time

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_read as jread
from crapsboard.journal import journal_record as jr
from crapsboard.rules import config as cfg
from crapsboard.rules.engine import Table
from sim.portable.norflash import NorFlash, apply_write

BOARD = b"\x24\x0a\xc4\x00\x00\x01"
EVENTS = 330
OPTIONS = {"batch": 32, "segment_bytes": 2048, "max_segments": 3}  # small: rotations and drops within the session


def build_session(n):
    # The events a dealer might enter; undo only where the table allows it.
    seed = 12345
    live = Table()
    events = []
    while len(events) < n:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        r = (seed >> 8) % 100
        i = len(events)
        if i == 150:
            config = cfg.parse(
                {
                    "rebet_after_win": False,
                    "paytables": {"fire": "2"},
                    "fire_window": "first_roll",
                    "bonus_window": "idle",
                },
                live.config,
            )
            if live.in_progress(0):
                config = cfg.parse(
                    {"rebet_after_win": False, "fire_window": "first_roll", "bonus_window": "idle"}, live.config
                )
            live.configure(config)
            events.append((jr.CONFIG, 0, config))
        elif r < 7 and live.undo():
            events.append((jr.UNDO, 0, None))
        elif r < 10:
            live.end_hand()
            events.append((jr.END_HAND, 0, None))
        elif r < 12:
            events.append((6 + (r & 1), 0, None))  # supervisor on/off: no rule effect
        else:
            d1 = 1 + (seed >> 16) % 6
            d2 = 1 + (seed >> 20) % 6
            live.roll(d1, d2)
            events.append((jr.ROLL, d1 * 8 + d2, None))
    return events


def apply(table, event):
    kind, arg, config = event
    if kind == jr.ROLL:
        table.roll(arg >> 3, arg & 7)
    elif kind == jr.END_HAND:
        table.end_hand()
    elif kind == jr.UNDO:
        if not table.undo():
            raise AssertionError("session undo refused")
    elif kind == jr.CONFIG:
        table.configure(config)


def rule_state(table):
    # Read field by field, not through the snapshot codec under test.
    c = table.config
    return (
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
        table.shooter_start,
        table.bonus_fresh,
        c.offered,
        c.rebet_after_win,
        c.fire_window,
        c.bonus_window,
        tuple(p.ident for p in c.paytables),
    )


def record_session(events, ack_early, cut_at=0, cut_mode="before"):
    # cut_at > 0: the device itself cuts the power at that write of the
    # session (mkfs not counted); returns the device's flash as the cut left it.
    gc.collect()
    dev = NorFlash()
    vfs.VfsLfs2.mkfs(dev)
    base = None if cut_at else bytearray(dev.data)
    acked = [-1]  # -1: the journal start itself is not yet acknowledged
    log = []

    def on_write(index, op, block, offset, buf):
        if not cut_at:
            log.append((op, block, offset, None if buf is None else bytes(buf), acked[0]))
        elif index == dev.cut_at:
            log.append(acked[0])  # what the dealer had seen when the power failed

    dev.on_write = on_write
    if cut_at:
        dev.cut_at = dev.writes + cut_at
        dev.cut_mode = cut_mode
        dev.raise_cut = False  # littlefs runs with the heap locked: the device goes quiet
    try:
        vfs.mount(vfs.VfsLfs2(dev), "/s")
        table = Table()
        journal = jn.Journal("/s", BOARD, **OPTIONS)
        if journal.mount(table) != jn.NONE:
            raise AssertionError("fresh flash has a journal")
        journal.start_new(table, 0, 1)
        journal.maintain(table, 0)
        acked[0] = 0
        record_seq = [journal.seq]  # record_seq[i]: the journal seq of event i (0: the start)
        for i in range(len(events)):
            kind, arg, _ = events[i]
            if ack_early:
                acked[0] = i + 1
            apply(table, events[i])
            journal.append(kind, arg, 1000 * (i + 1), table)
            record_seq.append(journal.seq)
            acked[0] = i + 1
            journal.maintain(table, 1000 * (i + 1))
            if dev.dead:
                break  # the board is off
    except Exception:  # noqa: BLE001
        if not (cut_at and dev.dead):
            raise  # with the power gone, the program may trip over what it reads back
    if cut_at:
        if not dev.dead:
            raise AssertionError("the session ended before write " + str(cut_at))
        try:
            vfs.umount("/s")
        except OSError:
            pass
        return dev.data, log[0]
    vfs.umount("/s")
    counts = (dev.programs, dev.erases, dev.bytes_programmed)
    return base, log, record_seq, counts, journal.segments()


def real_cuts(events, ack_early, log, record_seq, expected, points):
    # The proof rebuilds each cut flash from the write log. Here the device
    # cuts the power itself in a second run of the session (littlefs stamps
    # files with the time, so the bytes differ from the logged run) and the
    # same checks apply: returns the problems found.
    problems = []
    for k in points:
        for half in (False, True):
            gc.collect()
            image, acked = record_session(events, ack_early, k, "half" if half else "before")
            if acked != log[k - 1][4]:
                problems.append("cut at write %d: %d events shown, not %d as logged" % (k, acked, log[k - 1][4]))
            last_write = half and (k == len(log) or log[k][4] > acked)
            problem = check_cut(image, acked, last_write, events, record_seq, expected)
            if problem not in (None, "in flight"):
                problems.append("real cut %s write %d: %s" % ("in" if half else "before", k, problem))
            del image
    return problems


def write_into(image, entry, half):
    op, block, offset, data, _ = entry
    apply_write(image, op, block, offset, data, half)


def check_cut(image, acked, last_write, events, record_seq, expected):
    # One cut: returns None, "in flight" (the event being written when power
    # failed, cut inside its very last program, was restored: the commit
    # point had passed though the board had not shown it yet), or what went wrong.
    dev = NorFlash(image, copy=False)
    try:
        vfs.mount(vfs.VfsLfs2(dev), "/c")
    except OSError as e:
        return "filesystem does not mount: " + str(e)
    try:
        table = Table()
        journal = jn.Journal("/c", BOARD, **OPTIONS)
        try:
            status = journal.mount(table)
        except jn.JournalError as e:
            return "fault on restore: " + str(e)
        if acked < 0:
            if status == jn.NONE:
                return None
            if not last_write or journal.seq != record_seq[0] or rule_state(table) != expected[0]:
                return "a journal restored before its start was acknowledged"
            return "in flight"
        if status != jn.RESTORED:
            return "no journal restored with " + str(acked) + " events acknowledged"
        if journal.seq < record_seq[acked]:
            return "acknowledged record " + str(record_seq[acked]) + " lost (restored to " + str(journal.seq) + ")"
        shown = acked
        if acked < len(events) and journal.seq >= record_seq[acked + 1]:
            if not last_write or journal.seq != record_seq[acked + 1]:
                return "unacknowledged event " + str(acked + 1) + " restored"
            shown = acked + 1
        if rule_state(table) != expected[shown]:
            return "restored state differs from " + str(acked) + " acknowledged events"
        journal.append(jr.RESTART, 1, 0, table)
        journal.maintain(table, 0)
        seq = journal.seq
        vfs.umount("/c")
        vfs.mount(vfs.VfsLfs2(dev), "/c")
        again = Table()
        journal = jn.Journal("/c", BOARD, **OPTIONS)
        try:
            journal.mount(again)
        except jn.JournalError as e:
            return "fault on the restore after the restart record: " + str(e)
        if journal.seq != seq or rule_state(again) != expected[shown]:
            return "the journal does not carry on after the restore"
        return "in flight" if shown != acked else None
    finally:
        try:
            vfs.umount("/c")
        except OSError:
            pass


def main():
    words = sys.stdin.read().split()
    ack_early = "ack-early" in words
    start = time.ticks_ms()
    events = build_session(EVENTS)
    expected = []
    table = Table()
    expected.append(rule_state(table))
    for event in events:
        apply(table, event)
        expected.append(rule_state(table))
    base, log, record_seq, counts, segments = record_session(events, ack_early)
    total = len(log)
    if words and words[0] == "sample":
        n = int(words[1])
        points = sorted(set(1 + (i * (total - 1)) // (n - 1) for i in range(n)))
    else:
        points = list(range(1, total + 1))
    image = base
    done = 0  # writes applied to image
    tested = 0
    in_flight = 0
    failures = []
    for k in points:
        while done < k - 1:
            write_into(image, log[done], False)
            done += 1
        entry = log[k - 1]
        for half in (False, True):
            gc.collect()
            cut = bytearray(image)
            if half:
                write_into(cut, entry, True)
            # The last write before the next event is shown is its commit.
            last_write = half and (k == total or log[k][4] > entry[4])
            problem = check_cut(cut, entry[4], last_write, events, record_seq, expected)
            tested += 1
            if problem == "in flight":
                in_flight += 1
            elif problem is not None:
                failures.append("cut %s write %d (%s): %s" % ("in" if half else "before", k, entry[0], problem))
    # A few cuts made by the device itself, spread over the session.
    n = 12 if words and words[0] == "all" else 3
    real = [1 + (i * (total - 1)) // (n - 1) for i in range(n)]
    failures += real_cuts(events, ack_early, log, record_seq, expected, real)
    kinds = {}
    for kind, _, _ in events:
        kinds[jread.KIND_NAMES[kind]] = kinds.get(jread.KIND_NAMES[kind], 0) + 1
    print(
        "RESULT",
        {
            "events": len(events),
            "kinds": kinds,
            "writes": total,
            "programs": counts[0],
            "erases": counts[1],
            "bytes_programmed": counts[2],
            "segments": segments,
            "cut_points": tested,
            "in_flight_restored": in_flight,
            "device_cuts": 2 * len(real),
            "failures": len(failures),
            "first_failures": failures[:5],
            "ms": time.ticks_diff(time.ticks_ms(), start),
        },
    )


main()
