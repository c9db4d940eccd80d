"""The pit page's HTML, written as escaped strings (no template engine to keep up to date).

Every value from the floor or a person goes through `esc` (html.escape with
quotes). The lit board is the simulator's own picture (sim/board_svg.py),
inlined so the tile needs no further request. Large type and high contrast
are in static/page.css; the only script is static/page.js (live updates).
"""

import datetime
import json
import re
from html import escape

from host_tools.floor.alerts import book as alerts
from host_tools.floor.base.words import money
from sim import board_svg
from sim.paths import BOARD_JSON

_BOARD = None


def esc(value):
    return escape("" if value is None else str(value), quote=True)


def when(unix):
    if unix is None:
        return "—"
    return datetime.datetime.fromtimestamp(unix, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def board_picture(state):
    global _BOARD
    if _BOARD is None:
        with open(BOARD_JSON, encoding="utf-8") as f:
            _BOARD = json.load(f)
    svg = board_svg.render(_BOARD, state or {})
    svg = svg[svg.index("<svg") :]
    return re.sub(r'width="[0-9.]+" height="[0-9.]+"', 'width="100%"', svg, count=1)


def page(title, body, session=None):
    who = ""
    if session is not None:
        who = (
            '<form class="who" method="post" action="/logout">'
            '<span>%s — %s</span><input type="hidden" name="csrf" value="%s">'
            '<button type="submit">Log out</button></form>'
        ) % (esc(session.user), esc(alerts.ROLE_TITLES.get(session.role, session.role)), esc(session.csrf))
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>%s</title><link rel="stylesheet" href="/static/page.css">'
        '<script src="/static/page.js" defer></script></head>'
        '<body><header><h1><a href="/">Pit</a> · %s</h1>%s</header><main>%s</main></body></html>'
    ) % (esc(title), esc(title), who, body)


def login(message="", token=""):
    problem = '<p class="problem" role="alert">%s</p>' % esc(message) if message else ""
    return page(
        "Log in",
        '%s<form class="login" method="post" action="/login">'
        '<label>Name <input name="user" autocomplete="username" required autofocus></label>'
        '<label>Password <input name="password" type="password" autocomplete="current-password" required></label>'
        '<input type="hidden" name="csrf" value="%s"><button type="submit">Log in</button></form>'
        % (problem, esc(token)),
    )


def alert_box(alert, session):
    kind = "hold" if alert["hold"] else ("escalated" if alert["escalations"] else "alert")
    kind += "" if for_role(alert, session.role) else " others"
    missing = ", ".join(alerts.ROLE_TITLES.get(r, r) for r in alert["missing"])
    acked = "".join(
        "<li>%s (%s) %s%s</li>"
        % (
            esc(a["user"]),
            esc(alerts.ROLE_TITLES.get(a["for_role"], a["for_role"])),
            esc(when(a["at"])),
            (" — " + esc(a["note"])) if a["note"] else "",
        )
        for a in alert["acks"]
    )
    form = ""
    if session.role != alerts.TECHNICIAN:
        form = (
            '<form class="ack" method="post" action="/ack">'
            '<input type="hidden" name="alert" value="%s"><input type="hidden" name="csrf" value="%s">'
            '<input name="note" placeholder="note" maxlength="500" aria-label="note">'
            '<button type="submit">%s</button></form>'
        ) % (esc(alert["id"]), esc(session.csrf), "Verified — pay" if alert["hold"] else "Acknowledge")
    escalated = ' <strong class="esc">escalated ×%d</strong>' % alert["escalations"] if alert["escalations"] else ""
    return (
        '<section class="%s" id="alert-%s" data-kind="%s"><h2>%s %s%s</h2>'
        "<p>%s · seq %s · %s</p><p>waiting for: <strong>%s</strong></p><ul>%s</ul>%s</section>"
    ) % (
        kind,
        esc(alert["id"]),
        esc(alert["kind"]),
        esc(alert["table"]),
        esc(alert["title"]),
        escalated,
        esc(alert["detail"]),
        esc(alert["seq"]),
        esc(when(alert["raised_at"])),
        esc(missing),
        acked,
        form,
    )


