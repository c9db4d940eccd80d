# The dealer's table: the layout (layout_names, layout_parse, layout), the
# keypad scan and debounce, dealer entry, the lamp renderer, the event
# records (events), the app that glues them to the engine and the journal,
# and the real board (board: the one module that imports machine).
# May import: base, rules, journal
