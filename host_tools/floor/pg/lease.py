"""One writer at a time, by a lease PostgreSQL grants: a session-level
advisory lock named after what it guards (`progressive:FLOOR`).

The holder keeps the lock as long as its connection lives: a holder that
dies (killed, its machine off) loses its connection and the server frees the
lock at once, and a standby polling every POLL_S takes it within about that.
A holder checks its connection every CHECK_S and stops writing the moment it
cannot reach the server (it may have lost the lock without seeing it): the
server frees a silent holder's lock only when it finds the connection dead,
which its TCP keepalive takes far longer than CHECK_S to do, so the old
holder has stopped before a standby can take over. Never two at once.
"""

import hashlib
import time

from host_tools.floor.pg import schema

POLL_S = 0.25  # a standby asks for the lock this often
CHECK_S = 0.5  # a holder checks its connection this often


def lock_key(name):
    """The advisory lock's 64-bit key for `name`."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class Lease:
    def __init__(self, url, name):
        self.url, self.name, self.key = url, name, lock_key(name)
        self.conn = None
        self.checked = 0.0

    def acquire(self, stop=lambda: False, waiting=None):
        """Block until this process holds the lease (True), or `stop()` (False).
        `waiting()` is called once when another holds it."""
        said = False
        while not stop():
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = schema.connect_watchful(self.url)
                    # a dead standby or holder is found by the server within ~10 s, not the OS's 2 hours
                    self.conn.execute("set tcp_keepalives_idle = 5")
                    self.conn.execute("set tcp_keepalives_interval = 1")
                    self.conn.execute("set tcp_keepalives_count = 5")
                if self.conn.execute("select pg_try_advisory_lock(%s)", (self.key,)).fetchone()[0]:
                    self.checked = time.monotonic()
                    return True
                if not said and waiting:
                    waiting()
                said = True
            except Exception as e:  # the server away: a standby waits for it
                schema.log("lease %s: %s" % (self.name, str(e).strip().splitlines()[0] if str(e).strip() else e))
                self._drop()
            time.sleep(POLL_S)
        return False

    def held(self):
        """False once the connection that holds the lock is gone (checked every CHECK_S)."""
        if self.conn is None or self.conn.closed:
            return False
        now = time.monotonic()
        if now - self.checked < CHECK_S:
            return True
        try:
            self.conn.execute("set statement_timeout = %d" % int(CHECK_S * 1000))
            self.conn.execute("select 1").fetchone()  # the session lives, so does its lock
        except Exception:
            self._drop()
            return False
        self.checked = now
        return True

    def release(self):
        self._drop()

    def _drop(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
        self.conn = None
