# The link's `progressive` (docs/progressive.md, docs/link.md): the floor's
# meter of one linked progressive game, sent by the table's gateway on each
# meter it reads and every 2 s, signed with this board's key like `time`
# (link.Link has checked the tag and used up the counter before this runs).
# The board keeps it in app.progressive: the state decides whether a count of
# progressive wagers is taken, the lamps show closed / PENDING, `status`
# states the amount in currency. No request for 6 s: closed.
#
# Dispatched by link_app.py; loaded with the first request.
from crapsboard.link.link import LinkError
from crapsboard.table import progressive as pg

AMOUNT_MAX = 10**12  # cents: far above any cap, and a small int on the board
STALE_S = 6  # a meter older than this by the board's wall clock is stale (progressive.LINK_MS)


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
    clock = handlers.clock()
    if clock is not None and request["at"] < clock - STALE_S:
        raise LinkError("stale meter: sent at %d, the board's clock is %d" % (request["at"], clock))
    index = pg.GAMES.index(game)
    prog = handlers.app.progressive
    prog.told(index, pg.STATE_NAMES.index(state), amount, handlers.now())
    return {"game": game, "state": state, "amount": pg.currency(amount)}


def status(prog, table, now):
    """`status`'s `progressive`: per linked game the floor's state, the meter
    in currency and cents, the wagers in action."""
    games = {}
    for game in range(2):
        games[pg.GAMES[game]] = {
            "state": pg.STATE_NAMES[prog.state(game, now)],
            "amount": pg.currency(prog.amount[game]),
            "cents": prog.amount[game],
            "wagers": prog.wagers(table, game),
        }
    return games
