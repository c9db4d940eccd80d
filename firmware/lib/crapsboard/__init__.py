# The craps side-bet board's firmware, grouped by concern (docs/architecture.md):
#   base     small helpers that import nothing of crapsboard
#   rules    the game: engine, paytables, configuration, reports
#   journal  the flash journal: records, snapshots, verify and restore
#   table    the dealer's table: keys, entry, lamps, layout, the app, the board
#   link     the serial link to the host tools
#   boot     power-up: diagnostics, the steps before the app runs
# Each subpackage's __init__.py says what it holds and which of the others
# it may import (its "May import:" line; tests/test_firmware_imports.py holds
# the firmware to it, and to no import circles).
