# The link's `progressive` (docs/progressive.md, docs/link.md): the floor's
# meter of one linked progressive game, sent by the table's gateway on each
# meter it reads and every 2 s, signed with this board's key like `time`
# (link.Link has checked the tag and used up the counter before this runs).
# The board keeps it in app.progressive: the state decides whether a count of
# progressive wagers is taken, the lamps show closed / PENDING, `status`
# states the amount in currency, the pay rule and why it is closed. No request
# for 6 s: closed. `rule` and `why` are optional (a gateway older than them).
#
# Dispatched by link_app.py; loaded with the first request.
from crapsboard.link.link import LinkError
from crapsboard.table import progressive as pg

AMOUNT_MAX = 10**12  # cents: far above any cap, and a small int on the board
STALE_S = 6  # a meter older than this by the board's wall clock is stale (progressive.LINK_MS)
WHY_MAX = 60  # characters of a closed meter's reason: kept in the heap, repeated in each status


def progressive(handlers, request):
    game = request["game"]
    state = request["state"]
    amount = request["amount"]
    if game not in pg.GAMES:
        raise LinkError("game must be MEA or FUP")
    if state not in pg.STATE_NAMES:
        raise LinkError("state must be closed, open, locked or pending")
    if not 0 <= amount <= AMOUNT_MAX:
        raise LinkError("amount must be 0 to %d cents" % AMOUNT_MAX)
    rule = request.get("rule")
    if rule is not None and rule not in pg.RULES:
        raise LinkError("rule must be shared or positional")
    why = request.get("why")
    if why is not None:
        if state != "closed":
            raise LinkError("why is given for a closed meter only")
        if not 0 < len(why) <= WHY_MAX or not _printable(why):
            raise LinkError("why must be 1 to %d printable ASCII characters" % WHY_MAX)
    clock = handlers.clock()
    if clock is not None and request["at"] < clock - STALE_S:
        raise LinkError("stale meter: sent at %d, the board's clock is %d" % (request["at"], clock))
    index = pg.GAMES.index(game)
    prog = handlers.app.progressive
    rule = None if rule is None else pg.RULES.index(rule)
    prog.told(index, pg.STATE_NAMES.index(state), amount, handlers.now(), rule, why)
    return {"game": game, "state": state, "amount": pg.currency(amount)}


def _printable(text):
    for c in text:
        if not " " <= c <= "~":
            return False
    return True


def status(prog, table, now):
    """`status`'s `progressive`: per linked game the floor's state, the meter
    in currency and cents, the wagers in action; how several winning wagers
    are paid when the floor said, and why it is closed while it is."""
    games = {}
    for game in range(2):
        shown = {
            "state": pg.STATE_NAMES[prog.state(game, now)],
            "amount": pg.currency(prog.amount[game]),
            "cents": prog.amount[game],
            "wagers": prog.wagers(table, game),
        }
        if prog.rule[game] is not None:
            shown["pays"] = pg.PAYS[prog.rule[game]]
        why = prog.closed_why(game, now)
        if why is not None:
            shown["closed"] = why
        games[pg.GAMES[game]] = shown
    return games
