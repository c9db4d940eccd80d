"""The pit page's HTML, written as escaped strings (no template engine to keep up to date).

Every value from the floor or a person goes through `esc` (html.escape with
quotes). The lit board is the simulator's own picture (sim/board_svg.py),
inlined so the tile needs no further request. Large type and high contrast
are in static/page.css; the only script is static/page.js (live updates).
"""

import json
import re
from html import escape

from host_tools.floor.alerts import book as alerts
from host_tools.floor.base import words
from sim import board_svg
from sim.paths import BOARD_JSON

_BOARD = None


def esc(value):
    return escape("" if value is None else str(value), quote=True)


def when(unix):
    """ISO 8601 with the zone (base/words.py); "—" where there is no time."""
    return words.when(unix) or "—"


def role_title(role):
    return alerts.ROLE_TITLES.get(role, role)


def acknowledged(a):
    """One acknowledgement as a sentence: who, for which role (when they covered for another), when, the note."""
    who = esc(a["user"])
    if a["for_role"] == a["role"]:
        said = "%s (%s) acknowledged" % (who, esc(role_title(a["role"])))
    else:
        said = "%s, %s, acknowledged for the %s" % (who, esc(role_title(a["role"])), esc(role_title(a["for_role"])))
    return said + " at %s%s" % (esc(when(a["at"])), (": " + esc(a["note"])) if a["note"] else "")


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
    mine = alerts.acts_for(alert, session.role) is not None
    kind = "hold" if alert["hold"] else ("escalated" if alert["escalations"] else "alert")
    kind += "" if mine else " others"
    missing = " and the ".join(role_title(r) for r in alert["missing"])
    acked = "".join("<li>%s</li>" % acknowledged(a) for a in alert["acks"])
    form = ""
    if mine:  # only to a person who may take the action
        form = (
            '<form class="ack" method="post" action="/ack">'
            '<input type="hidden" name="alert" value="%s"><input type="hidden" name="csrf" value="%s">'
            '<input name="note" placeholder="note" maxlength="500" aria-label="note">'
            '<button type="submit">%s</button></form>'
        ) % (esc(alert["id"]), esc(session.csrf), "Verified — pay" if alert["hold"] else "Acknowledge")
    escalated = ' <strong class="esc">escalated ×%d</strong>' % alert["escalations"] if alert["escalations"] else ""
    facts = [esc(alert["detail"])] if alert["detail"] else []
    if alert["seq"] is not None:
        facts.append("record %s" % esc(alert["seq"]))
    facts.append("raised %s" % esc(when(alert["raised_at"])))
    return (
        '<section class="%s" id="alert-%s" data-kind="%s"><h2>%s %s%s</h2>'
        "<p>%s</p><p>waiting for the <strong>%s</strong></p><ul>%s</ul>%s</section>"
    ) % (
        kind,
        esc(alert["id"]),
        esc(alert["kind"]),
        esc(alert["table"]),
        esc(alert["title"]),
        escalated,
        " · ".join(facts),
        esc(missing),
        acked,
        form,
    )


