"""The board's memory budget, scenario by scenario (docs/board.md, Memory).

    .venv/bin/python tests/heap_budget.py [NAMES] [LOW] [HIGH]     (make bench-heap)

Each scenario powers up firmware/main.py as deployed (tests/test_board_main.py's
flash folder: .mpy, layout.json, the stand-in machine and neopixel) under the
MicroPython unix port (64-bit) with a journal, keys and requests on the serial
port, and passes when it runs to its end with no fault: 30 watchdog feeds (3 s
of play), every request answered with "ok": true, and, where it says so, the
pushed events or the reset it expects. tests/test_heap_budget.py runs every
scenario in BUDGET; this script bisects -X heapsize for the smallest heap each
passes in and prints, beside it, the 32-bit estimate and the margin against
the ESP32-WROVER's heap.

NAMES: scenario names separated by ";" (default: all); LOW, HIGH: the bisection's
bounds in KB (default 96 320; HIGH must pass). --write-doc (make bench-heap)
also writes build/heap_budget.json and the generated table in docs/board.md,
Memory, with the commit and date it was measured at; each scenario's row
names the heap its tests run the firmware at, which tests/test_heap_margin.py
holds at least 10% above the measured need.
"""

import hashlib
import hmac
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, ROOT] + [os.path.join(ROOT, p) for p in ("firmware/lib", "sim/shims", "hardware")]

import test_board_main as tbm  # noqa: E402

from host_tools import keys  # noqa: E402

# The budget: every scenario below runs in this heap on the 64-bit unix port
# (tests/test_heap_budget.py). Measured needs: docs/board.md, Memory.
BUDGET_KB = 320
# A 32-bit heap needs 0.61-0.69x the 64-bit port's for the same scripts
# (first boot 95 -> 64 KB, 300-event restore 94 -> 64 KB, link hello + status
# 139-147 -> 96 KB, the lamp test with status 271 -> 191 KB; one source tree
# built both ways): the estimate takes the top.
RATIO_32 = 0.70
# The ESP32-WROVER-E's heap under MicroPython's ESP32_GENERIC SPIRAM build:
# 56 KB at start (MICROPY_GC_INITIAL_HEAP_SIZE, ports/esp32/mpconfigport.h),
# grown on demand by doubling (MICROPY_GC_SPLIT_HEAP_AUTO, py/gc.c) into the
# largest free block of the IDF heap, which PSRAM joins (CONFIG_SPIRAM_USE_MALLOC,
# boards/sdkconfig.spiram_esp32): the ESP32 maps 4 MB of the module's 8 MB.
MODULE_HEAP_KB = 4096

KEY = bytes(range(32))
LAMPS = 47  # hardware/board.json: every one lit in the lamp test
EVENTS_MANY = 10000
AT = 1767225600  # the floor's wall clock in the progressive's requests
LINK_NOT_LOADED = "hello the link cannot load for, play"
WHY_LONGEST = "plays PT-BJS-FUP-01; the Fired Up meter is on PT-BJS-FUP-03."  # 60: the most the board keeps


def signed(request, ctr):
    """`request` signed with KEY and counter `ctr` (docs/link.md, Signed requests)."""
    request = dict(request, ctr=ctr)
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":")).encode()
    request["tag"] = hmac.new(keys.command_key(KEY, request["cmd"]), canonical, hashlib.sha256).hexdigest()
    return request


def lines(*requests):
    return "".join(json.dumps(r) + "\n" for r in requests)


# Blank lines (spaces) the link reads and ignores: time passes while it reads
# them, so a request after them finds the app a few renders further on.
PAUSE = (" " * 1000 + "\n") * 5


