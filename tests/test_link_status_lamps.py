"""status's lamps are written by link_info.lamp_json without the encoder (it
allocated ~2.5 KB a lamp); the text is the encoder's, byte for byte."""

import pytest

from crapsboard.link import link_info
from crapsboard.link import link_json as lj


@pytest.mark.parametrize(
    "rgb, blink, alt",
    [(0xFF0000, 0, 0), (0x00FF00, 1, 0), (0x0000FF, 1, 0xFFFFFF), (0x000001, 0, 0x123456), (0xFFFFFF, 250, 0x00FF00)],
)
def test_a_lamps_text_is_what_the_encoder_writes(rgb, blink, alt):
    lamp = {"on": True, "color": "#%06x" % rgb, "blink": bool(blink)}
    if blink and alt:
        lamp["alt"] = "#%06x" % alt
    assert link_info.lamp_json(rgb, blink, alt) == lj.encode(lamp)


def test_a_blinking_lamp_with_an_alt_colour_names_it_first():
    assert (
        link_info.lamp_json(0xFF0000, 1, 0x0000FF)
        == '{"alt": "#0000ff", "blink": true, "color": "#ff0000", "on": true}'
    )


def _status(heard=(None, None), count=(0, 0)):
    import os
    import types

    from conftest import ROOT

    from crapsboard.table import layout as lay
    from crapsboard.table.app import KEYSWITCH_NC_BIT, App
    from sim.portable.simboard import SimBoard

    layout = lay.load(os.path.join(ROOT, "hardware", "board.json"))
    board = SimBoard(layout)
    board.down = KEYSWITCH_NC_BIT
    app = App(board, layout)
    for game in (0, 1):
        if heard[game] is not None:
            app.progressive.told(game, 1, 5000, heard[game])
        app.progressive.count[game] = count[game]
    handlers = types.SimpleNamespace(app=app, now=lambda: 1000)
    return link_info.status(handlers, {})


@pytest.mark.parametrize(
    "heard, count, shown",
    [
        ((None, None), (0, 0), False),  # no floor and no wagers: the reply as before the progressive
        ((900, None), (0, 0), True),  # MEA's meter heard
        ((None, 900), (0, 0), True),  # FUP's
        ((None, None), (4, 0), True),  # MEA wagers restored after a power cut, no floor heard yet
        ((None, None), (0, 3), True),
    ],
)
def test_status_states_the_progressive_once_a_floor_or_a_wager_is_there(heard, count, shown):
    # docs/progressive.md: the board's `status` gains "progressive" with the floor's meters
    assert ("progressive" in _status(heard, count)) is shown


def test_hello_states_the_firmware_hash_measured_at_power_up(tmp_path, monkeypatch):
    # docs/link.md, hello: `firmware_hash` is what main.py measured (startup.measured), null when
    # this boot did not measure; `firmware` and `firmware_declared` come from firmware.json
    import types

    from crapsboard.boot import startup

    (tmp_path / "firmware.json").write_text('{"version": "1.4", "hash": "d" }')
    handlers = types.SimpleNamespace(
        path=lambda name: str(tmp_path / name),
        diag={"cause": 1, "boots": 3},
        board_id="240ac4000001",
        now=lambda: 1234,
        journal_state=lambda: "none",
        clock=lambda: None,
        app=types.SimpleNamespace(journal=None),
    )
    for hash_ in ("ab" * 32, None):
        monkeypatch.setattr(startup, "measured", hash_)
        reply = link_info.hello(handlers, {})
        assert (reply["firmware"], reply["firmware_hash"], reply["firmware_declared"]) == ("1.4", hash_, "d")
        assert (reply["board"], reply["uptime_ms"], reply["reset_cause"], reply["boot_count"]) == (
            "240ac4000001",
            1234,
            1,
            3,
        )


@pytest.mark.parametrize("dead, named", [(0b000, []), (0b001, ["F1"]), (0b010, ["F2"]), (0b101, ["F1", "F3"])])
def test_status_names_each_lamp_feed_latched_off(dead, named):
    # docs/link.md, status's `lamp_feeds`: "F1" is the chain's first feed; each dead one named.
    import os

    from conftest import ROOT

    from crapsboard.table import layout as lay
    from crapsboard.table.lamps import Lamps

    lamps = Lamps(lay.load(os.path.join(ROOT, "hardware", "board.json")))
    assert lamps.feed_count >= 3  # the board.json the docs describe
    lamps.feed_fault = dead
    assert link_info.lamp_feeds(lamps, [])["faulted"] == named


def test_selftest_names_the_buttons_held_and_gives_the_keyswitch_apart():
    # docs/link.md, selftest: `held` names the keys and buttons down (key.LABEL, undo,
    # end_hand, lamp_test), `keyswitch` its position; here the keypad's first key, UNDO and
    # LAMP TEST held, the keyswitch on.
    import types

    from test_board_app import make

    from crapsboard.table.app import KEYSWITCH_BIT
    from crapsboard.table.layout import BUTTONS

    app, clock = make()
    clock.idle = KEYSWITCH_BIT | 1 | 1 << (16 + BUTTONS.index("undo")) | 1 << (16 + BUTTONS.index("lamp_test"))
    clock.board.down = clock.idle
    clock.run(100)
    reply = link_info.selftest(types.SimpleNamespace(app=app, now=lambda: clock.t), {})
    held = ["key." + app.layout.labels[0], "undo", "lamp_test"]
    assert (reply["held"], reply["keyswitch"], reply["chattering"]) == (held, "on", [])


def test_marks_and_points_are_listed_as_the_numbers_2_to_12_their_bits_name():
    # docs/link.md, `status`: each wager's marks and the Fire Bet's points are the numbers
    # rolled, 2 to 12 (bit n for the number n), in order.
    assert link_info._mask_list(1 << 2 | 1 << 7 | 1 << 12) == [2, 7, 12]
    assert link_info._mask_list(0) == []


def test_a_journal_written_under_another_key_gives_no_signed_head(tmp_path):
    # docs/link.md, `hello`: `head` is signed with the journal key; a journal that
    # verifies only by its public chain (written under another board's key: UNKEYED)
    # has none, so the head is null, not signed with a key the board does not hold.
    import types

    from test_journal_restore import started

    from crapsboard.journal import journal as jn
    from crapsboard.rules.engine import Table

    started(tmp_path)
    journal = jn.Journal(str(tmp_path), b"BOARD1", key=b"x" * 32)
    journal.mount(Table())
    assert journal.seq == 1 and journal.mac is None and journal.unkeyed
    handlers = types.SimpleNamespace(app=types.SimpleNamespace(journal=journal), board_id="b")
    assert link_info.signed_head(handlers) is None
