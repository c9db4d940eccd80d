"""The meter of one linked progressive game: a pure fold, no I/O, no clock.

Money is kept exactly. A contribution of W wagers adds W × base_unit ×
increment_ppm micro-cents (1/1,000,000 of a cent) to the meter and W ×
base_unit × reserve_ppm to the hidden reserve; each keeps the fraction of a
cent it cannot show yet (`*_frac`, 0 … 999,999 micro-cents) and carries it
into the next contribution, so nothing is rounded away. What would pass the
cap, and what would pass the reserve's ceiling, goes to the **overflow**, a
visible figure that belongs to the players: at each reset the meter starts at
the reset amount plus the overflow (up to the cap; the rest waits for the
next reset). The house puts money in only as the base amount and where the
reserve cannot cover a reset, counted in `house`. So at every step, in
micro-cents:

    contributed + house × 10⁶ == meter + reserve + overflow + paid × 10⁶

(`meter`, `reserve` and `overflow` with their fractions). The meter never drops except
on a paid, recorded win: `lock` and `settle` are the only steps that lower it
(a `void` puts back the meter at the hit, never below the reseeded one).

A hit: `lock(hit)` records it in the ordered list of hits with the meter
locked; `settle()` pays every locked hit in order by the pay rule and
resets (the reserve first, the house for the rest, then the overflow), and
the meter is then `pending` until a shift
manager acknowledges each hit (`acknowledge`). A hit whose roll a
supervisor undid at the table is voided (`void`): reversed to the cent while
it is PENDING and nothing later rests on it, otherwise recorded only. A hit
identity (table, board, journal, seq, and the table's board-erased step
when it has one: `hit_key`) claimed twice is refused (`Refused`). The count of winning
wagers is the board's (the wagers keyed for that cycle): the controller does
not hold it against the table's last contribution, since a record the broker
lost and the gateway published again may arrive after the table's later ones,
and a player's top award must not be refused for that.
"""

from host_tools.floor.progressive.params import PPM

OPEN, LOCKED, PENDING = "open", "locked", "pending"


def hit_key(table, board, journal, seq, epoch=0):
    """A hit's identity: an erased board's new journal numbers its records from 1 again, so
    after a board-erased step its records are told apart by the step (`epoch`); before any
    step the identity is the four fields alone, as a meter stored then holds it."""
    return (table, board, journal, seq) + ((epoch,) if epoch else ())


class Refused(ValueError):
    """An input the meter does not take; nothing changed."""


