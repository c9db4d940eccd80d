# Runs before main.py on every reset. Deliberately empty: everything the
# board needs is set up in main.py, so a broken boot.py can never lock out the REPL.
