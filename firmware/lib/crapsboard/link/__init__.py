# The serial link to the host tools (docs/link.md): its JSON (link_json), the
# bytes-in/bytes-out core (link), signed requests (link_auth), the command
# handlers (link_app and link_info, link_events, link_config, link_admin),
# the asyncio task (link_task) and the board's idle waiter (link_wait).
# hello reports what boot measured (boot.startup.measured).
# May import: base, rules, journal, table, boot
