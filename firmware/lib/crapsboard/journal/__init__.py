# The flash journal (docs/journal.md): the record format and its reader
# (journal_record, journal_read), table snapshots and their reader (snapshot,
# snapshot_read), the names both halves share (journal_codes), the journal
# itself, its verify-and-restore (journal_restore) and its power-up step
# (journal_boot).
# May import: base, rules
