"""The names `verified` takes (docs/link.md): `by`, who checked, 1-32 letters, digits,
`-` or `_`; `alert`, the floor's alert id, 1-48 of the same. The edges, under CPython."""

import pytest

from crapsboard.link import link_verified


@pytest.mark.parametrize(
    "text, most, ok",
    [
        ("a" * 32, 32, True),
        ("a" * 33, 32, False),
        ("x" * 48, 48, True),
        ("x" * 49, 48, False),
        ("", 32, False),
        ("a", 32, True),  # the shortest
        ("7", 48, True),
        ("ann-2_B", 32, True),
        ("ann b", 32, False),
        ("ann.b", 32, False),
        ("ann\u00e9", 32, False),  # a letter, but not ASCII: the floor's names are ASCII
    ],
)
def test_a_name_is_1_to_most_ascii_letters_digits_dash_or_underscore(text, most, ok):
    assert link_verified._name_ok(text, most) is ok


def test_the_bounds_are_the_documented_32_and_48():
    assert (link_verified.BY_MAX, link_verified.ALERT_MAX) == (32, 48)


def test_a_board_without_a_journal_refuses_verified_with_one_line():
    """docs/link.md, `verified`: a HOLD is cleared against the journal's record;
    a board keeping none says so (a request with valid names, nothing else read)."""
    import os
    import types

    from conftest import ROOT

    from crapsboard.link.link import LinkError
    from crapsboard.table import layout as lay
    from crapsboard.table.app import App
    from sim.portable.simboard import SimBoard

    layout = lay.load(os.path.join(ROOT, "hardware", "board.json"))
    app = App(SimBoard(layout), layout)
    assert app.journal is None
    handlers = types.SimpleNamespace(app=app, now=lambda: 1000)
    with pytest.raises(LinkError) as e:
        link_verified.verified(handlers, {"by": "ann", "alert": "a12", "journal": 1, "seq": 3})
    assert str(e.value) == "this board keeps no journal"


def test_a_verified_the_stopped_journal_cannot_record_leaves_the_hold_standing(tmp_path):
    """docs/link.md, `verified`: the check is journalled before the HOLD clears; when
    the journal has stopped (here, full), nothing changes and the floor is told."""
    import types

    from test_board_app import make_with_journal

    from crapsboard.journal import journal as jn
    from crapsboard.link.link import LinkError

    app, clock, journal = make_with_journal(tmp_path)
    clock.six_fire_points()  # the sixth point made raises the Fire Bet's HOLD
    assert app.hold.wagers and not app.hold.verified
    seq = journal.seq
    app.journal_error = jn.JournalError(jn.FULL, "no room for record %d" % (seq + 1))
    handlers = types.SimpleNamespace(app=app, now=lambda: clock.t)
    request = {"by": "ann", "alert": "fire-6", "journal": journal.journal_id, "seq": app.hold.seq}
    with pytest.raises(LinkError) as e:
        link_verified.verified(handlers, request)
    assert str(e.value) == "the journal could not record it: nothing changed"
    assert not app.hold.verified and journal.seq == seq
