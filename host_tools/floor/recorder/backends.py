"""Which store a recorder's `--db` names: a `postgresql://` URL is the
floor's record on PostgreSQL (host_tools/floor/pg), anything else the path
of the recorder's SQLite file, the embedded default."""

from host_tools.floor.pg import schema


def open_store(where, readonly=False):
    if schema.is_url(where):
        from host_tools.floor.pg.store import PgStore

        return PgStore(where, readonly=readonly)
    from host_tools.floor.recorder.store import Store

    return Store(where, readonly=readonly)


def tables_with_events(store):
    """Every table the store holds a record of."""
    if hasattr(store, "tables_with_events"):
        return store.tables_with_events()
    return [t for (t,) in store.db.execute("select distinct tbl from events")]
