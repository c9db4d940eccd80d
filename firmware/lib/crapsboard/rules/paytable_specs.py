# Every paytable of the seed documents as constant tuples, built into
# paytable.Paytable objects by paytables.py when first asked for (paytables.find, .tables).
from crapsboard.rules.paytable import ENVY_PER_EVENT, ENVY_PER_PLAYER, ENVY_PER_WAGER, FOR_1, METER, TO_1, Paytable

# A spec is (kind, ident, ...): "F" Fire (unit, pays for 3-6 points), "B"
# bonus (marks needed, pay, envy multiple), "M" Make 'Em All Progressive
# (pays for 5-9 numbers, envy per level 6-10 or None), "U" Fired Up (pays,
# envy or None, sequences).
_SMALL_TALL = ((6, 5, 4, 3, 2), (8, 9, 10, 11, 12))
_TALL = ((8, 9, 10, 11, 12),)
_SMALL_FOUR = ((5, 4, 3, 2),)
_EVENT_1000 = (1000, ENVY_PER_EVENT)
_BONUS_SPECS = (("B", "PT1", 5, 34, 0), ("B", "PT2", 5, 30, 0), ("B", "PT-FLT-BC-03", 5, 30, 1))
SPECS = (
    (
        ("F", "1", FOR_1, 0, 25, 250, 1000),
        ("F", "2", TO_1, 0, 24, 249, 999),
        ("F", "3", FOR_1, 7, 30, 150, 300),
        ("F", "4", TO_1, 6, 29, 149, 299),
        ("F", "5", FOR_1, 0, 40, 200, 500),
        ("F", "6", TO_1, 0, 39, 199, 499),
    ),
    # Seed 002 has no All Small row and no unit in either table; docs/rules.md
    # settles All Small equal to All Tall, "to 1".
    _BONUS_SPECS,
    _BONUS_SPECS,
    (("B", "PT1", 10, 175, 0), ("B", "PT2", 10, 150, 0), ("B", "PT-FLT-BC-03", 10, 150, 5)),
    (
        ("M", "PT-BJS-MEA-01", (2, 5, 10, 50, 300), (None, None, None, (200, ENVY_PER_EVENT), _EVENT_1000)),
        ("M", "PT-BJS-MEA-02", (2, 5, 10, 50, 300), (None, None, None, (50, ENVY_PER_PLAYER), _EVENT_1000)),
        (
            "M",
            "PT-BJS-MEA-03",
            (2, 5, 10, 50, 300),
            (
                (1, ENVY_PER_PLAYER),
                (2, ENVY_PER_PLAYER),
                (5, ENVY_PER_PLAYER),
                (50, ENVY_PER_PLAYER),
                _EVENT_1000,
            ),
        ),
        ("M", "PT-BJS-MEA-04", (2, 5, 10, 50, 300), None),
        ("M", "PT-BJS-MEA-05", (3, 6, 10, 40, 200), (None, None, None, (50, ENVY_PER_PLAYER), _EVENT_1000)),
        ("M", "PT-BJS-MEA-06", (3, 6, 10, 40, 200), None),
    ),
    (
        (
            "U",
            "PT-BJS-FUP-01",
            (0, 1, 5, 40, 300, METER),
            (None, None, None, None, (100, ENVY_PER_EVENT), _EVENT_1000),
            _SMALL_TALL,
        ),
        ("U", "PT-BJS-FUP-02", (0, 1, 5, 40, 300, METER), None, _SMALL_TALL),
        (
            "U",
            "PT-BJS-FUP-03",
            (0, 2, 20, 200, METER),
            (None, None, None, (200, ENVY_PER_EVENT), _EVENT_1000),
            _SMALL_FOUR,
        ),
        ("U", "PT-BJS-FUP-04", (0, 2, 20, 200, METER), None, _SMALL_FOUR),
        (
            "U",
            "PT-BJS-FUP-05",
            (0, 2, 20, 200, 1000, METER),
            (None, None, None, None, (60, ENVY_PER_PLAYER), (2000, ENVY_PER_EVENT)),
            _TALL,
        ),
        ("U", "PT-BJS-FUP-06", (0, 3, 6, 40, 200, METER), None, _TALL),
    ),
)


def build(spec):
    kind = spec[0]
    ident = spec[1]
    if kind == "F":
        return Paytable(ident, spec[2], (0, 0, 0) + spec[3:7])
    if kind == "B":
        count = spec[2]
        envy = (spec[4], ENVY_PER_WAGER) if spec[4] else None
        return Paytable(ident, TO_1, (0,) * count + (spec[3],), (None,) * count + (envy,))
    if kind == "M":
        envy = None if spec[3] is None else (None,) * 6 + spec[3]
        return Paytable(ident, FOR_1, (0, 0, 0, 0, 0) + spec[2] + (METER,), envy)
    return Paytable(ident, FOR_1, spec[2], spec[3], spec[4])
