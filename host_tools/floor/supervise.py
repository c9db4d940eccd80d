"""`make floor`: a whole floor on one machine, supervised as systemd would
supervise it on a real one (docs/floor.md).

The broker, one virtual board per table (`python -m sim device`, the
firmware deployed with the table's own key), one gateway per table, the
recorder and the progressive controller, each a process of its own with its log in DIR/logs/. A process
that dies is started again and the restart logged (a quick succession of
deaths backs off, up to 30 s). Ctrl-C or SIGTERM stops the gateways, the
recorder, the boards and the broker in that order and leaves no process
behind (each child also gets SIGTERM if this process dies: PR_SET_PDEATHSIG).
A second `make floor` on the same directory says it runs already, in one line.
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time

from host_tools import EXIT_FAILED, EXIT_USAGE, HostToolError
from host_tools.floor.base import floordir, metrics
from host_tools.floor.bus import broker
from host_tools.floor.pg import schema

EXIT_RUNNING = 5  # a floor runs already in this directory
BACKOFF_MAX_S = 30.0
STABLE_S = 10.0  # a process that lived this long starts again at once when it dies
PAGE_PORT_OFFSET = 50  # the pit page: the broker's port + 50 (18880 by default), or floor.json "page_port"


def metrics_ports(floor):
    """{service name: its --metrics-port}, from floor.json's "metrics_port" P (none without it):
    the supervisor on P, the recorder P+1, the progressive controller P+2, the page P+3, the gateways from P+10."""
    base = floor.get("metrics_port")
    if not base:
        return {}
    ports = {"supervisor": base, "recorder": base + 1, "progressive": base + 2, "page": base + 3}
    ports.update({"gateway " + t: base + 10 + i for i, t in enumerate(floor["tables"])})
    return ports


def supervisor_figures(services):
    def read(f):
        for s in services:
            f.gauge(
                "supervised_up",
                "1 while the supervised process runs",
                int(s.proc is not None and s.proc.poll() is None),
                service=s.name,
            )
            f.counter(
                "supervised_restarts", "times the supervisor started the process again", s.restarts, service=s.name
            )

    return read


def _die_with_parent():
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def remove_leftover(path):
    """Remove what a process killed outright could not (a board's port link), if it is there."""
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class Service:
    """One supervised process."""

    def __init__(self, name, argv, log_path, leaves=()):
        self.name, self.argv, self.log_path = name, argv, log_path
        # Paths the process removes as it stops, which stay when it is killed outright: a
        # board's port link would name a pseudo-terminal the system may give another device.
        self.leaves = leaves
        self.proc = None
        self.started = 0.0
        self.restarts = 0
        self.backoff = 0.0
        self.due = 0.0

    def start(self):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self.argv,
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        log.close()
        self.started = time.monotonic()

    def forget_leavings(self):
        for path in self.leaves:
            remove_leftover(path)

    def stop(self, timeout=15.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def say(directory, text):
    """One line to the floor's log, then to the console: what a technician
    reads on the console is already in the log."""
    line = "%s make floor: %s" % (time.strftime("%H:%M:%S"), text)
    with open(os.path.join(directory, "logs", "supervisor.log"), "a", encoding="utf-8") as f:
        f.write(line + "\n")
    print(line, flush=True)


def lock(directory):
    """The floor's lock (held while this process lives), or HostToolError naming who holds it."""
    os.makedirs(directory, exist_ok=True)
    fd = os.open(os.path.join(directory, "floor.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pid = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise HostToolError(
            "a floor is already running in %s (pid %s): Ctrl-C it first" % (directory, pid), EXIT_RUNNING
        )
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


def own_terminal():
    """Take Ctrl-C for this process alone: when the terminal is ours, move to a
    process group of our own and make it the terminal's foreground group, so a
    Ctrl-C reaches the supervisor and not `make` above it (which would print
    "Interrupt" and exit 130 while the floor is still stopping). Returns the
    call that gives the terminal back (the children run in sessions of their own)."""
    try:
        fd = sys.stdin.fileno()
        if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            return lambda: None
        before = os.getpgrp()
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may then set the foreground
        os.setpgid(0, 0)
        os.tcsetpgrp(fd, os.getpgrp())
    except (OSError, ValueError, AttributeError):
        return lambda: None

    def give_back():
        try:
            os.tcsetpgrp(fd, before)
        except OSError:
            pass
        signal.signal(signal.SIGTTOU, old)

    return give_back


def firmware_hash():
    from host_tools import deploy

    return deploy.manifest(deploy.build_files(), deploy.firmware_version())["hash"]


def deploy_board(directory, table_id, port_link, want_hash):
    """Deploy onto the table's board unless its stamp says this firmware is there."""
    stamp = os.path.join(directory, "boards", table_id + ".deployed")
    if os.path.exists(stamp) and open(stamp).read().strip() == want_hash:
        return False
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "host_tools",
            "deploy",
            "--port",
            port_link,
            "--key",
            os.path.join(directory, "keys", table_id + ".key"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise HostToolError("deploy onto table %s's board failed: %s" % (table_id, done.stderr.strip()), EXIT_FAILED)
    with open(stamp, "w") as f:
        f.write(json.loads(done.stdout)["hash"] + "\n")
    return True


def _wait_path(path, timeout=30.0):
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def board_service(directory, table_id):
    link = os.path.join(directory, "boards", table_id + ".port")
    argv = [
        sys.executable,
        "-m",
        "sim",
        "device",
        "--flash",
        os.path.join(directory, "boards", table_id + ".img"),
        "--link",
        link,
    ]
    argv += ["--key-feed", key_feed(directory, table_id)]
    log = os.path.join(directory, "logs", "board-%s.log" % table_id)
    return Service("board " + table_id, argv, log, leaves=(link,)), link


def page_port(floor):
    return floor.get("page_port") or floor["port"] + PAGE_PORT_OFFSET


def standby_ports(floor):
    """The second recorder's and the standby controller's --metrics-port (P+4, P+5), with `--standby`."""
    base = floor.get("metrics_port")
    return {"recorder b": base + 4, "progressive standby": base + 5} if base else {}


def recorders_and_controllers(py, directory, db, standby):
    """[(service name, argv)] of the recorder(s) and the progressive controller(s): one of each
    on the floor's own files by default; on `db` (a SQLite path or postgresql://…) the record
    there, and on a postgresql:// one the controller's ledger too; with `standby` two recorders
    on that PostgreSQL and two controllers sharing its lease and its ledger, the shape of two
    floor machines (docs/floor.md, `make floor`)."""
    on_db = ["--db", db] if db else []
    ledger = ["--ledger", db] if db and schema.is_url(db) else []
    if not standby:
        return [
            ("recorder", py + ["recorder", "--dir", directory] + on_db),
            ("progressive", py + ["floor", "progressive", "--dir", directory] + on_db + ledger),
        ]
    out = []
    for name, instance in (("recorder", "a"), ("recorder b", "b")):
        out.append((name, py + ["recorder", "--dir", directory, "--instance", instance] + on_db))
    for name in ("progressive", "progressive standby"):
        out.append((name, py + ["floor", "progressive", "--dir", directory, "--lease", db] + on_db + ledger))
    return out


def check_db(db, standby, directory):
    """The record's database made ready before anything starts: a postgresql:// one migrated
    (`floor db migrate`), and refused while the floor's ledger is still its SQLite file
    (ledgers.check_not_split); HostToolError (exit 2) in one line when it cannot be, or for
    `standby` without one (the lease and the two recorders' shared record are PostgreSQL's)."""
    from host_tools.floor.progressive import ledgers

    if standby and not schema.is_url(db or ""):
        raise HostToolError(
            "--standby needs --db postgresql://…: the controllers' lease and the recorders' shared record", EXIT_USAGE
        )
    if db and schema.is_url(db):
        schema.migrate(db)
        ledgers.check_not_split(directory, db)


def up(directory, tables, keys="", metrics_port=0, pits=0, db=None, standby=False):
    from host_tools.floor import floor_init

    if keys:
        keys = checked_keys(keys)  # before anything starts
    check_db(db, standby, directory)
    fd = lock(directory)
    existing = floor_init.floor_or_none(directory)
    port = existing["port"] if existing else 18830
    ws_port = existing["ws_port"] if existing else 18831
    floor = floor_init.init(directory, tables, existing["floor"] if existing else "main", port, ws_port, pits)
    if metrics_port:
        floor["metrics_port"] = metrics_port
        floordir.write_json(os.path.join(directory, "floor.json"), floor)
    services = []
    stopping = []

    def on_signal(signum, frame):
        stopping.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    give_back = own_terminal()
    ports = metrics_ports(floor)
    ports.update(standby_ports(floor) if standby else {})
    metrics.expose(ports.get("supervisor"), supervisor_figures(services))

    def measured(name, argv):
        return argv + ["--metrics-port", str(ports[name])] if name in ports else argv

    try:
        b = Service(
            "broker",
            [broker.mosquitto_binary(), "-c", os.path.join(directory, "mosquitto.conf")],
            os.path.join(directory, "logs", "mosquitto.out"),
        )
        b.start()
        services.append(b)
        if not broker.wait_listening(floor["port"], 10, b.proc):
            raise HostToolError("mosquitto did not start: see %s/mosquitto.log" % directory, EXIT_FAILED)
        say(directory, "broker on 127.0.0.1:%d (WebSockets %d)" % (floor["port"], floor["ws_port"]))
        for p in floor.get("pits") or []:  # each pit's broker, bridged to the floor's (bus/bridge.py)
            pit = Service(
                "pit broker " + p["name"],
                [broker.mosquitto_binary(), "-c", os.path.join(directory, "pits", p["name"], "mosquitto.conf")],
                os.path.join(directory, "logs", "mosquitto-%s.out" % p["name"]),
            )
            pit.start()
            services.append(pit)
            if not broker.wait_listening(p["port"], 10, pit.proc):
                raise HostToolError(
                    "pit %s's mosquitto did not start: see its log in %s/pits" % (p["name"], directory), EXIT_FAILED
                )
            say(
                directory,
                "pit %s: broker on 127.0.0.1:%d for %s, bridged to the floor's"
                % (p["name"], p["port"], " ".join(p["tables"])),
            )
        want = firmware_hash()
        links = {}
        for t in floor["tables"]:
            s, link = board_service(directory, t)
            s.start()
            services.append(s)
            links[t] = link
        errors = []

        def deploy_one(t):
            try:
                if not _wait_path(links[t]):
                    raise HostToolError("table %s's board did not start" % t, EXIT_FAILED)
                if deploy_board(directory, t, links[t], want):
                    say(directory, "table %s: firmware deployed with the table's key" % t)
                if keys:  # once for this floor: through the feed, so a board's restart does not press it again
                    press(directory, t, keys)
            except HostToolError as e:
                errors.append(str(e))

        threads = [threading.Thread(target=deploy_one, args=(t,)) for t in floor["tables"]]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise HostToolError(errors[0], EXIT_FAILED)
        py = [sys.executable, "-m", "host_tools"]
        for name, argv in recorders_and_controllers(py, directory, db, standby):
            log = name.replace(" standby", "-standby").replace("recorder b", "recorder-b")
            service = Service(name, measured(name, argv), os.path.join(directory, "logs", log + ".log"))
            service.start()
            services.append(service)
        if db:
            where = schema.redacted(db) if schema.is_url(db) else db
            say(directory, "the record in %s%s" % (where, " by two recorders" if standby else ""))
        if standby:
            say(directory, "two progressive controllers, one lease: the standby takes over when the holder dies")
        for t in floor["tables"]:
            g = Service(
                "gateway " + t,
                measured("gateway " + t, py + ["gateway", "--dir", directory, "--table", t, "--port", links[t]]),
                os.path.join(directory, "logs", "gateway-%s.log" % t),
            )
            g.start()
            services.append(g)
        page = Service(  # the pit and surveillance page
            "page",
            measured(
                "page",
                py
                + ["floor", "page", "--dir", directory, "--http-port", str(page_port(floor))]
                + (["--db", db] if db else []),
            ),
            os.path.join(directory, "logs", "page.log"),
        )
        page.start()
        services.append(page)
        people_hint = "people: `python -m host_tools floor user add NAME --role ROLE`"
        say(directory, "pit page on http://127.0.0.1:%d/ (%s)" % (page_port(floor), people_hint))
        if ports:
            say(directory, "Prometheus metrics on 127.0.0.1:%d-%d" % (min(ports.values()), max(ports.values())))
        say(directory, "%d tables up: `python -m host_tools floor status`; Ctrl-C stops the floor" % len(links))
        while not stopping:
            now = time.monotonic()
            for s in services:
                code = s.proc.poll()
                if code is None or now < s.due:
                    continue
                if s.due == 0.0:
                    s.forget_leavings()
                    lived = now - s.started
                    s.backoff = 0.0 if lived >= STABLE_S else min(BACKOFF_MAX_S, max(1.0, s.backoff * 2))
                    s.due = now + s.backoff
                    continue
                s.restarts += 1
                say(directory, "%s ended (status %s): restarted (restart %d)" % (s.name, code, s.restarts))
                s.start()
                s.due = 0.0
            time.sleep(0.2)
        say(directory, "stopping")
    finally:
        order = [s for s in services if s.name == "page"] + [s for s in services if s.name.startswith("gateway")]
        order += [s for s in services if s.name.startswith(("progressive", "recorder"))]
        order += [s for s in services if s.name.startswith("board")]
        order += [s for s in services if s.name.startswith("pit broker")] + [s for s in services if s.name == "broker"]
        for s in order:
            s.stop()
        os.close(fd)
        if stopping:
            say(directory, "stopped; nothing left running")
        give_back()  # the terminal back to `make` (or the shell), after the last line


def key_feed(directory, table_id):
    return os.path.join(directory, "boards", table_id + ".keys")


def checked_keys(script):
    """`script` with its spaces made single, checked as the board reads it;
    HostToolError (exit 2) naming the bad token."""
    from crapsboard.table import layout as lay
    from sim.paths import BOARD_JSON
    from sim.portable import keyscript

    script = " ".join(script.split())
    if not script:
        raise HostToolError("no keys given", EXIT_USAGE)
    with open(BOARD_JSON, encoding="utf-8") as f:
        layout = lay.Layout(json.load(f))
    try:
        keyscript.check(script, layout)
    except ValueError as e:  # KeyScriptError
        raise HostToolError("keys %r: %s" % (script, e), EXIT_USAGE)
    return script


def press(directory, table_id, script):
    """Append `script` (checked first, as the board would read it) to the
    table's key feed: its virtual board presses it at once, and once only
    (sim device --key-feed, docs/device.md). Returns the script as queued."""
    floor = floordir.read_floor(directory)
    if table_id not in floor["tables"]:
        raise HostToolError(
            "no table %s on this floor (tables: %s)" % (table_id, ", ".join(floor["tables"])), EXIT_USAGE
        )
    script = checked_keys(script)
    with open(key_feed(directory, table_id), "a", encoding="ascii") as f:
        f.write(script + "\n")
    return script
