# Journal figures on the NOR-flash model under the MicroPython unix VM, with
# the production settings: flash work per roll (compact records, and with the
# event JSON as payload), and the restore of a full journal.
#   MICROPYPATH=.:firmware/lib .venv/bin/micropython -X heapsize=24M sim/portable/journal_bench.py [ROLLS]
# ROLLS (default: enough to fill the journal) rolls are journalled; prints one JSON object.
import gc
import json
import sys
import time

import vfs

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.rules.engine import Table
from crapsboard.table import events
from sim.portable.norflash import NorFlash

BOARD = b"\x24\x0a\xc4\x00\x00\x01"


def dice(i):
    seed = (i * 1103515245 + 12345) & 0x7FFFFFFF
    return 1 + (seed >> 16) % 6, 1 + (seed >> 20) % 6


def session(rolls, with_json):
    dev = NorFlash()
    vfs.VfsLfs2.mkfs(dev)
    vfs.mount(vfs.VfsLfs2(dev), "/f")
    table = Table()
    journal = jn.Journal("/f", BOARD)
    journal.start_new(table, 0, 1)
    journal.maintain(table, 0)
    before = (dev.programs, dev.erases, dev.bytes_programmed)
    append_ms = 0
    for i in range(rolls):
        d1, d2 = dice(i)
        table.roll(d1, d2)
        payload = events.event_json(table, i + 1, jr.ROLL, d1 * 8 + d2, i).encode() if with_json else b""
        start = time.ticks_us()
        journal.append(jr.ROLL, d1 * 8 + d2, i, table, payload)
        append_ms += time.ticks_diff(time.ticks_us(), start)
        journal.maintain(table, i)
    vfs.umount("/f")
    programs, erases, written = dev.programs - before[0], dev.erases - before[1], dev.bytes_programmed - before[2]
    figures = {
        "rolls": rolls,
        "erases_per_roll": round(erases / rolls, 4),
        "programs_per_roll": round(programs / rolls, 2),
        "bytes_programmed_per_roll": round(written / rolls, 1),
        "append_us_unix": round(append_ms / rolls),
        "records_kept": sum(s[1] - s[0] + 1 for s in journal.segments()) + journal.staged,
        "segments": len(journal.segments()),
    }
    return dev, figures


def restore(dev):
    vfs.mount(vfs.VfsLfs2(dev), "/f")
    table = Table()
    journal = jn.Journal("/f", BOARD)
    gc.collect()
    start = time.ticks_ms()
    journal.mount(table)
    ms = time.ticks_diff(time.ticks_ms(), start)
    vfs.umount("/f")
    return {"restore_ms_unix": ms, "records_verified": journal.seq, "rolls_restored": table.rolls}


def main():
    full = 24 * 1290
    rolls = int(sys.argv[1]) if len(sys.argv) > 1 else full
    dev, compact = session(rolls, False)
    compact.update(restore(dev))
    del dev
    gc.collect()
    _, with_json = session(min(rolls, 2000), True)
    print(json.dumps({"compact_records": compact, "event_json_payload": with_json}))


main()
