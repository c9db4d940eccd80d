"""The journal's figures for `make bench` (`python -m sim bench`): flash work
per roll, estimated device time per roll, restore time of a full journal on
the unix port and flash wear at 3,000 rolls a day.

The measuring is sim/portable/journal_bench.py's, under the MicroPython VM on
the NOR-flash model with the production settings; this module runs it and
turns its counts into device time and wear with the datasheet figures below.
"""

import json

from sim import runtime
from sim.analysis import doc_figures

FULL_JOURNAL_ROLLS = 24 * 1290  # 24 segments of ~1,290 roll records: a full journal
QUICK_ROLLS = 3000
ROLLS_PER_DAY = 3000

# A common 4 MB SPI NOR flash as on ESP32-WROOM-32 modules (Winbond W25Q32JV
# datasheet, rev. I, table 9.6): page program (up to 256 bytes) 0.4 ms typical,
# 3 ms max; 4 KiB sector erase 45 ms typical, 400 ms max; 100,000 program/erase
# cycles per sector. Every littlefs block program here is at most a page.
PAGE_PROGRAM_MS = (0.4, 3.0)
SECTOR_ERASE_MS = (45.0, 400.0)
ERASE_CYCLES = 100_000
BLOCKS = 512  # the 4 MB board's "vfs" partition
FULL_JOURNAL_BLOCKS = 220  # docs/journal.md: a full journal's files


def measure(rolls=FULL_JOURNAL_ROLLS):
    """The journal bench's JSON plus the derived figures; {"error": ...} when the VM fails."""
    try:
        done = runtime.run(
            "sim/portable/journal_bench.py", [str(rolls)], heapsize="24M", capture_output=True, text=True
        )
    except runtime.RuntimeMissing as e:
        return {"error": str(e)}
    if done.returncode:
        lines = done.stderr.strip().splitlines()
        return {"error": "journal_bench.py failed: " + (lines[-1] if lines else "exit %d" % done.returncode)}
    r = json.loads(done.stdout.strip().splitlines()[-1])
    c = r["compact_records"]
    r["device_ms_per_roll"] = [
        c["programs_per_roll"] * program + c["erases_per_roll"] * erase
        for program, erase in zip(PAGE_PROGRAM_MS, SECTOR_ERASE_MS)
    ]
    erases_per_day = c["erases_per_roll"] * ROLLS_PER_DAY
    # littlefs levels wear dynamically over the blocks it allocates: at best all
    # of them; at worst only those left free beside two full journals
    # (journal and journal.old), which stay put.
    r["wear_years"] = [
        ERASE_CYCLES * blocks / erases_per_day / 365 for blocks in (BLOCKS, BLOCKS - 2 * FULL_JOURNAL_BLOCKS)
    ]
    r["datasheet"] = {
        "part": "Winbond W25Q32JV (4 MB SPI NOR)",
        "page_program_ms": list(PAGE_PROGRAM_MS),
        "sector_erase_ms": list(SECTOR_ERASE_MS),
        "erase_cycles": ERASE_CYCLES,
    }
    return r


def rows(r):
    """(measure, value) rows, as printed and as docs/journal.md's generated table."""
    c = r["compact_records"]
    typical, worst = r["device_ms_per_roll"]
    best_wear, worst_wear = r["wear_years"]
    return [
        ("journal: block programs per roll", "%.2f" % c["programs_per_roll"]),
        ("journal: bytes programmed per roll", "%.1f" % c["bytes_programmed_per_roll"]),
        ("journal: block erases per roll", "%.4f" % c["erases_per_roll"]),
        (
            "journal: est. device time per roll (ms)",
            "%.1f typical, %.1f max (%s ms program, %s ms erase)"
            % (
                typical,
                worst,
                "/".join("%g" % x for x in PAGE_PROGRAM_MS),
                "/".join("%g" % x for x in SECTOR_ERASE_MS),
            ),
        ),
        (
            "journal: restore, %s records (unix port, ms)" % format(c["records_verified"], ","),
            "%d" % c["restore_ms_unix"],
        ),
        (
            "journal: flash wear at %s rolls/day (years)" % format(ROLLS_PER_DAY, ","),
            "%.0f (512 blocks levelled) .. %.0f (72 free blocks)" % (best_wear, worst_wear),
        ),
        ("journal: append on the unix port (us)", "%d" % c["append_us_unix"]),
        (
            "journal: with event JSON instead (erases/roll)",
            "%.3f, %.0f bytes/roll"
            % (r["event_json_payload"]["erases_per_roll"], r["event_json_payload"]["bytes_programmed_per_roll"]),
        ),
    ]


def title(r):
    return "Journal: %s rolls on the NOR-flash model under the VM (%s)" % (
        format(r["compact_records"]["rolls"], ","),
        r["datasheet"]["part"],
    )


def render(r, write):
    if "error" in r:
        write("journal: skipped: %s\n" % r["error"])
        return
    doc_figures.console(title(r), rows(r), write)


def section(stamp, r):
    """docs/journal.md's generated table (`make bench`)."""
    return doc_figures.section_body(stamp, title(r), rows(r))
