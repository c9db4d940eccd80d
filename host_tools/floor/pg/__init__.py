"""The floor's record on PostgreSQL, beside the recorder's SQLite default:

- `schema`: a `postgresql://` URL told from a path, the connection, the
  schema's numbered migrations (`floor db migrate`) and its version check;
- `store`: the recorder's store on PostgreSQL, the exactly-once key
  (table, board, journal, seq) a constraint of the database, so several
  recorders can write one record at once;
- `copy`: the page's read-only view of the same events;
- `lease`: one writer at a time (the progressive controller), by an advisory
  lock the server holds for the holder's connection;
- `cli`: `floor db migrate | version`.

May import: base.
"""
