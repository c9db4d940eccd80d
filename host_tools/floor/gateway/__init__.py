"""One table's gateway: the board's journal onto the broker through an
outbox, and the signed downlink (the meter, the clock, HOLD clearances) back.

May import: base, bus.
"""
