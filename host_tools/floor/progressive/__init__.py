"""The linked progressive, host side (docs/progressive.md).

- `params`: each game's parameters (integer cents, rates in ppm), checked;
- `meter`: the pure meter: contributions, cap, hits, pays, reseeds, PENDING;
- `messages`: the tables' progressive records and the controller's topics;
- `ledger`: the controller's ledger (one `Book`), its SQLite (WAL, synchronous=FULL) and its replay;
- `ledger_pg`: the ledger on the floor's PostgreSQL, its writes fenced by the lease;
- `ledgers`: which ledger `--ledger` names (a postgresql:// URL or a SQLite file);
- `ledger_import`: `floor progressive-ledger-import`, a floor's SQLite ledger copied into PostgreSQL;
- `controller`: each input applied, committed, then published;
- `catch_up`: progressive records the bus lost, from the recorder's copy;
- `service`: `floor progressive`, the controller on the broker (presence, heartbeat);
- `rtp`: the return to player at a meter amount, from the exact odds;
- `integrity`: the controller's self-check at start (its code, its ledger's replay);
- `maintenance`: `floor progressive-params`, a technician and a shift manager;
- `cli`: `floor progressive | meter | progressive-params | progressive-install | progressive-ledger-import`;
- `metrics`: the controller's figures for Prometheus.

May import: base, bus, people, pg.
"""
