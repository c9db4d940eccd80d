"""The pit and surveillance page as a Starlette app (served by uvicorn, page/cli.py).

Routes: /login, /logout, / (the floor: alerts and a tile per table),
/fragment (the live part of /, for page.js), /events (Server-Sent Events:
a line each time the floor changes), /ack and /ack-all (POST: one alert, or
the alerts of one event with one note), /table/ID (history) and
/table/ID.csv, /static/… (the project's own CSS and script: no CDN).

Live updates are pushed by the service (SSE), not MQTT over WebSockets in
the browser: a browser MQTT client would need the person's broker password
in the page's script and a JavaScript MQTT library; SSE needs neither, each
stream belongs to one person's session and ends with it (docs/floor.md).
"""

import asyncio
import datetime
import os
import secrets
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from host_tools.floor.alerts import hands
from host_tools.floor.page import render
from host_tools.floor.page.bus import BrokerRefused, PersonBus
from host_tools.floor.page.logins import Logins
from host_tools.floor.page.metrics import login_refused
from host_tools.floor.page.sessions import COOKIE, Sessions, csrf_ok
from host_tools.floor.people import accounts as people

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
LOGIN_COOKIE = "pit_login"  # the login form's token (double submit: cookie and field)
KEEPALIVE_S = 15.0
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: under it Chromium sends `Origin: null` with a form, which the origin check refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def make_app(view, floor, directory, sessions=None, person_bus=PersonBus, secure=False, logins=None):
    """The page for `view` (FloorView) of `floor` (floor.json) kept in `directory`;
    `secure`: served over HTTPS, so the session cookie is `Secure`."""
    sessions = sessions or Sessions(view.clock)
    logins = logins or Logins(view.clock, view.log.db if view.log is not None else None)
    view.unlock_listeners.append(logins.unlock)
    for user, failures, since in logins.locked_accounts():  # still locked after a restart: the alert again
        view.login_locked(user, failures, since)
    streams = set()

    def fan_out(version, _changed):
        for loop, queue in list(streams):
            loop.call_soon_threadsafe(queue.put_nowait, version)

    view.listeners.append(fan_out)

    def html(text, status=200):
        return HTMLResponse(text, status, headers=SECURITY_HEADERS)

    def current(request, touch=True):
        return sessions.get(request.cookies.get(COOKIE), touch)

    def to_login():
        r = RedirectResponse("/login", 303)
        r.delete_cookie(COOKIE, path="/")
        return r

    def same_origin(request):
        origin = request.headers.get("origin")
        return origin is None or origin == "%s://%s" % (request.url.scheme, request.headers.get("host"))

    async def login_form(request, message="", status=200):
        token = secrets.token_urlsafe(24)
        r = html(render.login(message, token), status)
        r.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login", secure=secure)
        return r

    async def login_get(request):
        return await login_form(request)

    async def login_post(request):
        form = await request.form()
        token = request.cookies.get(LOGIN_COOKIE)
        if not token or not same_origin(request) or not csrf_ok(_Token(token), form.get("csrf")):
            login_refused("form")
            return await login_form(request, "That form has expired: log in again.", 403)
        user, password = str(form.get("user", "")), str(form.get("password", ""))
        address = request.client.host if request.client else "unknown"
        refusal = logins.refusal(user, address)
        if refusal is not None:  # the password is not looked at: a guess now tests nothing
            view.login_failed(user, address, refusal)
            login_refused("throttled")
            return await login_form(request, refusal, 429)
        role = await asyncio.to_thread(people.verify, directory, user, password)
        if role is None:
            locked = logins.failed(user, address)
            view.login_failed(user, address, "wrong name or password")
            if locked:
                view.login_locked(user, *[(f, t) for u, f, t in logins.locked_accounts() if u == user][0])
            login_refused("password")
            return await login_form(request, "Wrong name or password.", 401)
        logins.succeeded(user, address)
        try:
            bus = await asyncio.to_thread(person_bus, floor, user, role, password)
        except BrokerRefused as e:
            login_refused("broker")
            return await login_form(request, "The floor's broker did not accept you: %s." % e, 503)
        session = sessions.open(user, role, bus)
        r = RedirectResponse("/", 303)
        r.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", path="/", secure=secure)
        r.delete_cookie(LOGIN_COOKIE, path="/login")
        return r

    async def logout(request):
        session = current(request)
        form = await request.form()
        if session is not None and csrf_ok(session, form.get("csrf")):
            sessions.close(session.id)
        return to_login()

    async def floor_page(request):
        session = current(request)
        if session is None:
            return to_login()
        return html(render.floor(view.snapshot(), session, view.version, view.progressive()))

    async def fragment(request):
        session = current(request, touch=False)  # page.js asks, not the person
        if session is None:
            return Response(status_code=401, headers=SECURITY_HEADERS)
        return html(render.live(view.snapshot(), session, view.version, view.progressive()))

    async def events(request):
        session = current(request, touch=False)
        if session is None:
            return Response(status_code=401, headers=SECURITY_HEADERS)
        queue = asyncio.Queue()
        entry = (asyncio.get_running_loop(), queue)
        streams.add(entry)

        async def stream():
            try:
                yield "retry: 1000\ndata: %d\n\n" % view.version
                quiet = 0.0
                while True:
                    try:
                        version = await asyncio.wait_for(queue.get(), 1.0)
                        yield "data: %d\n\n" % version
                        quiet = 0.0
                    except asyncio.TimeoutError:
                        quiet += 1.0
                        if quiet >= KEEPALIVE_S:
                            yield ": keepalive\n\n"
                            quiet = 0.0
                    if sessions.get(session.id, touch=False) is None:  # checked each second
                        yield "event: expired\ndata: login\n\n"
                        return
            finally:
                streams.discard(entry)

        return StreamingResponse(stream(), media_type="text/event-stream", headers=SECURITY_HEADERS)

    async def ack(request):
        session = current(request)
        form = await request.form()
        if session is None:
            return to_login()
        if not same_origin(request) or not csrf_ok(session, form.get("csrf")):
            return html(render.refused("That form was not made by this page for you: nothing done.", session), 403)
        alert_id, note = str(form.get("alert", "")), str(form.get("note", ""))[:500]
        reason = view.refuse_early(alert_id, session.user, session.role, note)
        if reason is not None:
            return html(render.refused("Refused: " + reason, session), 403)
        published = await asyncio.to_thread(session.bus.acknowledge, alert_id, note)
        if not published:
            return html(render.refused("The broker did not take the acknowledgement: try again.", session), 503)
        return RedirectResponse("/", 303)

    async def ack_all(request):
        """Alerts of one event acknowledged together: one note, one acknowledgement
        published per alert on the person's own connection, each recorded on its own.
        Every alert named must be one the person may acknowledge, or nothing is done."""
        session = current(request)
        form = await request.form()
        if session is None:
            return to_login()
        if not same_origin(request) or not csrf_ok(session, form.get("csrf")):
            return html(render.refused("That form was not made by this page for you: nothing done.", session), 403)
        ids, note = str(form.get("alerts", "")).split(), str(form.get("note", ""))[:500]
        if not ids:
            return html(render.refused("No alert named: nothing done.", session), 400)
        for alert_id in ids:
            reason = view.refuse_early(alert_id, session.user, session.role, note)
            if reason is not None:
                return html(render.refused("Refused, nothing acknowledged: " + reason, session), 403)
        for alert_id in ids:
            if not await asyncio.to_thread(session.bus.acknowledge, alert_id, note):
                return html(render.refused("The broker did not take the acknowledgement: try again.", session), 503)
        return RedirectResponse("/", 303)

    async def table_page(request):
        session = current(request)
        if session is None:
            return to_login()
        table = request.path_params["table"]
        csv_wanted = table.endswith(".csv")
        table = table[:-4] if csv_wanted else table
        if table not in view.tiles:
            return html(render.refused("No table %s on this floor." % table, session), 404)
        query, problem = _filters(request.query_params)
        if problem:
            return html(render.refused(problem, session), 400)
        selected = hands.select(
            hands.hands(view.table_records(table)), query.get("from"), query.get("to"), query.get("shooter_n")
        )
        if csv_wanted:
            headers = dict(SECURITY_HEADERS)
            headers["Content-Disposition"] = 'attachment; filename="%s.csv"' % table
            return PlainTextResponse(hands.csv_text(selected), headers=headers, media_type="text/csv")
        _, _, every, audit = view.snapshot()
        mine = [a for a in every if a["table"] == table]
        return html(render.history(table, selected, mine, audit, query, session))

    routes = [
        Route("/login", login_get, methods=["GET"]),
        Route("/login", login_post, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", floor_page),
        Route("/fragment", fragment),
        Route("/events", events),
        Route("/ack", ack, methods=["POST"]),
        Route("/ack-all", ack_all, methods=["POST"]),
        Route("/table/{table}", table_page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.sessions = sessions
    return app


class _Token:
    """The login form's token in the shape csrf_ok reads."""

    def __init__(self, csrf):
        self.csrf = csrf


def _filters(params):
    """(query, problem): the history's filters from the URL; a one-line problem when one is malformed."""
    query = {k: params.get(k, "") for k in ("since", "until", "shooter")}
    query["raw"] = urlencode({k: v for k, v in query.items() if v})
    try:
        if query["since"]:
            query["from"] = _day(query["since"])
        if query["until"]:
            query["to"] = _day(query["until"]) + 86400 - 0.001
        if query["shooter"]:
            query["shooter_n"] = int(query["shooter"])
    except ValueError:
        return query, "Filters: dates as YYYY-MM-DD, the shooter as a number."
    return query, None


def _day(text):
    day = datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    return day.timestamp()
