"""A floor of processes on this machine for the tests and the bench: a real
mosquitto on free loopback ports in a directory of its own, virtual boards
(`python -m sim device`), gateway and recorder processes (`python -m
host_tools gateway | recorder`), and the faults the floor must survive
(tests/test_floor*.py, bench/floor/floor_bench.py). `make floor` is
supervise.py; this is its scriptable, fault-injecting cousin.

Deploying takes ~8 s a board, so the rig deploys once onto a template flash
image (a real `host_tools deploy` with a key), and each table's board starts
from a copy of it: the firmware, the key, the journal the deploy's boot began.
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

from host_tools import keys, sync
from host_tools.floor import supervise
from host_tools.floor.base import floordir, floorkeys, topics
from host_tools.floor.bus import broker
from host_tools.floor.recorder.store import Store
from host_tools.link import BoardLink
from sim.paths import ROOT

PY = sys.executable


def have_mosquitto():
    try:
        broker.mosquitto_binary()
        return True
    except Exception:  # HostToolError: not installed
        return False


def shared_template(tmp_path_factory):
    """make_template's (image, key file, hash), made once for a whole pytest
    session: pytest-xdist's workers share their session's folder (the one above
    their own) and a lock. Without xdist the folder above is pytest's root for
    every session, whose template could hold an older firmware: the session's own."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = os.path.join(str(session), "floor-template")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = os.path.join(folder, "done.json")
        if not os.path.exists(done):
            result = make_template(folder)
            with open(done, "w") as f:
                json.dump(result, f)
        with open(done) as f:
            return tuple(json.load(f))


