"""`make floor PG=1`: the floor with its record on a PostgreSQL of its own,
started for this floor the way the tests start one (pgserver.py: Debian's
binaries, a cluster in a temporary directory, fsync on, a free loopback
port) and removed when the floor stops. For trying the floor's PostgreSQL
shape (`STANDBY=1` too) on a machine without a database server of its own;
a real floor gives `DB=postgresql://…` instead.

    python -m bench.floor.pg_floor [floor up options, not --db]
"""

import signal
import subprocess
import sys

from bench.floor import pgserver


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if any(a == "--db" or a.startswith("--db=") for a in argv):
        print("make floor: PG=1 starts a PostgreSQL of its own: give DB=… or PG=1, not both", file=sys.stderr)
        return 2
    why = pgserver.why_not()
    if why:
        print("make floor PG=1: %s" % why, file=sys.stderr)
        return 2
    server = pgserver.Server(fsync=True).start()
    try:
        url = server.create("floor")
        print("make floor PG=1: PostgreSQL on %s for this floor, removed when it stops" % url, flush=True)
        floor = subprocess.Popen([sys.executable, "-m", "host_tools", "floor", "up", "--db", url, *argv])
        # Ctrl-C is the supervisor's to act on (it stops the floor and exits): the server goes after it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: floor.send_signal(signal.SIGTERM))
        return floor.wait()
    finally:
        server.remove()


if __name__ == "__main__":
    sys.exit(main())
