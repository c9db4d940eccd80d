"""Millisecond tick arithmetic (docs/architecture.md: crapsboard/base/ticks.py
wraps at 2^30 as the board's time.ticks_ms does): `add` wraps past 2^30 - 1
to 0, `diff` is the signed interval from old to new across the wrap, as
MicroPython's time.ticks_diff, whose results lie in [-2^29, 2^29)."""

import pytest

from crapsboard.base import ticks

PERIOD = 2**30


def test_the_period_is_2_to_the_30_as_on_the_board():
    assert ticks.PERIOD == PERIOD
    assert ticks.MASK == PERIOD - 1


@pytest.mark.parametrize(
    "start, delta, moved",
    [(0, 1, 1), (PERIOD - 1, 1, 0), (PERIOD - 5, 10, 5), (PERIOD // 2, PERIOD // 2, 0), (7, -8, PERIOD - 1)],
)
def test_add_wraps_at_2_to_the_30(start, delta, moved):
    assert ticks.add(start, delta) == moved


@pytest.mark.parametrize(
    "new, old, interval",
    [
        (10, 3, 7),
        (3, 10, -7),
        (5, PERIOD - 5, 10),  # across the wrap, forwards
        (PERIOD - 5, 5, -10),  # and backwards
        (PERIOD // 2 - 1, 0, PERIOD // 2 - 1),  # the longest interval forwards
        (PERIOD // 2, 0, -(PERIOD // 2)),  # half the period reads as the past
        (0, PERIOD // 2, -(PERIOD // 2)),
        (123456, 123456, 0),
    ],
)
def test_diff_is_the_signed_interval_across_the_wrap(new, old, interval):
    assert ticks.diff(new, old) == interval


def test_diff_undoes_add_for_every_interval_within_half_the_period():
    for start in (0, 1, PERIOD // 3, PERIOD - 1):
        for delta in (-(PERIOD // 2), -1000, -1, 0, 1, 30000, PERIOD // 2 - 1):
            assert ticks.diff(ticks.add(start, delta), start) == delta
