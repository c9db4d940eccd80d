# Power-up with the journal: mount it on the app's table, verify, restore, and
# record the restart; or start a journal (first use, or a supervisor's choice).
#
# Shared by firmware/main.py and the simulator, so both boot the same way.
# A journal that fails to mount or verify raises JournalError: the caller
# shows the fault and the journal is left as it was, never replaced by a
# fresh table unless a supervisor asks for a new journal at power-up.
from micropython import const

from crapsboard.journal import journal as jn
from crapsboard.journal import journal_record as jr
from crapsboard.journal import snapshot

# JOURNAL_START's arg: why this journal began.
START_FIRST_USE = const(0)  # no journal on the filesystem
START_SUPERVISOR = const(1)  # END HAND held with the keyswitch on at power-up


def open_journal(app, journal, reset_cause, now_ms, new_journal=False):
    """Mount `journal` on `app.table` and attach it to the app. Returns
    jn.RESTORED (the table is as it was; the app shows restored — verify) or
    jn.NONE (a journal was started). JournalError: a fault, nothing written."""
    found = open_table_journal(app.table, journal, reset_cause, now_ms, new_journal)
    app.restored = found == jn.RESTORED
    app.journal = journal
    app.entry.restore_pin(journal.pin_fails, journal.pin_lock_ms, now_ms)
    app.hold.restore(journal)  # a HOLD cleared before the power cut shows again
    app.progressive.restore(journal.prog)  # the progressive wagers keyed, in action again
    return found


def open_table_journal(table, journal, reset_cause, now_ms, new_journal=False):
    """open_journal for a table the app is not built around yet (the board
    restores before it builds the app: boot/power_up.py). The same results."""
    base = table.config  # the board's configuration: the PIN the snapshot leaves out
    try:
        found = journal.mount(table, base)
    except jn.JournalError:
        if not new_journal:
            raise
        table.reset()  # the old journal could not be trusted: a fresh table
    if new_journal:
        journal.start_new(table, now_ms, journal.journal_id + 1, START_SUPERVISOR)
        found = jn.NONE
    elif found == jn.NONE:
        journal.start_new(table, now_ms, journal.journal_id + 1, START_FIRST_USE)
    elif journal.unkeyed is not None:
        # Verified by its public chain only (format 1, or another key): anyone
        # could have rewritten it, so it is never extended. A fault until a
        # supervisor starts a new journal, which goes on from this table.
        journal._fail(jn.UNKEYED, journal.unkeyed + ": download it, then start a new journal at power-up")
    else:
        # Undo never reaches back across a restart: mount left no undo history.
        journal.append(jr.RESTART, reset_cause & 0xFFFF, now_ms, table)
        _take_config(journal, table, base, now_ms)
    journal.maintain(table, now_ms)
    return found


def _take_config(journal, table, base, now_ms):
    # config.json changed while the board was off: the change applies now and
    # is recorded, unless it touches a wager whose cycle is in progress (then
    # the journal's configuration stays, as a change over the link would be refused).
    before = snapshot.dumps(table, 0)
    try:
        table.configure(base)
    except ValueError:
        return
    if snapshot.dumps(table, 0) != before:
        journal.append(jr.CONFIG, 0, now_ms, table)
