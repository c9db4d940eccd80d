"""The floor's recorder: every table's records stored once, in order, with the
chain checked, and the table's availability published.

May import: base, bus, pg.
"""
