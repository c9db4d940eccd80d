"""Exact level distributions of every wager, computed from docs/rules.md with `fractions`.

A wager's *level* is what `replay` and the engine report when its cycle resolves:
Fire Bet = distinct points made, Bonus Craps = numbers marked, Make 'Em All
Progressive = distinct numbers when the cycle ended, Fired Up = matching rolls.
Rolls are independent and identically distributed, so every cycle starts afresh:
its distribution does not depend on what happened before it began, and one
distribution per wager serves every cycle (and every paytable of that wager;
only Fired Up's sequences change the levels themselves).

Each distribution is an absorbing Markov chain over the set of numbers marked
so far (at most 2**10 states); rolls that change nothing (a repeat on a Bonus
Craps wager, a come-out roll or a re-made point on the Fire Bet) are self-loops
and are removed by conditioning on the next roll that changes something.
"""

from fractions import Fraction
from functools import lru_cache

SEVEN_WAYS = 6
DICE_WAYS = 36
POINTS = (4, 5, 6, 8, 9, 10)
SMALL = (2, 3, 4, 5, 6)
TALL = (8, 9, 10, 11, 12)
ALL = SMALL + TALL


def ways(total):
    """Ways two dice make `total` out of 36."""
    return 6 - abs(7 - total) if 2 <= total <= 12 else 0


def _collect(gain, lose):
    """Distribution of how many items are collected before the chain stops.

    `gain[i]` is the chance that the next *relevant* event collects item i if it
    is not yet collected (already-collected items are self-loops: nothing
    happens); `lose` is the chance of the event that stops the chain. All
    weights are relative: only their ratios matter. Returns P(level k) for
    k = 0 .. len(gain); level len(gain) means every item was collected.
    """
    count = len(gain)
    levels = [Fraction(0)] * (count + 1)
    reach = {0: Fraction(1)}  # mask of collected items -> probability of reaching it
    for size in range(count):
        nxt = {}
        for mask, prob in reach.items():
            fresh = [(1 << i, gain[i]) for i in range(count) if not mask & (1 << i)]
            leave = lose + sum(g for _, g in fresh)
            levels[size] += prob * lose / leave
            for bit, g in fresh:
                nxt[mask | bit] = nxt.get(mask | bit, 0) + prob * g / leave
        reach = nxt
    levels[count] = sum(reach.values())
    return tuple(levels)


@lru_cache(maxsize=None)
def fire_levels():
    """Fire Bet, per shooter: P(distinct points made = k), k = 0..6.

    Look only at the rolls that establish a point and at how that point ends.
    Come-out 2, 3, 7, 11, 12 change nothing. A point p comes with chance
    ways(p)/24 among point-establishing come-outs; it is made before the 7
    with chance ways(p)/(ways(p)+6). A point already made is a self-loop; a
    seven-out (chance sum_p ways(p)/24 * 6/(ways(p)+6), whatever was made
    before) ends the shooter. Six points resolves the bet at once.
    """
    establish = sum(ways(p) for p in POINTS)  # 24
    made = [Fraction(ways(p), establish) * Fraction(ways(p), ways(p) + SEVEN_WAYS) for p in POINTS]
    seven_out = sum(Fraction(ways(p), establish) * Fraction(SEVEN_WAYS, ways(p) + SEVEN_WAYS) for p in POINTS)
    return _collect(made, seven_out)


@lru_cache(maxsize=None)
def bonus_levels(numbers):
    """All Small / All Tall / Make 'Em All, per cycle: P(numbers marked = k).

    Each roll marks a new number n with chance ways(n)/36, a 7 (6/36) ends the
    cycle, and anything else (a repeat, a number of no concern) changes nothing.
    Level len(numbers) is the win.
    """
    return _collect([Fraction(ways(n), DICE_WAYS) for n in numbers], Fraction(SEVEN_WAYS, DICE_WAYS))


@lru_cache(maxsize=None)
def mea_levels():
    """Make 'Em All Progressive, per cycle: P(distinct numbers when it ended = k).

    No roll is a self-loop: a new number extends the cycle, while a 7 or a
    repeat of a number already rolled ends it at the count so far. Ten
    distinct numbers is the top award.
    """
    count = len(ALL)
    w = [Fraction(ways(n), DICE_WAYS) for n in ALL]
    levels = [Fraction(0)] * (count + 1)
    reach = {0: Fraction(1)}
    for size in range(count):
        nxt = {}
        for mask, prob in reach.items():
            stop = Fraction(SEVEN_WAYS, DICE_WAYS)
            for i in range(count):
                bit = 1 << i
                if mask & bit:
                    stop += w[i]  # a repeat ends the cycle
                else:
                    nxt[mask | bit] = nxt.get(mask | bit, 0) + prob * w[i]
            levels[size] += prob * stop
        reach = nxt
    levels[count] = sum(reach.values())
    return tuple(levels)


@lru_cache(maxsize=None)
def fired_up_levels(sequences):
    """Fired Up, per cycle: P(matching rolls = k), k = 0..len(sequence).

    The first roll picks the sequence it starts (their first numbers differ)
    or is a mismatch (level 0); then each roll must be the next number. The
    cycle ends at the first mismatch or when the sequence is complete.
    """
    top = max(len(s) for s in sequences)
    levels = [Fraction(0)] * (top + 1)
    for seq in sequences:
        reach = Fraction(1)
        for k, total in enumerate(seq):
            hit = Fraction(ways(total), DICE_WAYS)
            if k:  # level k: k matches, then a roll other than seq[k]
                levels[k] += reach * (1 - hit)
            reach *= hit
        levels[len(seq)] += reach
    levels[0] = 1 - sum(levels[1:])
    return tuple(levels)


def clear_caches():
    """Forget computed distributions (for timing a cold report)."""
    for f in (fire_levels, bonus_levels, mea_levels, fired_up_levels):
        f.cache_clear()