# name -> (events in the journal before power-up, key script, requests, what else must be seen)
SCENARIOS = {
    "first boot, play": (0, tbm.PLAYED, "", ()),
    "restore 300 events, play": (300, tbm.PLAYED, "", ()),
    "restore 10,000 events, play": (EVENTS_MANY, tbm.PLAYED, "", ()),
    "lamp test, status polled": (
        0,
        "",
        lines({"id": 1, "cmd": "selftest"}) + "".join(PAUSE + lines({"id": 2 + i, "cmd": "status"}) for i in range(4)),
        ("all lamps",),
    ),
    "hello, status": (0, "", lines({"id": 1, "cmd": "hello"}, {"id": 2, "cmd": "status"}), ()),
    "events, largest page": (
        300,
        "",
        lines({"id": 1, "cmd": "events", "since": 0, "limit": 8}, {"id": 2, "cmd": "events", "since": 250}),
        (),
    ),
    "config_get, config_set": (
        0,
        "",
        lines(
            {"id": 1, "cmd": "config_get"},
            signed({"id": 2, "cmd": "config_set", "config": json.loads(tbm.FULL_CONFIG)}, 1),
            {"id": 3, "cmd": "config_get"},
        ),
        (),
    ),
    # A journal_reset needs the head the board reports after its
    # restart (a host's verified download), which a scripted stdin cannot know:
    # the reset is refused with its reason, the journal untouched.
    "time, journal_reset (refused: not downloaded)": (
        300,
        "",
        lines(
            signed({"id": 1, "cmd": "time", "unix": 1767225600}, 1),
            signed({"id": 2, "cmd": "journal_reset", "journal": 1, "seq": 1, "head": "00" * 32, "receipt": "00"}, 2),
        ),
        ("journal_reset refused",),
    ),
    "maintenance": (0, "", lines(signed({"id": 1, "cmd": "maintenance"}, 1)), ("reset",)),
    "restore 300 events, full config, play": (300, tbm.PLAYED, "", ()),
    # A heap too small for the link: the host's hello is refused ("link not
    # loaded") and the table plays on. Above the link's own need the link loads,
    # so this scenario is bisected below the heap its test runs it at (LINK_NOT_LOADED).
    LINK_NOT_LOADED: (0, tbm.PLAYED, lines({"id": 1, "cmd": "hello"}), ("link not loaded",)),
    "progressive meters, status, play": (
        300,
        tbm.PLAYED,
        lines(
            signed(
                {"id": 1, "cmd": "progressive", "game": "MEA", "state": "open", "amount": 100030, "at": AT}
                | {"rule": "shared"},
                1,
            ),
            signed(
                {"id": 2, "cmd": "progressive", "game": "FUP", "state": "closed", "amount": 2500000, "at": AT}
                | {"rule": "positional", "why": WHY_LONGEST},
                2,
            ),
            {"id": 3, "cmd": "status"},
        ),
        ("progressive",),
    ),
    "subscribe, play (the floor gateway)": (
        300,
        tbm.PLAYED,
        lines(
            {"id": 1, "cmd": "hello"},
            {"id": 2, "cmd": "events", "since": 290},
            {"id": 3, "cmd": "subscribe", "on": True},
        ),
        ("pushed",),
    ),
}


# Scenarios that run beside a config.json of every key (the progressive wagers offered).
FULL_CONFIG = ("restore 300 events, full config, play", "progressive meters, status, play")


def template(base, name):
    """The flash folder scenario `name` starts from (made once per `base`)."""
    events = SCENARIOS[name][0]
    config = tbm.FULL_CONFIG if name in FULL_CONFIG else None
    folder = base / ("journal-%d%s" % (events, "-config" if config else ""))
    if not folder.exists():
        folder.mkdir(parents=True)
        tbm.flash(folder, config=config)
        (folder / "link_key").write_text(KEY.hex())
        if events:
            tbm.journal_of(folder, events, config=config, key=KEY)
    return folder


def run(folder, name, heap, stack=0):
    """(passed, what was seen) for scenario `name` in the flash folder `folder`
    (booted in a thread of `stack` bytes unless 0)."""
    events, script, stdin, expects = SCENARIOS[name]
    keys = tbm.keys_for(script) if script else ()
    try:
        done = tbm.run_boot(folder, heap, keys=keys, feeds=30, stdin=stdin or None, timeout=120, stack=stack)
    except Exception as e:  # a VM that hangs: the run's stopped tasks fed no watchdog
        return False, repr(e)
    out = done.stdout.splitlines()
    replies = [json.loads(line) for line in out if line.startswith('{"id"')]
    pushed = [line for line in out if line.startswith('{"event"')]
    report = tbm.report_of("\n".join(line for line in out if not line.startswith("{")))
    asked = sum(1 for line in stdin.splitlines() if line.strip())
    good = done.returncode == 0 and "crapsboard:" not in report
    refused = [r for r in replies if r.get("ok") is False]
    if "journal_reset refused" in expects:  # the last request, refused with the rules' reason
        good = good and refused == replies[-1:] and "journal_reset refused" in refused[0].get("error", "")
    elif "link not loaded" in expects:  # the one reply: the link could not load
        good = good and len(refused) == 1 and "link not loaded" in refused[0].get("error", "")
    else:
        good = good and not refused
    good = good and len(replies) == asked
    if "reset" in expects:
        good = good and report.get("resets") == "1"
    else:
        good = good and report.get("wdt") == "1 30"
    if "all lamps" in expects:  # a status taken during the lamp test: the longest reply
        good = good and max(len(r.get("lamps", ())) for r in replies) == LAMPS
    if "progressive" in expects:  # the status states both meters as the floor sent them, rule and reason too
        status = replies[-1] if replies else {}
        meters = status.get("progressive") or {}
        good = (
            good
            and (meters.get("MEA") or {}).get("cents") == 100030
            and (meters.get("MEA") or {}).get("pays") == "shared by winning wagers"
            and (meters.get("FUP") or {}).get("closed") == WHY_LONGEST
        )
    if "pushed" in expects:
        good = good and len(pushed) >= len(script.split()) // 2
    return good, {
        "replies": replies[:2],
        "pushed": len(pushed),
        "report": {k: report.get(k) for k in ("wdt", "resets", "diag")},
    }


