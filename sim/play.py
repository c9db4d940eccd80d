"""`python -m sim play`: type dice at a prompt; see the table and what resolved."""

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules import report
from crapsboard.rules.engine import Table
from sim.cli import ArgumentParser, load_config_text
from sim.portable.replay_core import DiceLineError, parse_dice

HELP = """Enter a roll as two die faces: `3 4` or `3,4`.
  end    the shooter leaves (end hand)      undo   take back the last roll or hand end
  help   this text                          quit   leave (or Ctrl-D)"""


def _pay_text(r):
    # r: a resolution record (crapsboard.rules.report); the engine decided its outcome.
    if r["outcome"] == "loss":
        return "loses (returns 0)"
    if r["outcome"] == "returned":
        return "returned: never in action (returns 1)"
    amount = "the meter" if r["pays"] == "meter" else str(r["pays"])
    returns = "the meter" if r["returns"] == "meter" else str(r["returns"])
    return "pays %s %s, a %s (returns %s; paytable %s)" % (amount, r["unit"], r["outcome"], returns, r["paytable"])


def describe(table):
    """A few lines: the hand, each offered wager's marks and window, what resolved."""
    point = "point %d" % table.point if table.point else "point OFF"
    lines = ["shooter %d, %s, roll %d" % (table.shooter, point, table.rolls)]
    for w in range(pt.WAGER_COUNT):
        if table.config.is_offered(w):
            marks = report.wager_marks(table, w)
            window = "OPEN" if table.is_open(w) else "closed"
            lines.append("  %-16s %-6s %s" % (pt.WAGER_NAMES[w], window, " ".join(str(n) for n in marks) or "-"))
    for r in report.resolutions(table):
        lines.append("  * %s resolved at level %d: %s" % (r["wager"], r["level"], _pay_text(r)))
    return "\n".join(lines)


def _undone_text(code):
    return "roll %d-%d" % (code >> 3, code & 7) if code else "end hand"


def step(table, line):
    """Apply one typed line; returns the text to show, or None to quit."""
    word = line.strip().lower()
    if word in ("quit", "exit", "q"):
        return None
    if word in ("help", "?"):
        return HELP
    if word == "end":
        table.end_hand()
        return describe(table)
    if word == "undo":
        if not table.undo():
            return "nothing to undo"
        lines = [describe(table), "  undid the %s" % _undone_text(table.undone)]
        for r in report.reversed_resolutions(table):
            lines.append("  reversed: %s at level %d: %s" % (r["wager"], r["level"], _pay_text(r)))
        return "\n".join(lines)
    try:
        dice = parse_dice(line)
    except DiceLineError as e:
        return "error: " + str(e)
    if dice is None:
        return ""
    table.roll(dice[0], dice[1])
    return "rolled %d-%d = %d\n%s" % (dice[0], dice[1], dice[0] + dice[1], describe(table))


def main(argv):
    parser = ArgumentParser(prog="python -m sim play", description=__doc__)
    parser.add_argument("--config", metavar="FILE", help="JSON configuration (see docs/replay.md)")
    args = parser.parse_args(argv)
    config = cfg.loads(load_config_text(args.config)) if args.config else None
    table = Table(config)
    print(HELP)
    print(describe(table))
    while True:
        try:
            line = input("dice> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        text = step(table, line)
        if text is None:
            return 0
        if text:
            print(text)
