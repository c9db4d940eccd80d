"""The floor's people: accounts, roles and their broker credentials.

May import: base, bus, alerts.
"""