def passes(base, name, heap):
    trial = base / "trial"
    shutil.rmtree(trial, ignore_errors=True)
    shutil.copytree(template(base, name), trial)
    return run(trial, name, heap)[0]


def smallest(base, name, low, high):
    """The smallest heap in KB scenario `name` passes in (bisection; `high` must pass)."""
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if passes(base, name, "%dK" % mid) else (mid, high)
    return high


# The heaps the tests run the firmware at, per scenario: (module, constant).
# Every scenario also runs at BUDGET_KB (tests/test_heap_budget.py) and on the
# virtual board (sim device, whose default heap is sim.device.HEAPSIZE).
EVERYWHERE = [("heap_budget", "BUDGET"), ("sim.device", "HEAPSIZE")]
TESTS_AT = {
    "first boot, play": [("test_board_main", "PLAY_HEAP")],
    "restore 300 events, play": [("test_board_main", "PLAY_HEAP")],
    "restore 300 events, full config, play": [("test_board_main", "FULL_CONFIG_HEAP")],
    LINK_NOT_LOADED: [("test_board_main_link", "NO_LINK_HEAP")],
    "hello, status": [("test_board_main_link", "LINK_HEAP")],
}
BUDGET = "%dK" % BUDGET_KB
MARGIN = 1.10  # a test's heap is at least 10% above its scenario's measured need
DOC = os.path.join(ROOT, "docs", "board.md")
BEGIN, END = "<!-- make bench-heap: begin -->", "<!-- make bench-heap: end -->"


# The C stack: each of these scenarios booted in a thread whose stack is bisected
# (256-byte steps); MicroPython's own check trips at the thread's size less
# THREAD_SLACK on the unix port (ports/unix/mpthreadport.c), so the deepest use
# its checks saw is the smallest size that passes less THREAD_SLACK. The ESP32
# runs MicroPython in a 16 KB task and trips at 15 KB (ports/esp32/main.c).
STACK_SCENARIOS = (
    "first boot, play",
    "restore 10,000 events, play",
    "lamp test, status polled",
    "events, largest page",
    "progressive meters, status, play",
)
THREAD_SLACK = 8192
ESP32_STACK_LIMIT = 15 * 1024


def smallest_stack(base, name, low=16384, high=131072):
    """The deepest stack (bytes) scenario `name` reaches, by bisection of its thread's size."""
    trial = base / "trial"
    while high - low > 256:
        mid = (low + high) // 2 // 256 * 256
        shutil.rmtree(trial, ignore_errors=True)
        shutil.copytree(template(base, name), trial)
        low, high = (low, mid) if run(trial, name, BUDGET, mid)[0] else (mid, high)
    return high - THREAD_SLACK


def kb(size):
    """ "184K" -> 184; "1M" -> 1024."""
    size = size.strip().upper()
    return int(size[:-1]) * (1024 if size.endswith("M") else 1) if size[-1] in "KM" else int(size) // 1024


def tests_at(name):
    """[(where, KB)] the tests run scenario `name` at."""
    import importlib

    out = []
    everywhere = [] if name == LINK_NOT_LOADED else EVERYWHERE  # at the budget's heap the link loads
    for module, constant in TESTS_AT.get(name, []) + everywhere:
        out.append(("%s.%s" % (module, constant), kb(getattr(importlib.import_module(module), constant))))
    return out


