"""Failed logins, throttled per account and per client address (docs/floor.md, "Logins").

Each account and each client address counts its failures in a row. From the
FREE_FAILURES-th on, the next try waits a delay that doubles with each
failure (1 s, 2 s, 4 s, … at most MAX_DELAY_S): a try during the delay is
refused without looking at the password, so it tests nothing. At
LOCK_AFTER failures in a row the account is **locked**: even its right
password is refused until a shift manager lifts the lock by acknowledging
the `login_locked` alert the lock raised (surveillance sees it too). A login
that succeeds clears its account's and its address's count. The counts and
locks are kept in the page's SQLite (page.sqlite), so restarting the page
lifts nothing. The clock is passed in.
"""

import threading

FREE_FAILURES = 3  # failures in a row before the first delay
MAX_DELAY_S = 60.0
LOCK_AFTER = 10  # failures in a row that lock an account

SCHEMA = (
    "create table if not exists logins (what text, name text, failures integer, last real, locked integer,"
    " primary key (what, name))"
)


def delay(failures):
    """Seconds a try must wait after the last of `failures` failures in a row."""
    if failures < FREE_FAILURES:
        return 0.0
    return min(MAX_DELAY_S, 2.0 ** (failures - FREE_FAILURES))


class Logins:
    def __init__(self, clock, db=None):
        self.clock = clock
        self.db = db  # a sqlite3 connection (the page's), or None: kept in memory only
        self.lock = threading.Lock()
        self.rows = {}  # (what, name) -> [failures, last, locked]
        if db is not None:
            db.execute(SCHEMA)
            for what, name, failures, last, locked in db.execute("select * from logins"):
                self.rows[(what, name)] = [failures, last, bool(locked)]

    def refusal(self, user, address):
        """Why a try by `user` from `address` is refused before its password is
        looked at (a line for people), or None when it may be tried."""
        now = self.clock()
        with self.lock:
            account = self.rows.get(("account", user))
            if account and account[2]:
                return "This account is locked after %d failed logins: a shift manager must unlock it." % account[0]
            waits = [row[1] + delay(row[0]) - now for row in (account, self.rows.get(("address", address))) if row]
        wait = max(waits, default=0.0)
        if wait > 0:
            return "Too many failed logins: try again in %d s." % (int(wait) + 1)
        return None

    def failed(self, user, address):
        """A wrong password: the counts go up. True when this failure locked the account."""
        now = self.clock()
        with self.lock:
            locked_now = False
            for key in (("account", user), ("address", address)):
                row = self.rows.setdefault(key, [0, now, False])
                row[0] += 1
                row[1] = now
                if key[0] == "account" and row[0] >= LOCK_AFTER and not row[2]:
                    row[2] = locked_now = True
                self._save(key)
            return locked_now

    def succeeded(self, user, address):
        with self.lock:
            for key in (("account", user), ("address", address)):
                if self.rows.pop(key, None) is not None:
                    self._drop(key)

    def locked(self, user):
        with self.lock:
            row = self.rows.get(("account", user))
            return bool(row and row[2])

    def locked_accounts(self):
        """[(user, failures, locked at)] of the accounts locked now."""
        with self.lock:
            return sorted(
                (name, row[0], row[1]) for (what, name), row in self.rows.items() if what == "account" and row[2]
            )

    def unlock(self, user):
        """The shift manager lifted the lock: the account starts again from no failure."""
        with self.lock:
            if self.rows.pop(("account", user), None) is not None:
                self._drop(("account", user))

    def _save(self, key):
        if self.db is not None:
            failures, last, locked = self.rows[key]
            self.db.execute("insert or replace into logins values (?,?,?,?,?)", key + (failures, last, int(locked)))

    def _drop(self, key):
        if self.db is not None:
            self.db.execute("delete from logins where what=? and name=?", key)
