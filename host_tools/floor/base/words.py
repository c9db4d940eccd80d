"""The words and figures people read on the floor: money, times and reset
causes as the pit reads them. One place, so the page, the CLI and the
controller's alerts say the same."""

import datetime

# machine.reset_cause() on the ESP32 port (ports/esp32/modmachine.c): the
# constant's name and what makes the chip report it.
RESET_CAUSES = {
    0: ("unknown", "a reset the chip does not name"),
    1: ("PWRON_RESET", "power-on or brown-out"),
    2: ("HARD_RESET", "machine.reset(), a crash (panic) or the reset button"),
    3: ("WDT_RESET", "the watchdog: the app stopped feeding it"),
    4: ("DEEPSLEEP_RESET", "a wake from deep sleep"),
    5: ("SOFT_RESET", "a soft reboot (Ctrl-D at the REPL, sys.exit())"),
}


def reset_cause(cause):
    """`power-on or brown-out (PWRON_RESET)`; a cause the chip does not name: `reset cause N, unknown`."""
    if not isinstance(cause, int) or isinstance(cause, bool) or cause not in RESET_CAUSES:
        return "a reset the chip does not name (cause %s)" % cause
    name, why = RESET_CAUSES[cause]
    return "%s (%s)" % (why, name)


def when(unix):
    """A Unix time as ISO 8601 with the zone, to the second: 2026-11-27T18:04:05+00:00
    (the host's zone); None when there is no time."""
    if unix is None:
        return None
    return datetime.datetime.fromtimestamp(unix).astimezone().isoformat(timespec="seconds")


def money(cents):
    """Integer cents as the pit reads them: $1,234.56."""
    return "$%s.%02d" % ("{:,}".format(cents // 100), cents % 100)


# The wagers as docs/rules.md names them (the board's records use the short names).
WAGERS = {
    "fire": "Fire Bet",
    "all_small": "All Small",
    "all_tall": "All Tall",
    "make_em_all": "Make 'Em All",
    "mea_progressive": "MEA Progressive",
    "fired_up": "Fired Up",
}


def resolution(r):
    """One resolution in docs/rules.md's words: `Fire Bet win at level 4, pays 25 for 1`,
    `Fired Up push`, `MEA Progressive loss`, `Fire Bet returned`."""
    said = "%s %s" % (WAGERS.get(r.get("wager"), r.get("wager")), r.get("outcome"))
    if r.get("outcome") == "win":
        said += " at level %s, pays %s" % (r.get("level"), r.get("pays"))
    return said
