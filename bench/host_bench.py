"""`make bench-host`: host_tools against the virtual board, timed.

Starts `python -m sim device` on a fresh flash with a key script of N rolls,
then measures: a whole deploy onto the empty board, a deploy with nothing
changed, the round trip of `hello` and `status`, and the journal download
(`log --port`'s paging) in records per second. Figures, not limits: nothing
here fails on a slow machine. Writes build/host_bench.json and prints it.
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from host_tools import deploy, sync
from host_tools.link import BoardLink
from sim.analysis import doc_figures
from sim.paths import ROOT


def _device(flash, keys):
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", "device", "--flash", flash, "--keys", keys],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    line = proc.stdout.readline()
    if not line.startswith("/"):
        proc.kill()
        raise SystemExit("host bench: the virtual board did not start")
    return proc, line.strip()


def _round_trips(port, cmd, n):
    with BoardLink(port) as link:
        link.request(cmd)
        times = []
        for _ in range(n):
            start = time.perf_counter()
            link.request(cmd)
            times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def measure(rolls=60, trips=50):
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CRAPSBOARD_KEYS"] = os.path.join(tmp, "keys")
        keys = "wait:1000 " + " ".join(["3 4", "6 6", "2 5", "4 4"] * (rolls // 4))
        proc, port = _device(os.path.join(tmp, "flash.img"), keys)
        try:
            start = time.perf_counter()
            first = deploy.deploy(port, quiet=True)
            full_s = time.perf_counter() - start
            hello_ms = _round_trips(port, "hello", trips)
            status_ms = _round_trips(port, "status", trips)
            want = rolls + 1  # the journal's start, then one record a roll
            end = time.monotonic() + rolls * 0.6 + 30
            while time.monotonic() < end:
                with BoardLink(port) as link:
                    if link.hello()["journal"]["seq"] >= want:
                        break
                time.sleep(1)
            records = []
            with BoardLink(port) as link:
                start = time.perf_counter()
                summary = sync.download(link, 0, sync.PAGE, records.extend)[0]
                sync_s = time.perf_counter() - start
            # last: its reset ends the key script (the virtual board presses it once)
            start = time.perf_counter()
            deploy.deploy(port, quiet=True)
            unchanged_s = time.perf_counter() - start
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    return {
        "deploy_full_s": round(full_s, 2),
        "deploy_files": len(first["copied"]),
        "deploy_unchanged_s": round(unchanged_s, 2),
        "hello_round_trip_ms": hello_ms,
        "status_round_trip_ms": status_ms,
        "sync_records": len(records),
        "sync_records_per_s": round(len(records) / sync_s, 1) if sync_s else None,
        "sync_summary": summary,
    }


def rows(figures):
    return [
        (
            "whole deploy onto an empty board (s)",
            "%.2f (%d files, %s bytes)"
            % (figures["deploy_full_s"], figures["deploy_files"], format(figures["deploy_bytes"], ",")),
        ),
        ("deploy with nothing changed (s)", "%.2f" % figures["deploy_unchanged_s"]),
        ("`hello` round trip, median (ms)", "%.2f" % figures["hello_round_trip_ms"]),
        ("`status` round trip, median (ms)", "%.2f" % figures["status_round_trip_ms"]),
        (
            "journal downloaded and verified (records/s)",
            "%.1f (%d records)" % (figures["sync_records_per_s"] or 0, figures["sync_records"]),
        ),
    ]


def section(figures):
    """host_tools/README.md's generated table (`make bench-host`)."""
    title = "A virtual board (`python -m sim device`) on a pseudo-terminal, %d rolls pressed." % figures["rolls"]
    return doc_figures.section_body(figures["stamp"], title, rows(figures))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.host_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=60, help="rolls pressed on the virtual board (default 60)")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "host_bench.json"))
    parser.add_argument("--write-doc", action="store_true", help="write host_tools/README.md's generated table")
    args = parser.parse_args(argv)
    figures = measure(args.rolls)
    figures["deploy_bytes"] = sum(len(d) for d in deploy.build_files().values())
    figures["rolls"] = args.rolls
    figures["stamp"] = doc_figures.stamp("make bench-host")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(figures, f, indent=2, sort_keys=True)
    print(json.dumps(figures, indent=2, sort_keys=True))
    if args.write_doc:
        doc_figures.write_section("host_tools/README.md", "make bench-host", section(figures))
        print("wrote host_tools/README.md (make bench-host)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
