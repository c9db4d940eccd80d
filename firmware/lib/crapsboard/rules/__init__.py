# The game: the rules engine (a pure fold over rolls and hand ends), the
# paytables (paytable: the type and constants; paytable_specs: the seeds'
# data; paytables: the catalogue), the operator configuration (config_type:
# the type; config_parse: the checker; config: the front) and the JSON
# reports of the table's state. No I/O, no clock, no hardware.
# May import: base