def board_answer(outcome):
    """A cleared HOLD's `verified` as the board answered it (gateway_downlink's outcome)."""
    if outcome.get("ok"):
        return '<p class="downlink ok">%s: cleared on the board, verified — pay lit (record %s)</p>' % (
            esc(outcome.get("alert")),
            esc(outcome.get("record")),
        )
    return '<p class="downlink refused">%s: the board refused the clearance: %s</p>' % (
        esc(outcome.get("alert")),
        esc(outcome.get("error")),
    )


def meters_line(t, meters):
    """The meters the tile's table plays: the public amount, PENDING, or closed and why."""
    lines = []
    for m in meters:
        name, wrong = esc(m["name"]), m["closed_tables"].get(t["table"])
        if wrong:  # its board plays another paytable than the meter's
            lines.append("%s <strong>closed</strong>: it %s" % (name, esc(wrong)))
        elif m["state"] == "closed":
            lines.append("%s <strong>closed</strong>: %s" % (name, esc(m["why"] or "the controller says so")))
        elif m["state"] in ("pending", "locked"):
            lines.append("%s <strong>%s</strong> PENDING" % (name, esc(money(m["amount"]))))
        else:
            rule = "shared by winning wagers" if m["pay_rule"] != "positional" else "each winning wager in turn"
            lines.append("%s <strong>%s</strong> open, %s" % (name, esc(money(m["amount"])), rule))
    return '<p class="meters">%s</p>' % "<br>".join(lines) if lines else ""


def meters_panel(meters, session):
    """Each meter's hidden figures: the shift manager's and surveillance's only."""
    if not meters or session.role not in (alerts.SHIFT_MANAGER, alerts.SURVEILLANCE):
        return ""
    rows = []
    for m in meters:
        rule = "shared by winning wagers" if m["pay_rule"] != "positional" else "each winning wager in turn"
        per = " / ".join(m.get("per_wager") or ["—"] * 3)
        if "break_even" in m:
            flag = "PAST BREAK-EVEN" if m["past_break_even"] else "below break-even"
            even = "%s (%s at %.2f winning wagers a hit)" % (
                money(m["break_even"]),
                money(m["break_even_seen"]),
                m["winners_per_hit"],
            )
        else:
            flag, even = "—", "—"
        rows.append(
            '<tr data-game="%s"><th>%s</th><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
            "<td>%s</td><td>%s</td><td>%s</td></tr>"
            % tuple(
                esc(x)
                for x in (
                    m["game"],
                    m["name"],
                    m["state"],
                    money(m["amount"]),
                    money(m["reserve"] or 0),
                    money(m["overflow"] or 0),
                    rule,
                    per,
                    even,
                    flag,
                )
            )
        )
    return (
        '<section id="meters"><h2>Progressive meters</h2><table><tr><th>game</th><th>state</th><th>meter</th>'
        "<th>reserve</th><th>overflow</th><th>several winners</th>"
        "<th>return per wager, 1 / 2 / 3 winning wagers</th><th>break-even</th><th></th></tr>%s</table></section>"
    ) % "".join(rows)


def tile(t, meters=()):
    # The gateway's retained state: the board's own `status` reply (lamps, hand) and its link.
    state = t["state"] or {}
    downlinks = [o for o in state.get("downlinks") or [] if isinstance(o, dict)]
    status = state.get("status") or {}
    hand = status.get("hand") or {}
    link = "" if state.get("link", "connected") == "connected" else " · board link lost"
    online = {True: ("online", "online"), False: ("offline", "OFFLINE"), None: ("unknown", "no word yet")}[t["online"]]
    return (
        '<a class="tile %s" id="tile-%s" href="/table/%s"><h2>%s <span class="presence">%s</span></h2>%s'
        "<p>hand: <strong>%s</strong> rolls · shooter %s · point %s</p>%s<p>last event %s (seq %s)%s</p>%s</a>"
    ) % (
        online[0],
        esc(t["table"]),
        esc(t["table"]),
        esc(t["table"]),
        online[1],
        board_picture(status),
        esc(hand.get("rolls", "—")),
        esc(hand.get("shooter", "—")),
        esc(hand.get("point") or "off"),
        meters_line(t, meters),
        esc(when(t["last_event_at"])),
        esc(t["seq"]),
        esc(link),
        board_answer(downlinks[-1]) if downlinks else "",
    )