class Meter:
    def __init__(self, params):
        self.params = params
        self.amount = params.base  # whole cents shown
        self.amount_frac = 0  # micro-cents not yet a whole cent
        self.reserve = 0
        self.reserve_frac = 0
        self.overflow = 0  # the players' money past the cap and the reserve's ceiling
        self.overflow_frac = 0
        self.overflow_out = 0  # micro-cents of overflow put back into the meter at resets
        self.house = params.base  # cents the house put in (base, resets the reserve could not cover)
        self.contributed = 0  # micro-cents of all contributions
        self.paid = 0  # cents paid on wins
        self.wagers = 0  # progressive wagers counted
        self.hits = []  # every hit, in the controller's order (dicts, see lock)
        self.claimed = set()  # hit identities (table, board, journal, seq)
        self.rev = 0  # one more per change

    # ---- state ---------------------------------------------------------------------

    @property
    def state(self):
        if any(h["paid"] is None for h in self.hits):
            return LOCKED
        if any(h["acked_by"] is None for h in self.hits):
            return PENDING
        return OPEN

    def pending(self):
        """Numbers of the hits paid and not yet acknowledged."""
        return [h["n"] for h in self.hits if h["paid"] is not None and h["acked_by"] is None]

    def balance(self):
        """(money in, money held or paid), in micro-cents: equal at every step."""
        money_in = self.contributed + self.house * PPM
        held = self.amount * PPM + self.amount_frac + self.reserve * PPM + self.reserve_frac
        held += self.overflow * PPM + self.overflow_frac + self.paid * PPM
        return money_in, held

    def winning_wagers_seen(self):
        """(hits, winning wagers) over the hits paid and not voided: what the floor has seen."""
        hits = [h for h in self.hits if h["paid"] is not None and not _reversed(h)]
        return len(hits), sum(h["wagers"] for h in hits)

    # ---- contributions ---------------------------------------------------------------

    def contribute(self, table, wagers):
        """`wagers` progressive wagers placed at `table` (the dealer's count)."""
        if isinstance(wagers, bool) or not isinstance(wagers, int) or wagers < 1:
            raise Refused("a contribution of %r wagers: give a count of at least 1" % (wagers,))
        self.contributed += self._share(wagers)
        self.wagers += wagers
        self.rev += 1

    def _share(self, wagers):
        """Put `wagers` wagers' shares in the meter and the reserve, each up to its ceiling
        (the cap; reserve_ceiling), the rest in the overflow; returns the micro-cents put in.
        Shares add up: `_share(a); _share(b)` leaves what `_share(a + b)` does (each
        ceiling takes the same amount either way), which `void` relies on."""
        p = self.params
        stake = wagers * p.base_unit
        over = 0
        meter = self.amount * PPM + self.amount_frac + stake * p.increment_ppm
        if meter > p.cap * PPM:
            over += meter - p.cap * PPM
            meter = p.cap * PPM
        reserve = self.reserve * PPM + self.reserve_frac + stake * p.reserve_ppm
        if reserve > p.reserve_ceiling * PPM:
            over += reserve - p.reserve_ceiling * PPM
            reserve = p.reserve_ceiling * PPM
        self.amount, self.amount_frac = divmod(meter, PPM)
        self.reserve, self.reserve_frac = divmod(reserve, PPM)
        self.overflow, self.overflow_frac = divmod(self.overflow * PPM + self.overflow_frac + over, PPM)
        return stake * (p.increment_ppm + p.reserve_ppm)

    # ---- hits ------------------------------------------------------------------------

    def lock(self, table, board, journal, seq, wagers, arrival, epoch=0):
        """A hit reported by `table` (its record's identity, `epoch` the table's board-erased
        step it came after) for `wagers` winning wagers; `arrival`: where it came in the
        controller's order. Returns the hit's number (1, 2, … in the order of the hits)."""
        key = hit_key(table, board, journal, seq, epoch)
        if key in self.claimed:
            n = next(h["n"] for h in self.hits if h["key"] == list(key))
            raise Refused("hit already claimed: table %s journal %s record %s is hit %d" % (table, journal, seq, n))
        if isinstance(wagers, bool) or not isinstance(wagers, int) or wagers < 1:
            raise Refused("a hit of %r winning wagers: give a count of at least 1" % (wagers,))
        n = len(self.hits) + 1
        hit = {"n": n, "key": list(key), "table": table, "wagers": wagers, "arrival": arrival}
        hit.update(meter_at_hit=None, pays=None, paid=None, reseeds=None, acked_by=None, void=None)
        hit["before"] = {k: getattr(self, k) for k in self._BEFORE}  # what a void returns to
        self.hits.append(hit)
        self.claimed.add(key)
        self.rev += 1
        return n

    def settle(self):
        """Pay every locked hit in order and reseed; returns the hits paid."""
        done = []
        for hit in self.hits:
            if hit["paid"] is not None:
                continue
            hit["meter_at_hit"] = self.amount
            if self.params.pay_rule == "shared":
                each = self.amount // hit["wagers"]  # the remainder stays in the meter
                pays = [each] * hit["wagers"]
                self.amount -= each * hit["wagers"]
                reseeds = [self._reseed()]
            else:  # positional: each winner the whole meter, a reseed between
                pays, reseeds = [], []
                for _ in range(hit["wagers"]):
                    pays.append(self.amount)
                    self.amount = 0
                    reseeds.append(self._reseed())
            hit["pays"], hit["reseeds"] = pays, reseeds
            hit["paid"] = sum(pays)
            self.paid += hit["paid"]
            done.append(hit)
        if done:
            self.rev += 1
        return done

    def _reseed(self):
        """Reset the meter: up to the reset amount from the reserve first, then the house;
        then the overflow on top, up to the cap (the rest stays for the next reset).
        Returns [from the reserve, from the house, from the overflow] in cents (the
        overflow's part as the whole cents the meter shows gained)."""
        short = self.params.reset - self.amount
        from_reserve = from_house = 0
        if short > 0:
            from_reserve = min(short, self.reserve)
            self.reserve -= from_reserve
            from_house = short - from_reserve
            self.house += from_house
            self.amount += short
        meter = self.amount * PPM + self.amount_frac
        move = min(self.overflow * PPM + self.overflow_frac, max(0, self.params.cap * PPM - meter))
        self.overflow, self.overflow_frac = divmod(self.overflow * PPM + self.overflow_frac - move, PPM)
        shown = self.amount
        self.amount, self.amount_frac = divmod(meter + move, PPM)
        self.overflow_out += move
        return [from_reserve, from_house, self.amount - shown]

    def acknowledge(self, n, by):
        """The shift manager `by` acknowledges hit `n` (paid, pending)."""
        hit = next((h for h in self.hits if h["n"] == n), None)
        if hit is None:
            raise Refused("no hit %r on this meter" % (n,))
        if hit["paid"] is None:
            raise Refused("hit %d is not paid yet" % n)
        if hit["acked_by"] is not None:
            raise Refused("hit %d was acknowledged by %s" % (n, hit["acked_by"]))
        hit["acked_by"] = by
        self.rev += 1

    # ---- corrections -------------------------------------------------------------------

    _MONEY = (
        "amount",
        "amount_frac",
        "reserve",
        "reserve_frac",
        "overflow",
        "overflow_frac",
        "overflow_out",
        "house",
        "paid",
    )
    _BEFORE = _MONEY + ("wagers",)

    def void(self, table, board, journal, seq, hit_seq, wagers, epoch=0):
        """A supervisor's undo at `table` reversed the roll of the hit that is record
        `hit_seq` of the same journal (the void itself is record `seq`), with `wagers`
        winning wagers. Returns (the hit's number, whether its money was reversed).

        Reversed only while nothing was paid out or built on it: the hit is still
        PENDING (a shift manager's acknowledgement is the pay-out) and every later hit
        on this meter was itself voided and reversed. Then meter, reserve, house
        seeds and paid go back to what they were at its lock, and the wagers
        contributed since are put in again, so the meter is what it would be had the
        hit never happened. It stays PENDING until a shift manager acknowledges the
        void. Otherwise no money moves: the void is recorded on the hit."""
        hit = next((h for h in self.hits if h["key"] == list(hit_key(table, board, journal, hit_seq, epoch))), None)
        if hit is None:
            raise Refused(
                "no hit on the %s meter is table %s journal %s record %s" % (self.params.game, table, journal, hit_seq)
            )
        if isinstance(wagers, bool) or wagers != hit["wagers"]:
            raise Refused("the void counts %r winning wagers; hit %d had %d" % (wagers, hit["n"], hit["wagers"]))
        if hit.get("void"):
            raise Refused("hit %d was voided already, by record %d" % (hit["n"], hit["void"]["seq"]))
        if hit["paid"] is None:
            raise Refused("hit %d is not paid yet" % hit["n"])
        later = self.hits[hit["n"] :]
        reverse = hit["acked_by"] is None and "before" in hit and all(_reversed(h) for h in later)
        if reverse:
            before = hit["before"]
            for k in self._MONEY:
                setattr(self, k, before[k])
            since = self.wagers - before["wagers"]  # counted while PENDING: the chips were on the layout
            if since:
                self._share(since)
        hit["void"] = {"seq": seq, "reversed": reverse}
        self.rev += 1
        return hit["n"], reverse

    def voided_unreversed(self):
        """The hits voided at their table whose money could not be reversed."""
        return [h for h in self.hits if h.get("void") and not h["void"]["reversed"]]

    # ---- parameters ------------------------------------------------------------------

    def change_params(self, new):
        """New parameters (a recorded maintenance): refused if the meter would drop
        (a cap below it); a meter below the new reset is raised to it by the house, and
        a reserve above the new ceiling gives the excess to the overflow (never kept)."""
        if new.game != self.params.game:
            raise Refused("parameters of %s given to the %s meter" % (new.game, self.params.game))
        if self.state != OPEN:
            raise Refused("the %s meter is %s: parameters change only while it is open" % (new.game, self.state))
        if new.cap < self.amount:
            raise Refused("cap %d cents is below the meter, %d cents: the meter never drops" % (new.cap, self.amount))
        self.params = new
        if self.amount < new.reset:
            self.house += new.reset - self.amount
            self.amount = new.reset
        excess = self.reserve * PPM + self.reserve_frac - new.reserve_ceiling * PPM
        if excess > 0:
            self.reserve, self.reserve_frac = new.reserve_ceiling, 0
            self.overflow, self.overflow_frac = divmod(self.overflow * PPM + self.overflow_frac + excess, PPM)
        self.rev += 1

    # ---- snapshot ------------------------------------------------------------------

    _SAVED = (
        "amount",
        "amount_frac",
        "reserve",
        "reserve_frac",
        "overflow",
        "overflow_frac",
        "overflow_out",
        "house",
        "contributed",
        "paid",
        "wagers",
        "rev",
    )

    def dump(self):
        """The meter as a JSON-able dict (without the parameters)."""
        out = {k: getattr(self, k) for k in self._SAVED}
        out["hits"] = self.hits
        return out

    @classmethod
    def load(cls, params, obj):
        m = cls(params)
        for k in cls._SAVED:
            setattr(m, k, obj.get(k, 0))  # a meter stored before the overflow existed had none
        m.hits = obj["hits"]
        m.claimed = {tuple(h["key"]) for h in m.hits}
        return m

    def view(self):
        """What the meter topic says: the public figures."""
        last = self.hits[-1] if self.hits else None
        hits, winners = self.winning_wagers_seen()
        return {
            "game": self.params.game,
            "amount": self.amount,
            "reserve": self.reserve,
            "overflow": self.overflow,
            "state": self.state,
            "rev": self.rev,
            "base_unit": self.params.base_unit,
            "base": self.params.base,
            "reset": self.params.reset,
            "reserve_ceiling": self.params.reserve_ceiling,
            "cap": self.params.cap,
            "paytable": self.params.paytable,
            "pay_rule": self.params.pay_rule,
            "hits_seen": hits,
            "winning_wagers_seen": winners,
            "pending": self.pending(),
            "last_hit": None if last is None else _hit_view(last),
            "voided": [h["n"] for h in self.hits if h["acked_by"] is None and _reversed(h)],
            "voids_not_reversed": [_hit_view(h) for h in self.voided_unreversed()],
        }


def _reversed(hit):
    return bool(hit.get("void") and hit["void"]["reversed"])


def _hit_view(hit):
    out = {k: hit[k] for k in ("n", "table", "wagers", "pays", "meter_at_hit", "acked_by")}
    out["void"] = hit.get("void")
    return out