def make_template(folder):
    """(image, key file, firmware hash): a board deployed with a new key, powered off."""
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o700)  # it holds the template's key: host_tools.keys refuses a directory others can enter
    image, key_file, link = (os.path.join(folder, n) for n in ("template.img", "template.key", "template.port"))
    keys.save_key(key_file, keys.new_key())
    dev = _device(image, link, os.path.join(folder, "template.log"))
    try:
        wait_path(link)
        done = subprocess.run(
            [PY, "-m", "host_tools", "deploy", "--port", link, "--key", key_file, "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        _check(done.returncode == 0, "deploy onto the template board failed: " + done.stderr.strip())
    finally:
        dev.send_signal(signal.SIGTERM)
        dev.wait(30)
    return image, key_file, json.loads(done.stdout)["hash"]


def _device(image, link, log_path, keys_script=None, key_feed=None):
    argv = [PY, "-m", "sim", "device", "--flash", image, "--link", link]
    if keys_script:
        argv += ["--keys", keys_script]
    if key_feed:
        argv += ["--key-feed", key_feed]
    with open(log_path, "ab") as log:
        return subprocess.Popen(argv, stdout=log, stderr=log, cwd=ROOT)


def wait_path(path, timeout=30.0):
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        _check(time.monotonic() < end, "no " + path)
        time.sleep(0.05)


def roll_script(rng, rolls, wait_ms=0):
    """`rolls` random rolls; a `*` at the end drops a half roll left by a press
    the board missed (a loaded machine), which would otherwise time out later."""
    dice = " ".join("%d %d" % (rng.randint(1, 6), rng.randint(1, 6)) for _ in range(rolls))
    return ("wait:%d " % wait_ms if wait_ms else "") + dice + " *"


def script_seconds(script):
    """How long a key script plays (keyscript: 80 ms press + 120 ms gap a key)."""
    total = 0.0
    for token in script.split():
        total += int(token[5:]) / 1000 if token.startswith("wait:") else 0.2
    return total


class Rig:
    def __init__(self, folder, tables, template, keepalive=10, bind=()):
        self.dir = os.path.join(folder, "floor")
        self.tables = list(tables)
        self.keepalive = keepalive
        floor = floordir.new_floor(self.dir, "test", self.tables, broker.free_port(), broker.free_port())
        if bind:
            floor["bind"] = list(bind)
            floordir.write_json(os.path.join(self.dir, "floor.json"), floor)
        self.floor = floor
        image, key_file = template[:2]
        self.template_image = image
        for t in self.tables:
            shutil.copy(key_file, self.key(t))
            shutil.copy(image, self.image(t))
            floorkeys.provision(self.dir, t, keys.read_key(key_file))
        broker.write_config(self.dir, floor)
        self.broker = broker.Broker(self.dir)
        self.boards, self.gateways, self.recorder = {}, {}, None
        self.gateway_extra = []  # more gateway options (the bench's --timeout on a loaded machine)

    # ---- paths ------------------------------------------------------------------------

    def key(self, t):
        return os.path.join(self.dir, "keys", t + ".key")

    def image(self, t):
        return os.path.join(self.dir, "boards", t + ".img")

    def port(self, t):
        return os.path.join(self.dir, "boards", t + ".port")

    def log(self, name):
        return os.path.join(self.dir, "logs", name + ".log")

    @property
    def url(self):
        return "mqtt://127.0.0.1:%d" % self.floor["port"]

    # ---- processes --------------------------------------------------------------------

    def start_broker(self):
        self.broker.start()

    def key_feed(self, t):
        return os.path.join(self.dir, "boards", t + ".keys")

    def start_board(self, t, keys_script=None):
        """The table's virtual board, with `keys_script` played once and its
        live key feed (`press`)."""
        if os.path.islink(self.port(t)):
            os.remove(self.port(t))
        self.boards[t] = _device(self.image(t), self.port(t), self.log("board-" + t), keys_script, self.key_feed(t))
        wait_path(self.port(t))

    def press(self, t, script):
        """Append `script` to the table's key feed; its line number there (see wait_pressed)."""
        with open(self.key_feed(t), "a+", encoding="ascii") as f:
            f.write(script + "\n")
            f.seek(0)
            return sum(1 for _ in f)

    def wait_pressed(self, t, line, timeout=60.0):
        """Until the table's board has pressed the last key of its key feed's `line`
        (the virtual board logs it once its hands are free of it: sim/keyfeed.py)."""
        self.wait_log("board-" + t, "%s line %d pressed" % (self.key_feed(t), line), timeout)

    def kill_board(self, t):
        """Unplugged and without power at once: the device and its VM die, and its port
        is gone (as a USB board's is). The link it left would name a pseudo-terminal the
        system may give the next device started anywhere on this machine: the gateway,
        opening it again, would take another board's port."""
        _kill(self.boards[t])
        supervise.remove_leftover(self.port(t))  # the link sim device --link made

    def gateway_argv(self, t, *extra):
        return [
            PY,
            "-m",
            "host_tools",
            "gateway",
            "--dir",
            self.dir,
            "--table",
            t,
            "--port",
            self.port(t),
            "--broker",
            self.url,
            "--keepalive",
            str(self.keepalive),
            *self.gateway_extra,
            *extra,
        ]

    def start_gateway(self, t, prefix=(), broker=None):
        argv = [*prefix, *self.gateway_argv(t)]
        if broker:
            argv[argv.index("--broker") + 1] = broker
        with open(self.log("gateway-" + t), "ab") as log:
            self.gateways[t] = subprocess.Popen(argv, stdout=log, stderr=log, cwd=ROOT)
        self._gateway_args = getattr(self, "_gateway_args", {})
        self._gateway_args[t] = (prefix, broker)

    def start_progressive(self):
        """The progressive controller's process on this floor (its log: progressive);
        the Popen, which the caller stops, kills or starts again. The installation step
        (the controller's code recorded, integrity.py) comes first."""
        from host_tools.floor.progressive import integrity

        integrity.install(self.dir)
        with open(self.log("progressive"), "ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "host_tools", "floor", "progressive", "--dir", self.dir, "--broker", self.url],
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )

    def restart_gateway(self, t):
        self.start_gateway(t, *self._gateway_args[t])

    def kill_gateway(self, t):
        _kill(self.gateways[t])

    def start_recorder(self):
        with open(self.log("recorder"), "ab") as log:
            self.recorder = subprocess.Popen(
                [PY, "-m", "host_tools", "recorder", "--dir", self.dir, "--broker", self.url],
                stdout=log,
                stderr=log,
                cwd=ROOT,
            )

    def wait_log(self, name, text, timeout=60.0, since=0):
        """Until the process's log holds `text` after byte `since`; returns the log's length."""
        end = time.monotonic() + timeout
        while True:
            try:
                with open(self.log(name), "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                data = b""
            if text.encode() in data[since:]:
                return len(data)
            _check(time.monotonic() < end, "%s did not log %r: %r" % (name, text, data[since:][-400:]))
            time.sleep(0.1)

    def log_size(self, name):
        try:
            return os.path.getsize(self.log(name))
        except FileNotFoundError:
            return 0

    def stop(self):
        for p in list(self.gateways.values()) + [self.recorder] + list(self.boards.values()):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    _kill(p)
        self.broker.stop()

    # ---- what the floor and the boards hold --------------------------------------------

    def store(self):
        return Store(os.path.join(self.dir, "recorder.sqlite"), readonly=True)

    def recorded(self, t):
        """[(journal, seq, link)] the recorder holds for table t, in order."""
        s = self.store()
        try:
            return s.db.execute(
                "select journal, seq, link from events where tbl=? order by journal, seq", (t,)
            ).fetchall()
        finally:
            s.close()

    def alerts(self):
        s = self.store()
        try:
            return s.alerts()
        finally:
            s.close()

    def board_journal(self, t):
        """[(journal, seq, link)] of the board's journal, read and verified over the link."""
        out = []
        with BoardLink(self.port(t), timeout=5) as link:
            jid = link.hello()["journal"]["id"]
            sync.download(link, 0, 8, lambda records: out.extend((jid, r.seq, r.hash[:8].hex()) for r in records))
        return out

    def board_status(self, t):
        with BoardLink(self.port(t), timeout=5) as link:
            status = link.request("status")
        status.pop("t", None)
        return status

    def wait_quiet(self, timeout=120.0, steady=5.0):
        """Until every table's gateway says (retained, at the broker) that the
        recorder holds all it read from the board, unchanged for `steady` s.
        Returns the last `floor status` rows; the boards' ports are the
        gateways' (opened exclusively) until stop_gateways()."""
        from host_tools.floor import cli

        end = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while True:
            rows = cli.status(self.dir, self.url, 0.5)
            view = [(r["table"], r["presence"], r["seq"], r["lag"]) for r in rows]
            done = all(r["lag"] == 0 and r["presence"] == "online" for r in rows) and len(rows) == len(self.tables)
            if view != last:
                last, since = view, time.monotonic()
            elif done and time.monotonic() - since >= steady:
                return rows
            if time.monotonic() > end:
                return rows
            time.sleep(0.5)

    def stop_gateways(self):
        for p in self.gateways.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait(20)


def wait_for(predicate, timeout, what):
    """Until predicate() is true; RuntimeError naming `what` after `timeout` s."""
    end = time.monotonic() + timeout
    while not predicate():
        _check(time.monotonic() < end, "no %s within %g s" % (what, timeout))
        time.sleep(0.2)


def _check(ok, message):
    if not ok:
        raise RuntimeError(message)


def _kill(proc):
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.wait()


def publish(rig, user, topic, payload, retain=False, password=None):
    """Publish one message as `user` (its password from the floor, or `password`: a person's
    is theirs alone) and wait for the broker's PUBACK."""
    from host_tools.floor.bus.mqtt import Client

    c = Client(rig.url, user, password or floordir.password(rig.dir, user), "")
    c.start()
    try:
        _check(c.wait_connected(5), "no broker at " + rig.url)
        info = c.publish(topic, payload, retain=retain)
        info.wait_for_publish(5)
        return info.is_published()
    finally:
        c.stop()


def watch(rig, topic, into):
    """A floorctl client appending each message published on `topic` from now
    on (not the retained one) to `into`; call .stop() when done."""
    from host_tools.floor.bus.mqtt import Client

    def on_message(t, payload, retained):
        if not retained:
            into.append(payload.decode("ascii", "replace"))

    c = Client(
        rig.url,
        "floorctl",
        floordir.password(rig.dir, "floorctl"),
        "",
        on_message=on_message,
        on_connect=lambda: c.subscribe(topic),
    )
    c.start()
    _check(c.wait_connected(5), "no broker at " + rig.url)
    return c


def watch_stamped(rig, topic, into):
    """As watch(), appending (monotonic arrival time, text) of each message
    published on `topic` from now on: the presence latencies' clock."""
    stamped = _Stamped(into)
    return watch(rig, topic, stamped)


class _Stamped:
    def __init__(self, into):
        self.into = into

    def append(self, text):
        self.into.append((time.monotonic(), text))


def outbox_payloads(rig, t, count, rng=None):
    """Up to `count` payloads the table's gateway already published, from its outbox."""
    import sqlite3

    db = sqlite3.connect(os.path.join(rig.dir, "gateways", t + ".sqlite"), timeout=10)
    rows = [r[0] for r in db.execute("select payload from records where sent = 1")]
    db.close()
    (rng or random).shuffle(rows)
    return rows[:count]


def state_of(rig, t):
    s = rig.store()
    try:
        return s.tables().get(t, {}).get("state")
    finally:
        s.close()


def event_topic(rig, t):
    return topics.table(rig.floor["floor"], t, "event")
