"""A table's recorded journal as hands: each shooter's rolls with dice and resolutions.

The records carry only the dice (the board journals events, not their
results); the resolutions come from playing the records through the
firmware's engine again (table_fold.TableFold) and reading them as the
board reports them (`crapsboard.report.resolutions`). A hand is one
shooter's turn: it ends at the seven-out or an end hand.

Input: (record, at) pairs in seq order, one journal after another (a seq
that does not grow starts the next journal's fresh table), `at` the unix
time the floor recorded the record. Output: plain dicts for the page, JSON and CSV.
"""

import csv
import io

from crapsboard.rules import report
from host_tools.floor.alerts.table_fold import TableFold
from host_tools.floor.base import words

HOST_ESTIMATE = "host estimate"  # a record's time the floor gives when the board's clock was not set
BOARD = "board"


class WallClock:
    """Each record's wall time as the board reported it: its `t` (the journal
    clock, ms the board was on) from the last `time` record (the wall clock set
    over the link, `unix` at its `t`) of the same journal with no restart since
    (the journal clock does not count time off); else the time the floor
    received it, which is the host's estimate."""

    def __init__(self):
        self.set_at = None  # (unix, t) of the last time record since the last restart

    def new_journal(self):
        self.set_at = None

    def of(self, record, received):
        """(unix seconds, BOARD or HOST_ESTIMATE) of `record`."""
        kind, t = record.get("kind"), record.get("t")
        if kind == "restart":
            self.set_at = None
        if kind == "time" and isinstance(record.get("unix"), int) and isinstance(t, int):
            self.set_at = (record["unix"], t)
        if self.set_at is not None and isinstance(t, int) and t >= self.set_at[1]:
            return self.set_at[0] + (t - self.set_at[1]) / 1000.0, BOARD
        return received, HOST_ESTIMATE


def hands(pairs):
    """[{"shooter", "first_seq", "last_seq", "start", "end", "rolls": [...], "ended"}] oldest first;
    each roll's `at` is when the floor received it, `time` and `time_from` its wall time (WallClock)."""
    fold = TableFold()
    clock = WallClock()
    out = []
    current = None
    last_seq = 0
    for record, at in pairs:
        kind = record.get("kind")
        if isinstance(record.get("seq"), int) and record["seq"] <= last_seq:
            fold, current = TableFold(), None  # the next journal (oldest first): a fresh table
            clock.new_journal()
        wall, wall_from = clock.of(record, at)
        last_seq = record.get("seq") if isinstance(record.get("seq"), int) else last_seq
        before = fold.table.shooter
        step = fold.step(record)
        if step.bad or kind not in ("roll", "end_hand", "undo"):
            continue
        table = fold.table
        # A roll or end hand is the hand of the shooter who had the dice; an
        # undo, of the shooter it gives the dice back to.
        owner = table.shooter if kind == "undo" else before
        if current is None or current["shooter"] != owner:
            current = {"shooter": owner, "first_seq": record["seq"], "start": at, "rolls": [], "ended": ""}
            out.append(current)
        current["last_seq"] = record["seq"]
        current["end"] = at
        if kind == "roll":
            d1, d2 = record["dice"]
            current["rolls"].append(
                {
                    "seq": record["seq"],
                    "at": at,
                    "time": wall,
                    "time_from": wall_from,
                    "dice": [d1, d2],
                    "total": d1 + d2,
                    "point": table.point or None,
                    "fire_points": bin(table.fire_points).count("1"),
                    "resolved": [dict(r) for r in report.resolutions(table)],
                }
            )
        elif kind == "undo":
            current["rolls"].append(
                {"seq": record["seq"], "at": at, "time": wall, "time_from": wall_from, "undo": True}
            )
        if kind == "undo":
            current["ended"] = ""
        elif table.shooter != before:
            current["ended"] = "seven-out" if kind == "roll" else "end hand"
    return out


def select(all_hands, since=None, until=None, shooter=None):
    """The hands that overlap [since, until] (unix seconds) and are `shooter`'s, when given."""
    return [
        h
        for h in all_hands
        if (since is None or h["end"] >= since)
        and (until is None or h["start"] <= until)
        and (shooter is None or h["shooter"] == shooter)
    ]


def resolution_text(r):
    return words.resolution(r)


def csv_text(selected):
    """One line per roll: hand (shooter), seq, its wall time (ISO 8601 with the
    zone) and whose it is (`board`, or `host estimate`: WallClock), dice, total,
    point, resolutions in docs/rules.md's words."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["shooter", "seq", "time", "time_from", "die1", "die2", "total", "point", "fire_points", "resolved"]
    )
    for h in selected:
        for r in h["rolls"]:
            if r.get("undo"):
                writer.writerow(
                    [h["shooter"], r["seq"], words.when(r["time"]), r["time_from"], "", "", "", "", "", "undo"]
                )
                continue
            writer.writerow(
                [
                    h["shooter"],
                    r["seq"],
                    words.when(r["time"]),
                    r["time_from"],
                    r["dice"][0],
                    r["dice"][1],
                    r["total"],
                    r["point"] or "",
                    r["fire_points"],
                    "; ".join(resolution_text(x) for x in r["resolved"]),
                ]
            )
    return out.getvalue()