def row(name, need):
    estimate = need * RATIO_32
    held = ", ".join("%s %dK" % (where, size) for where, size in tests_at(name))
    return "| %s | %d KB | %s | %d KB | %d KB |" % (name, need, held, round(estimate), round(MODULE_HEAP_KB - estimate))


HEADER = (
    "| scenario | 64-bit, measured | the tests run it at | 32-bit, estimated (x%.2f) | margin on the WROVER's %d KB |"
    % (RATIO_32, MODULE_HEAP_KB)
)


STACK_HEADER = "| scenario | deepest C stack, 64-bit unix port | against the ESP32's %d KB limit |" % (
    ESP32_STACK_LIMIT // 1024
)


def doc_table(needs, stamp, stacks=None):
    lines = [BEGIN, stamp, "", HEADER, "|---|---|---|---|---|"]
    lines += [row(name, need) for name, need in needs.items()]
    if stacks:
        lines += ["", STACK_HEADER, "|---|---|---|"]
        lines += [
            "| %s | %d bytes | %d%% |" % (name, used, round(100 * used / ESP32_STACK_LIMIT))
            for name, used in stacks.items()
        ]
    return "\n".join(lines + ["", END])


def doc_section(text=None):
    if text is None:
        with open(DOC, encoding="utf-8") as f:
            text = f.read()
    return text[text.index(BEGIN) : text.index(END)]


def doc_needs(text=None):
    """{scenario: KB} from the generated table in docs/board.md."""
    return {m[0]: int(m[1]) for m in re.findall(r"^\| ([^|]+?) \| (\d+) KB \|", doc_section(text), re.M)}


def doc_stacks(text=None):
    """{scenario: bytes} from the generated stack table in docs/board.md."""
    return {m[0]: int(m[1]) for m in re.findall(r"^\| ([^|]+?) \| (\d+) bytes \|", doc_section(text), re.M)}


def write_json(needs, stacks):
    """build/heap_budget.json: the needs and where and when they were measured; returns that stamp."""
    from sim.analysis import doc_figures

    stamp = doc_figures.stamp("make bench-heap")
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "heap_budget.json"), "w") as f:
        json.dump({"needs_kb": needs, "stack_bytes": stacks, "stamp": stamp}, f, indent=1)
    return stamp


def write_doc(needs, stacks, stamp):
    from sim.analysis import doc_figures

    body = doc_table(needs, stamp, stacks)[len(BEGIN) : -len(END)].strip("\n")
    doc_figures.write_section(os.path.relpath(DOC, ROOT), "make bench-heap", body)


def main(argv):
    write = "--write-doc" in argv
    argv = [a for a in argv if a != "--write-doc"]
    names = argv[0].split(";") if argv and argv[0] else list(SCENARIOS)
    low, high = (int(argv[1]), int(argv[2])) if len(argv) >= 3 else (96, 320)
    print(
        "budget: every scenario in %d KB of 64-bit heap (%d KB estimated on 32 bits)"
        % (BUDGET_KB, round(BUDGET_KB * RATIO_32))
    )
    print(HEADER)
    print("|---|---|---|---|---|")
    needs = {}
    with tempfile.TemporaryDirectory(prefix="heap-budget-") as tmp:
        for name in names:
            top = tests_at(name)[0][1] if name == LINK_NOT_LOADED else high  # must pass: bisected below it
            needs[name] = smallest(Path(tmp), name, low, top)
            print(row(name, needs[name]), flush=True)
    short = [(name, where, size) for name in needs for where, size in tests_at(name) if size < MARGIN * needs[name]]
    for name, where, size in short:
        print(
            "short: %s runs %r at %dK, under %d%% above its %d KB"
            % (where, name, size, (MARGIN - 1) * 100, needs[name])
        )
    if names == list(SCENARIOS):
        print(STACK_HEADER)
        print("|---|---|---|")
        stacks = {}
        with tempfile.TemporaryDirectory(prefix="stack-budget-") as tmp:
            for name in STACK_SCENARIOS:
                stacks[name] = smallest_stack(Path(tmp), name)
                used = stacks[name]
                print("| %s | %d bytes | %d%% |" % (name, used, round(100 * used / ESP32_STACK_LIMIT)), flush=True)
        stamp = write_json(needs, stacks)
        print("wrote build/heap_budget.json")
        if write:
            write_doc(needs, stacks, stamp)
            print("wrote docs/board.md (Memory)")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
