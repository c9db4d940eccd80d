"""A slow, plain reading of docs/rules.md, written independently of the engine.

Sets and lists, one rule per line, no bitmasks: property tests check the
engine against it on random dice streams. It models the replay assumption:
every offered wager is bet whenever its window is open before a roll.
A resolution is (wager, level, returned): returned is True only for bets that
were never in action (RULES: Fire Bet at an end hand before any point).
"""

POINTS = {4, 5, 6, 8, 9, 10}
SMALL = {2, 3, 4, 5, 6}
TALL = {8, 9, 10, 11, 12}
ALL = SMALL | TALL
BONUS = {"all_small": SMALL, "all_tall": TALL, "make_em_all": ALL}
FIRED_UP_SEQUENCES = {
    "PT-BJS-FUP-01": [(6, 5, 4, 3, 2), (8, 9, 10, 11, 12)],
    "PT-BJS-FUP-02": [(6, 5, 4, 3, 2), (8, 9, 10, 11, 12)],
    "PT-BJS-FUP-03": [(5, 4, 3, 2)],
    "PT-BJS-FUP-04": [(5, 4, 3, 2)],
    "PT-BJS-FUP-05": [(8, 9, 10, 11, 12)],
    "PT-BJS-FUP-06": [(8, 9, 10, 11, 12)],
}
WAGERS = ("fire", "all_small", "all_tall", "make_em_all", "mea_progressive", "fired_up")


class Reference:
    def __init__(
        self,
        offered=WAGERS,
        rebet_after_win=True,
        fired_up="PT-BJS-FUP-01",
        fire_window="until_point",
        bonus_window="after_seven",
    ):
        self.offered = set(offered)
        self.rebet_after_win = rebet_after_win
        self.fire_window = fire_window
        self.bonus_window = bonus_window
        self.sequences = FIRED_UP_SEQUENCES[fired_up]
        self.point = None
        self.shooter = 1
        self.new_shooter()
        # Bonus Craps: a cycle is "betting" (marks accumulate) or "waiting" for a 7.
        self.bonus_marks = {name: set() for name in BONUS}
        self.bonus_waiting = {name: False for name in BONUS}
        # Has the wager's cycle had a roll yet? (bonus_window "after_seven":
        # bets only before the first roll of a cycle.)
        self.bonus_rolled = {name: False for name in BONUS}
        self.mea = set()
        self.fired_sequence = None
        self.fired_matched = []

    def new_shooter(self):
        self.fire_points = set()
        self.fire_established = False  # has this shooter established a point yet?
        self.fire_paid_six = False
        self.shooter_rolled = False

    def fire_open(self):
        if self.fire_window == "first_roll" and self.shooter_rolled:
            return False
        return not self.fire_established and not self.fire_paid_six

    def bonus_open(self, name):
        if self.bonus_waiting[name]:
            return False
        if self.bonus_window == "idle":
            return not self.bonus_marks[name]
        return not self.bonus_rolled[name]

    def open(self):
        status = {
            "fire": self.fire_open(),
            "mea_progressive": not self.mea,
            "fired_up": not self.fired_matched,
        }
        for name in BONUS:
            status[name] = self.bonus_open(name)
        return {w: status[w] for w in WAGERS if w in self.offered}

    def marks(self):
        marks = {
            "fire": sorted(self.fire_points),
            "mea_progressive": sorted(self.mea),
            "fired_up": list(self.fired_matched),
        }
        for name in BONUS:
            marks[name] = sorted(self.bonus_marks[name])
        return {w: marks[w] for w in WAGERS if w in self.offered}

    def _end_fire(self, resolved):
        if not self.fire_paid_six:
            # Before any point the bets were never in action: returned (RULES, base game).
            returned = not self.fire_established
            resolved.append(("fire", len(self.fire_points), returned))
        self.shooter += 1
        self.point = None
        self.new_shooter()

    def end_hand(self):
        resolved = []
        self._end_fire(resolved)
        return [r for r in resolved if r[0] in self.offered]

    def roll(self, die1, die2):
        total = die1 + die2
        resolved = []
        self.shooter_rolled = True
        # Base game and Fire Bet.
        if self.point is None:
            if total in POINTS:
                self.point = total
                self.fire_established = True
        elif total == self.point:
            if not self.fire_paid_six:
                self.fire_points.add(total)
                if len(self.fire_points) == 6:
                    resolved.append(("fire", 6, False))
                    self.fire_paid_six = True
            self.point = None
        elif total == 7:
            self._end_fire(resolved)
        # Bonus Craps.
        for name, numbers in BONUS.items():
            if total == 7:
                if not self.bonus_waiting[name]:
                    resolved.append((name, len(self.bonus_marks[name]), False))
                self.bonus_marks[name] = set()
                self.bonus_waiting[name] = False
                self.bonus_rolled[name] = False  # a cycle begins on the roll after a 7
                continue
            self.bonus_rolled[name] = True
            if total in numbers and not self.bonus_waiting[name]:
                self.bonus_marks[name].add(total)
                if self.bonus_marks[name] == numbers:
                    resolved.append((name, len(numbers), False))
                    self.bonus_marks[name] = set()
                    self.bonus_waiting[name] = not self.rebet_after_win
                    self.bonus_rolled[name] = False  # rebet: a new cycle begins on the next roll
        # Make 'Em All Progressive.
        if total == 7 or total in self.mea:
            resolved.append(("mea_progressive", len(self.mea), False))
            self.mea = set()
        else:
            self.mea.add(total)
            if len(self.mea) == 10:
                resolved.append(("mea_progressive", 10, False))
                self.mea = set()
        # Fired Up.
        if not self.fired_matched:
            starts = [s for s in self.sequences if s[0] == total]
            if starts:
                self.fired_sequence = starts[0]
                self.fired_matched = [total]
            else:
                resolved.append(("fired_up", 0, False))
        elif self.fired_sequence[len(self.fired_matched)] == total:
            self.fired_matched.append(total)
            if len(self.fired_matched) == len(self.fired_sequence):
                resolved.append(("fired_up", len(self.fired_matched), False))
                self.fired_matched = []
        else:
            resolved.append(("fired_up", len(self.fired_matched), False))
            self.fired_matched = []
        return [r for r in resolved if r[0] in self.offered]
