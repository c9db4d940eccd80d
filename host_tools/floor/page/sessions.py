"""The page's sessions: who is logged in, until when, and each session's form token.

Server-side: the browser holds only a random session id in a cookie
(HttpOnly, SameSite=Strict, Path=/), never the role or the password. A
session ends after `idle` seconds without a request, `lifetime` seconds
after login (a pit shift hands the tablet over), or at logout; its person's
broker connection is closed then. Every form carries the session's CSRF
token (synchronizer token, compared in constant time), so a page elsewhere
cannot make a logged-in browser acknowledge anything.
"""

import hmac
import secrets
import threading

COOKIE = "pit_session"
DEFAULT_IDLE = 15 * 60.0
DEFAULT_LIFETIME = 8 * 3600.0


class Session:
    def __init__(self, sid, user, role, bus, now):
        self.id = sid
        self.user = user
        self.role = role
        self.bus = bus  # the person's own broker connection (bus.PersonBus), or None
        self.csrf = secrets.token_urlsafe(32)
        self.started = now
        self.seen = now


class Sessions:
    def __init__(self, clock, idle=DEFAULT_IDLE, lifetime=DEFAULT_LIFETIME):
        self.clock = clock
        self.idle = idle
        self.lifetime = lifetime
        self._by_id = {}
        self._lock = threading.Lock()

    def open(self, user, role, bus):
        now = self.clock()
        session = Session(secrets.token_urlsafe(32), user, role, bus, now)
        with self._lock:
            self._by_id[session.id] = session
        return session

    def get(self, sid, touch=True):
        """The live session with id `sid`; None when unknown or expired. `touch`: a person's
        request, which restarts the idle time (the page's own pushes and refreshes do not)."""
        if not sid:
            return None
        now = self.clock()
        with self._lock:
            session = self._by_id.get(sid)
            if session is None:
                return None
            if now - session.seen > self.idle or now - session.started > self.lifetime:
                del self._by_id[sid]
                expired = session
            else:
                if touch:
                    session.seen = now
                return session
        _close(expired)
        return None

    def close(self, sid):
        with self._lock:
            session = self._by_id.pop(sid, None)
        if session:
            _close(session)

    def close_all(self):
        with self._lock:
            every, self._by_id = list(self._by_id.values()), {}
        for session in every:
            _close(session)

    def sweep(self):
        """Close every expired session (their broker connections with them)."""
        with self._lock:
            ids = list(self._by_id)
        for sid in ids:
            self.get_expired_only(sid)

    def get_expired_only(self, sid):
        now = self.clock()
        with self._lock:
            session = self._by_id.get(sid)
            if session is None or not (now - session.seen > self.idle or now - session.started > self.lifetime):
                return
            del self._by_id[sid]
        _close(session)


def csrf_ok(session, token):
    return bool(token) and hmac.compare_digest(session.csrf.encode(), str(token).encode())


def _close(session):
    if session.bus is not None:
        session.bus.close()
