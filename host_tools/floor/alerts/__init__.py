"""The game-protection procedure as a fold of a table's records: alerts with
who must acknowledge them, and the hands the history shows.

May import: base.
"""
