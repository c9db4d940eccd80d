"""A PostgreSQL server of its own for a test or a bench: Debian's
`postgresql` binaries (initdb, pg_ctl), a cluster in a fresh temporary
directory, on a free loopback port with its socket in that directory,
started and stopped (or killed outright) on demand; never the system's
service. PostgreSQL refuses to run as root, so as root the cluster belongs
to the `postgres` user the Debian package creates.
"""

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

from host_tools.floor.bus.broker import free_port


def binaries():
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and os.path.exists(os.path.join(os.path.dirname(os.path.realpath(found)), "pg_ctl")):
        return os.path.dirname(os.path.realpath(found))
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2].split(".")[0]))
    for folder in reversed(folders):
        if os.access(os.path.join(folder, "initdb"), os.X_OK):
            return folder
    return None


def why_not():
    """None when a server can be started here; else the reason, one line."""
    if binaries() is None:
        return "PostgreSQL is not installed (make test installs Debian's postgresql as root)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user to own the cluster"
    return None


class Server:
    def __init__(self, fsync=False):
        self.bin = binaries()
        assert self.bin, why_not()
        as_root = os.geteuid() == 0
        # Run as root, the cluster belongs to the postgres user, who must reach its
        # folder: the system's /tmp, not a TMPDIR inside a folder only root may enter
        # (the test session's own, tests/conftest.py).
        self.dir = tempfile.mkdtemp(prefix="crapsfloor-pg-", dir="/tmp" if as_root else None)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.fsync = fsync
        self.user = None
        if as_root:
            self.user = "postgres"
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    @property
    def log(self):
        return os.path.join(self.dir, "postgres.log")

    def url(self, database="floor"):
        return "postgresql://postgres@127.0.0.1:%d/%s" % (self.port, database)

    def _run(self, tool, *argv, check=True):
        done = subprocess.run(
            [os.path.join(self.bin, tool), *argv], user=self.user, capture_output=True, text=True, cwd=self.dir
        )
        if check and done.returncode != 0:
            raise RuntimeError("%s failed: %s" % (tool, (done.stderr or done.stdout).strip()[-600:]))
        return done

    def start(self):
        options = "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=%s -c max_connections=50" % (
            self.port,
            self.dir,
            "on" if self.fsync else "off",
        )
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", self.data, "-l", self.log, "-o", options)
        return self

    def create(self, database="floor"):
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute("create database %s" % database)
        return self.url(database)

    def pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def kill(self):
        """The postmaster killed outright (SIGKILL), as a machine losing power
        kills it; its backends end with it. start() again recovers from the WAL."""
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)
            end = time.monotonic() + 30
            while time.monotonic() < end:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
        # backends orphaned by the kill exit on their own; wait until none holds the port
        end = time.monotonic() + 30
        while time.monotonic() < end and self._run("pg_ctl", "status", "-D", self.data, check=False).returncode == 0:
            time.sleep(0.05)

    def stop(self):
        if self.pid():
            self._run("pg_ctl", "stop", "-D", self.data, "-m", "fast", "-w", check=False)

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