def related_box(group, session):
    """Alerts of one event (a restart of the floor: offline and restored at every
    table) with one form that acknowledges each of them, one note for all."""
    by_title = {}
    for a in group:
        tables = by_title.setdefault(a["title"], [])
        if a["table"] not in tables:
            tables.append(a["table"])
    said = "; ".join("%s: %s" % (esc(title), esc(", ".join(sorted(tables)))) for title, tables in by_title.items())
    ids = " ".join(a["id"] for a in group)
    return (
        '<section class="related" id="related-%s" data-count="%d"><h2>%d alerts from one event</h2>'
        "<p>%s · raised %s to %s</p>"
        '<form class="ack-all" method="post" action="/ack-all">'
        '<input type="hidden" name="alerts" value="%s"><input type="hidden" name="csrf" value="%s">'
        '<input name="note" placeholder="one note for all" maxlength="500" aria-label="note for all">'
        '<button type="submit">Acknowledge all %d</button></form>'
        "<p>or each on its own below.</p></section>"
    ) % (
        esc(group[0]["id"]),
        len(group),
        len(group),
        said,
        esc(when(group[0]["raised_at"])),
        esc(when(group[-1]["raised_at"])),
        esc(ids),
        esc(session.csrf),
        len(group),
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
            lines.append("%s <strong>%s</strong> PENDING" % (name, esc(words.money(m["amount"]))))
        else:
            rule = "shared by winning wagers" if m["pay_rule"] != "positional" else "each winning wager in turn"
            lines.append("%s <strong>%s</strong> open, %s" % (name, esc(words.money(m["amount"])), rule))
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
                words.money(m["break_even"]),
                words.money(m["break_even_seen"]),
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
                    words.money(m["amount"]),
                    words.money(m["reserve"] or 0),
                    words.money(m["overflow"] or 0),
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
    if hand:
        shown = ["<strong>%s</strong> rolls" % esc(hand.get("rolls", 0))]
        if hand.get("shooter") is not None:
            shown.append("shooter %s" % esc(hand["shooter"]))
        shown.append("point %s" % esc(hand.get("point") or "off"))
        hand_line = "<p>hand: %s</p>" % " · ".join(shown)
    else:
        hand_line = "<p>no hand from the board yet</p>"
    if t["seq"] is not None:
        last = "last record %s at %s" % (esc(t["seq"]), esc(when(t["last_event_at"])))
    else:
        last = "no record yet"
    return (
        '<a class="tile %s" id="tile-%s" href="/table/%s"><h2>%s <span class="presence">%s</span></h2>%s'
        "%s%s<p>%s%s</p>%s</a>"
    ) % (
        online[0],
        esc(t["table"]),
        esc(t["table"]),
        esc(t["table"]),
        online[1],
        board_picture(status),
        hand_line,
        meters_line(t, meters),
        last,
        esc(link),
        board_answer(downlinks[-1]) if downlinks else "",
    )


def for_role(alert, role):
    """True when `role` may acknowledge the alert (one it waits for, or stands in for after escalation)."""
    return alerts.acts_for(alert, role) is not None


def live(view_snapshot, session, version, meters=()):
    tiles, open_alerts, _, _ = view_snapshot
    # Newest first; what waits for this person's role before the rest, a HOLD before a notice.
    order = sorted(reversed(open_alerts), key=lambda a: (not for_role(a, session.role), not a["hold"]))
    groups = "".join(related_box(g, session) for g in alerts.related(open_alerts, session.role))
    boxes = groups + "".join(alert_box(a, session) for a in order)
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


def wall_time(r):
    """A roll's wall time, said to be the host's estimate when the board's clock was not set."""
    said = esc(when(r["time"]))
    return said if r["time_from"] == "board" else said + " (host estimate)"


def history(table, selected, table_alerts, audit, query, session):
    rows = []
    for h in reversed(selected):
        for r in reversed(h["rolls"]):
            if r.get("undo"):
                rows.append(
                    "<tr><td>%s</td><td>%s</td><td>%s</td><td colspan=4>undo</td></tr>"
                    % (esc(h["shooter"]), esc(r["seq"]), wall_time(r))
                )
                continue
            res = "; ".join(words.resolution(x) for x in r["resolved"])
            rows.append(
                "<tr><td>%s</td><td>%s</td><td>%s</td><td>%d-%d</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % (
                    esc(h["shooter"]),
                    esc(r["seq"]),
                    wall_time(r),
                    r["dice"][0],
                    r["dice"][1],
                    esc(r["point"] or "off"),
                    r["fire_points"],
                    esc(res),
                )
            )
    acks = []
    titles = {a["id"]: a["title"] for a in table_alerts}
    for a in table_alerts:
        for k in a["acks"]:
            acks.append(
                "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                % (esc(when(k["at"])), esc(a["title"]), acknowledged(k), esc(a["id"]))
            )
    cleared = "".join(board_answer(a["board"]) for a in table_alerts if a.get("board"))
    attempts = [
        "<li>%s: %s (%s) tried to acknowledge %s (%s): refused, %s</li>"
        % (
            esc(when(e["at"])),
            esc(e["user"]),
            esc(role_title(e["role"])),
            esc(e["alert"]),
            esc(titles.get(e["alert"], "an alert this page does not hold")),
            esc(e["reason"]),
        )
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
        "%s<h2>Acknowledgements</h2><table id=acks><tr><th>when</th><th>what</th><th>who</th><th>alert</th></tr>"
        "%s</table><h2>HOLDs cleared, on the board</h2><div id=board>%s</div>"
        "<h2>Rolls, newest first</h2><table id=rolls><tr><th>shooter</th><th>record</th><th>when</th><th>dice</th>"
        "<th>point</th><th>Fire Bet points</th><th>resolved</th></tr>%s</table>"
        "<h2>Attempts refused</h2><p>Actions the page refused: not acknowledgements, kept for the audit.</p>"
        "<ul id=attempts>%s</ul>"
    ) % (form, "".join(acks), cleared or "<p>none</p>", "".join(rows), "".join(attempts) or "<li>none</li>")
    return page("Table " + table, body, session)
