# Power-up: the start-up diagnostics and the rule for failed start-ups
# (startup), and the steps from the layout to a restored table (power_up).
# firmware/main.py runs them.
# May import: base, rules, journal, table
