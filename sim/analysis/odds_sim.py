"""`odds --simulate N`: random rolls through the firmware engine, against the exact odds.

One Mersenne Twister stream (`random.Random(seed)`, each roll one of 36
equally likely dice pairs) drives three `crapsboard.rules.engine.Table`s in step:
the first offers every wager with Fired Up on the 6-5-4-3-2 / 8-9-10-11-12
sequences; the other two offer only Fired Up, on 5-4-3-2 and on 8-9-10-11-12.
Engine levels do not depend on the paytable except Fired Up's sequences, so
these three engines cover every row. A wager's observed frequency of a level
is its resolutions at that level over all its resolutions.

A level is flagged when it is more than 4 standard errors (of the exact
binomial proportion) from the exact probability. Where fewer than 25
resolutions are expected at a level or outside it, the normal approximation
is poor, so the flag uses the exact binomial two-sided tail instead, at the
same 4-sigma size (6.3e-5).
"""

import math
import random
import sys

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import Table

SIGMAS = 4
TAIL_4_SIGMA = math.erfc(SIGMAS / math.sqrt(2))  # two-sided, 6.33e-5
SMALL_EXPECTED = 25
CHUNK = 1 << 15
DICE = [(r // 6 + 1, r % 6 + 1) for r in range(36)]


class Group:
    """Rows that share one level distribution, and the engine that reports it."""

    def __init__(self, wager, engine, rows):
        self.wager = wager
        self.engine = engine  # index into the engine list
        self.rows = rows
        self.levels = rows[0].levels
        self.counts = [0] * len(self.levels)

    def label(self):
        return "%s: %s" % (self.rows[0].title, ", ".join(r.paytable for r in self.rows))


def groups_and_engines(rows):
    """Groups for `rows` and the engine configs they need (first = all wagers)."""
    sequences = []  # one engine per Fired Up sequence family; engine 0 takes the default's
    default_fired = pt.find(pt.FIRED_UP, pt.DEFAULT_IDS[pt.FIRED_UP])
    sequences.append(default_fired.sequences)
    groups = {}
    for row in rows:
        engine = 0
        if row.wager == pt.FIRED_UP:
            if row.table.sequences not in sequences:
                sequences.append(row.table.sequences)
            engine = sequences.index(row.table.sequences)
        key = (row.wager, engine)
        if key in groups:
            groups[key].rows.append(row)
        else:
            groups[key] = Group(row.wager, engine, [row])
    configs = [cfg.parse({})]
    for seqs in sequences[1:]:
        ident = next(t.ident for t in pt.tables(pt.FIRED_UP) if t.sequences == seqs)
        configs.append(cfg.parse({"offered": ["fired_up"], "paytables": {"fired_up": ident}}))
    return list(groups.values()), configs


def run(rows, count, seed=1, progress=None):
    """Play `count` rolls; returns the groups with their counts filled in.
    `progress(done, total)` is called after each chunk if given."""
    groups, configs = groups_and_engines(rows)
    tables = [Table(c) for c in configs]
    # tally[engine][wager] -> the counts list of the group, or None (not shown)
    tally = [[None] * pt.WAGER_COUNT for _ in tables]
    for g in groups:
        tally[g.engine][g.wager] = g.counts
    rng = random.Random(seed)
    population = range(36)
    done = 0
    while done < count:
        chunk = rng.choices(population, k=min(CHUNK, count - done))
        for e, table in enumerate(tables):
            roll, res_wager, res_level, counts = table.roll, table.res_wager, table.res_level, tally[e]
            for r in chunk:
                d1, d2 = DICE[r]
                n = roll(d1, d2)
                for i in range(n):
                    c = counts[res_wager[i]]
                    if c is not None:
                        c[res_level[i]] += 1
        done += len(chunk)
        if progress:
            progress(done, count)
    return groups


def binomial_tail(k, n, p):
    """Two-sided exact binomial tail: 2 * min(P(X <= k), P(X >= k)), at most 1."""
    if p <= 0 or p >= 1:
        return 1.0 if (k == 0 if p <= 0 else k == n) else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    lgn = math.lgamma(n + 1)

    def pmf(j):
        return math.exp(lgn - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * lp + (n - j) * lq)

    def tail(js):
        total = 0.0
        for j in js:
            term = pmf(j)
            total += term
            if term < total * 1e-17:
                break
        return total

    mode = int((n + 1) * p)
    if k >= mode:
        one = tail(range(k, n + 1))
    else:
        one = tail(range(k, -1, -1))
    return min(1.0, 2 * one)


def level_stats(k, n, p):
    """(observed, ci_low, ci_high, z, flagged) for k of n at exact probability p (a Fraction)."""
    p = float(p)
    obs = k / n
    se = math.sqrt(p * (1 - p) / n)
    z = (obs - p) / se if se else (0.0 if k == n * p else math.inf)
    # Wilson score interval, 95%.
    zc = 1.959964
    centre = (obs + zc * zc / (2 * n)) / (1 + zc * zc / n)
    half = zc * math.sqrt(obs * (1 - obs) / n + zc * zc / (4 * n * n)) / (1 + zc * zc / n)
    if n * p < SMALL_EXPECTED or n * (1 - p) < SMALL_EXPECTED:
        flagged = binomial_tail(k, n, p) < TAIL_4_SIGMA
    else:
        flagged = abs(z) > SIGMAS
    return obs, max(0.0, centre - half), min(1.0, centre + half), z, flagged


def progress_bar(stream=None, width=30):
    """A `progress(done, total)` callback drawing one line on `stream` (stderr)."""
    stream = stream or sys.stderr

    def draw(done, total):
        filled = width * done // total
        stream.write(
            "\r[%s%s] %5.1f%% %s rolls" % ("#" * filled, "." * (width - filled), 100 * done / total, format(done, ","))
        )
        if done >= total:
            stream.write("\n")
        stream.flush()

    return draw


def to_json(groups, count, seed):
    out = []
    for g in groups:
        n = sum(g.counts)
        levels = {}
        for k, p in enumerate(g.levels):
            entry = {"exact": "%d/%d" % (p.numerator, p.denominator), "count": g.counts[k]}
            if n:
                obs, lo, hi, z, flagged = level_stats(g.counts[k], n, p)
                entry.update(observed=obs, ci95=[lo, hi], z=z if math.isfinite(z) else None, flagged=flagged)
            levels[str(k)] = entry
        out.append(
            {
                "wager": pt.WAGER_NAMES[g.wager],
                "paytables": [r.paytable for r in g.rows],
                "resolutions": n,
                "levels": levels,
            }
        )
    return {"rolls": count, "seed": seed, "sigmas": SIGMAS, "groups": out, "flagged": flagged_count(groups)}


def flagged_count(groups):
    total = 0
    for g in groups:
        n = sum(g.counts)
        if n:
            total += sum(1 for k, p in enumerate(g.levels) if level_stats(g.counts[k], n, p)[4])
    return total


def render(groups, count, seed, write):
    write(
        "Simulated %s rolls (random.Random(%d)) through crapsboard.rules.engine.Table, against the exact odds.\n"
        % (format(count, ","), seed)
    )
    write(
        "Observed = resolutions at the level / all resolutions of the wager; CI = 95% Wilson; "
        "z in standard errors of the exact p.\n"
    )
    write(
        "Flag (!): more than %d standard errors off (exact binomial tail of the same size where < %d are expected).\n"
        % (SIGMAS, SMALL_EXPECTED)
    )
    for g in groups:
        n = sum(g.counts)
        write("\n%s - %s resolutions\n" % (g.label(), format(n, ",")))
        if not n:
            write("  (no cycle resolved: simulate more rolls)\n")
            continue
        write("  level       exact %     observed %        95% CI (%)              z  count\n")
        for k, p in enumerate(g.levels):
            obs, lo, hi, z, flagged = level_stats(g.counts[k], n, p)
            write(
                "  %5d  %11.6f  %11.6f  [%10.6f, %10.6f]  %+7.2f  %s%s\n"
                % (
                    k,
                    float(p) * 100,
                    obs * 100,
                    lo * 100,
                    hi * 100,
                    z,
                    format(g.counts[k], ","),
                    "  ! flagged" if flagged else "",
                )
            )
    bad = flagged_count(groups)
    levels = sum(len(g.levels) for g in groups if sum(g.counts))
    if bad:
        write("\n%d of %d levels flagged: the engine and the exact odds disagree.\n" % (bad, levels))
    else:
        write("\nAll %d levels within %d standard errors: the engine agrees with the exact odds.\n" % (levels, SIGMAS))
    return bad