def for_role(alert, role):
    """True when `role` is one of those the alert waits for (or may stand in for after escalation)."""
    if role in alert["missing"]:
        return True
    return role == alerts.SHIFT_MANAGER and bool(alert["escalations"]) and not alert["hold"] and bool(alert["missing"])


def live(view_snapshot, session, version, meters=()):
    tiles, open_alerts, _, _ = view_snapshot
    # Newest first; what waits for this person's role before the rest, a HOLD before a notice.
    order = sorted(reversed(open_alerts), key=lambda a: (not for_role(a, session.role), not a["hold"]))
    boxes = "".join(alert_box(a, session) for a in order)
    banner = '<div class="alerts" role="alert">%s</div>' % boxes if boxes else '<p class="calm">No open alert.</p>'
    return '<div id="live" data-version="%d">%s<div class="tiles">%s</div>%s</div>' % (
        version,
        banner,
        "".join(tile(t, meters) for t in tiles),
        meters_panel(meters, session),
    )


def floor(view_snapshot, session, version, meters=()):
    return page("Floor", live(view_snapshot, session, version, meters), session)


def refused(reason, session):
    return page(
        "Refused",
        '<p class="problem" role="alert">%s</p><p><a href="/">Back to the floor</a></p>' % esc(reason),
        session,
    )


def history(table, selected, table_alerts, audit, query, session):
    rows = []
    for h in reversed(selected):
        for r in reversed(h["rolls"]):
            if r.get("undo"):
                rows.append(
                    "<tr><td>%s</td><td>%s</td><td>%s</td><td colspan=4>undo</td></tr>"
                    % (esc(h["shooter"]), esc(r["seq"]), esc(when(r["at"])))
                )
                continue
            res = "; ".join(
                "%s %s" % (x["wager"], x["outcome"]) + (" pays %s" % x["pays"] if x["outcome"] == "win" else "")
                for x in r["resolved"]
            )
            rows.append(
                "<tr><td>%s</td><td>%s</td><td>%s</td><td>%d-%d</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % (
                    esc(h["shooter"]),
                    esc(r["seq"]),
                    esc(when(r["at"])),
                    r["dice"][0],
                    r["dice"][1],
                    esc(r["point"] or "off"),
                    r["fire_points"],
                    esc(res),
                )
            )
    acks = []
    for a in table_alerts:
        for k in a["acks"]:
            acks.append(
                "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % (
                    esc(a["id"]),
                    esc(a["title"]),
                    esc(k["user"]),
                    esc(alerts.ROLE_TITLES.get(k["role"], k["role"])),
                    esc(when(k["at"])),
                    esc(k["note"]),
                )
            )
    cleared = "".join(board_answer(a["board"]) for a in table_alerts if a.get("board"))
    refusals = [
        "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
        % (esc(e["alert"]), esc(e["user"]), esc(when(e["at"])), esc(e["reason"]))
        for e in audit
        if e["action"] == "refused" and str(e["alert"]).startswith(table + "-")
    ]
    form = (
        '<form class="filter" method="get"><label>from <input type="date" name="since" value="%s"></label>'
        '<label>to <input type="date" name="until" value="%s"></label>'
        '<label>shooter <input type="number" min="1" name="shooter" value="%s"></label>'
        '<button type="submit">Show</button> <a class="button" href="/table/%s.csv?%s">CSV</a></form>'
    ) % (
        esc(query.get("since", "")),
        esc(query.get("until", "")),
        esc(query.get("shooter", "")),
        esc(table),
        esc(query.get("raw", "")),
    )
    body = (
        "%s<h2>Acknowledgements</h2><table id=acks><tr><th>alert</th><th>what</th><th>who</th><th>role</th>"
        "<th>when</th><th>note</th></tr>%s</table><h2>HOLDs cleared, on the board</h2><div id=board>%s</div>"
        "<h2>Refused</h2><table id=refusals><tr><th>alert</th><th>who</th><th>when</th><th>why</th></tr>%s</table>"
        "<h2>Rolls, newest first</h2><table id=rolls><tr><th>shooter</th><th>seq</th><th>when</th><th>dice</th>"
        "<th>point</th><th>Fire points</th><th>resolved</th></tr>%s</table>"
    ) % (form, "".join(acks), cleared or "<p>none</p>", "".join(refusals), "".join(rows))
    return page("Table " + table, body, session)
