"""The pit and surveillance page: the floor's alerts and tables in a browser.

- `floorview`: what the page knows of the floor (tiles, alerts, people's acts);
- `recorded`: the recorder's copy it folds (read only), and its own audit file;
- `bus`: the page's own broker connection and each person's;
- `sessions`: logins that expire, and each session's form token;
- `render`: the HTML; `static/`: the CSS and the one script;
- `app`: the Starlette routes; `cli`: `python -m host_tools floor page`;
- `downlink`: a cleared HOLD as the signed request for the table's board;

May import: base, bus, alerts, people, progressive, pg.
"""
