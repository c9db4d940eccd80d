"""The pure lamp renderer (crapsboard/table/lamps.py): state in, colours and frame out."""

import json
import os

import pytest
from conftest import ROOT

from crapsboard.rules import config as cfg
from crapsboard.rules import paytables as pt
from crapsboard.rules.engine import Table
from crapsboard.table import entry as en
from crapsboard.table import lamps as lp
from crapsboard.table import layout as lay

BOARD = os.path.join(ROOT, "hardware", "board.json")
LAYOUT = lay.load(BOARD)
GREEN, WHITE, YELLOW, ORANGE = 0x00FF00, 0xFFFFFF, 0xFFC000, 0xFF5000
VIOLET, CYAN, RED, BLUE = 0xA000FF, 0x00C0FF, 0xFF0000, 0x0040FF


def render(table, status=en.ST_READY, now=0, lamps=None):
    lamps = lamps or lp.Lamps(LAYOUT)
    lamps.render(table, status, now)
    return lamps


def lit(lamps):
    """name -> (rgb, blink, alt) of every lit lamp."""
    out = {}
    for i, name in enumerate(lp.LAMP_NAMES):
        rgb, blink, alt = lamps.lamp(i)
        if rgb:
            out[name] = (rgb, blink, alt)
    return out


def rolls(table, *dice):
    for d1, d2 in dice:
        table.roll(d1, d2)
    return table


def test_every_contract_lamp_is_named_once_and_on_the_board():
    assert len(lp.LAMP_NAMES) == lp.LAMP_COUNT == len(set(lp.LAMP_NAMES))
    assert set(lp.LAMP_NAMES) == set(LAYOUT.pixels)
    assert lp.LAMP_NAMES[lp.L_BONUS + 5] == "bonus.8" and lp.LAMP_NAMES[lp.L_FIRED + 4] == "fired.5"


def test_a_fresh_table():
    shown = lit(render(Table()))
    assert shown == {
        "status": (GREEN, lp.BLINK_NONE, 0),
        "point.off": (WHITE, lp.BLINK_NONE, 0),
        **{name: (GREEN, lp.BLINK_NONE, 0) for name in ("fire.open", "small.open", "tall.open", "all.open")},
        "mea.open": (GREEN, lp.BLINK_NONE, 0),
        "fired.open": (GREEN, lp.BLINK_NONE, 0),
    }


def test_frame_is_in_strip_order_and_brightness_capped():
    lamps = render(Table())
    top = LAYOUT.max_brightness
    status = 3 * LAYOUT.pixels["status"]
    assert lamps.frame[status : status + 3] == bytes([top, 0, 0])  # GRB: green first
    puck = 3 * LAYOUT.pixels["point.off"]
    assert lamps.frame[puck : puck + 3] == bytes([top, top, top])
    dark = 3 * LAYOUT.pixels["fire.4"]
    assert lamps.frame[dark : dark + 3] == bytes(3)
    assert max(lamps.frame) == top


def test_a_red_pixel_goes_to_the_second_byte_in_grb():
    table = Table()
    lamps = render(table, en.ST_ERROR, now=0)  # fast blink, phase on at 0
    p = 3 * LAYOUT.pixels["status"]
    assert lamps.frame[p : p + 3] == bytes([0, LAYOUT.max_brightness, 0])
    lamps.render(table, en.ST_ERROR, 128)  # phase off
    assert lamps.frame[p : p + 3] == bytes(3)
    assert lamps.lamp(lp.L_STATUS) == (RED, lp.BLINK_FAST, 0)


@pytest.mark.parametrize(
    "status, expected",
    [
        (en.ST_READY, (GREEN, lp.BLINK_NONE, 0)),
        (en.ST_HALF, (YELLOW, lp.BLINK_SLOW, 0)),
        (en.ST_PIN, (BLUE, lp.BLINK_SLOW, 0)),
        (en.ST_SUPERVISOR, (BLUE, lp.BLINK_NONE, 0)),
        (en.ST_ERROR, (RED, lp.BLINK_FAST, 0)),
    ],
)
def test_status_lamp(status, expected):
    assert render(Table(), status).lamp(lp.L_STATUS) == expected


def test_puck_fire_points_and_alerts():
    table = rolls(Table(), (2, 2), (2, 2), (1, 4), (1, 4), (3, 3), (3, 3))
    shown = lit(render(table))
    assert {n for n in shown if n.startswith("fire.")} == {"fire.4", "fire.5", "fire.6"}
    assert shown["fire.4"] == (ORANGE, lp.BLINK_NONE, 0)
    assert "alert.floor" not in shown and "point.off" in shown
    rolls(table, (4, 4), (4, 4))
    shown = lit(render(table))
    assert shown["alert.floor"] == (YELLOW, lp.BLINK_SLOW, 0) and "alert.manager" not in shown
    rolls(table, (4, 5))
    shown = lit(render(table))
    assert "point.9" in shown and "point.off" not in shown
    rolls(table, (4, 5))
    shown = lit(render(table))
    assert shown["alert.manager"] == (RED, lp.BLINK_SLOW, 0) and "alert.floor" in shown


def test_lamps_of_wagers_not_offered_stay_dark():
    config = cfg.parse({"offered": ["all_small", "fired_up"]})
    table = rolls(Table(config), (1, 1), (2, 2), (5, 5), (2, 2), (3, 3))
    shown = lit(render(table))
    prefixes = {name.split(".")[0] for name in shown}
    assert prefixes == {"status", "point", "bonus", "fired"}
    assert {n for n in shown if n.startswith("bonus.")} == {"bonus.2", "bonus.4", "bonus.6"}
    assert all(shown[n][0] == YELLOW for n in shown if n.startswith("bonus."))  # one offered cycle: plain marks


def test_rebet_after_a_small_win_shows_make_em_all_marks_apart():
    table = rolls(Table(), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3))  # All Small completes
    assert table.small_marks == 0 and table.all_marks != 0
    shown = lit(render(table))
    for n in (2, 3, 4, 5, 6):
        assert shown["bonus.%d" % n][0] == VIOLET  # only Make 'Em All has them now
    assert shown["small.open"][0] == GREEN  # rebet: open again
    rolls(table, (1, 2))  # 3 again: marked in both cycles
    shown = lit(render(table, now=10_000))  # after the celebration
    assert shown["bonus.3"] == (YELLOW, lp.BLINK_NONE, 0) and shown["bonus.2"][0] == VIOLET
    assert "small.open" not in shown


def test_after_make_em_all_wins_small_and_tall_marks_show_cyan():
    table = rolls(Table(), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3))  # small done
    rolls(table, (1, 1), (1, 2))  # new small cycle: 2, 3
    rolls(table, (4, 4), (4, 5), (5, 5), (5, 6))  # tall 8-11
    assert table.all_marks == sum(1 << n for n in (2, 3, 4, 5, 6, 8, 9, 10, 11))
    rolls(table, (6, 6))  # 12: All Tall and Make 'Em All complete
    shown = lit(render(table, now=10_000))
    assert shown["bonus.2"][0] == CYAN and shown["bonus.3"][0] == CYAN
    assert "bonus.8" not in shown and shown["all.open"][0] == GREEN


def test_rebet_off_keeps_the_won_wager_closed():
    table = rolls(Table(cfg.parse({"rebet_after_win": False})), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3))
    shown = lit(render(table))
    assert "small.open" not in shown and shown["bonus.2"][0] == VIOLET


def test_mea_and_fired_up_marks():
    table = rolls(Table(), (3, 3), (2, 3), (2, 2))  # Fired Up 6-5-4; MEA 6, 5, 4
    shown = lit(render(table))
    assert {n for n in shown if n.startswith("fired.")} == {"fired.1", "fired.2", "fired.3"}
    assert {n for n in shown if n.startswith("mea.")} == {"mea.4", "mea.5", "mea.6"}


def test_a_win_flashes_white_in_turn_with_the_state_then_stops():
    table = rolls(Table(), (1, 1), (1, 2), (2, 2), (2, 3))
    lamps = lp.Lamps(LAYOUT)
    table.roll(3, 3)  # All Small wins
    lamps.celebrate(table, 1000)
    shown = lit(render(table, now=1000, lamps=lamps))
    assert shown["small.open"] == (WHITE, lp.BLINK_FAST, GREEN)
    for n in (2, 3, 4, 5, 6):
        assert shown["bonus.%d" % n] == (WHITE, lp.BLINK_FAST, VIOLET)
    assert "tall.open" not in shown  # not a winner (and closed since the first roll): plain state
    assert "bonus.8" not in shown
    p = 3 * LAYOUT.pixels["bonus.2"]
    frames = set()
    for now in range(1000, 1000 + 512, 64):
        lamps.render(table, en.ST_READY, now)
        frames.add(bytes(lamps.frame[p : p + 3]))
    assert len(frames) == 2  # white and violet in turn
    shown = lit(render(table, now=1000 + 4000, lamps=lamps))
    assert shown["bonus.2"] == (VIOLET, lp.BLINK_NONE, 0)


def small_win(lamps, now):
    table = rolls(Table(), (1, 1), (1, 2), (2, 2), (2, 3))
    table.roll(3, 3)
    lamps.celebrate(table, now)
    return table


def test_a_celebration_runs_its_time_through_later_rolls():
    lamps = lp.Lamps(LAYOUT)
    table = small_win(lamps, 0)
    table.roll(6, 6)  # no win: the running celebration goes on
    lamps.celebrate(table, 1000)
    assert lit(render(table, now=4000 - 1, lamps=lamps))["bonus.2"][1] == lp.BLINK_FAST
    assert lit(render(table, now=4000, lamps=lamps))["bonus.2"][1] == lp.BLINK_NONE


def test_stop_celebration_ends_it_at_once():
    lamps = lp.Lamps(LAYOUT)
    table = small_win(lamps, 0)
    lamps.stop_celebration()  # what the app does on undo
    render(table, now=100, lamps=lamps)
    assert all(lamps.lamp(i)[1] != lp.BLINK_FAST for i in range(lp.LAMP_COUNT))


def test_a_stake_back_pay_is_not_celebrated():
    table = Table()
    table.roll(3, 3)
    table.roll(6, 6)  # Fired Up ends at 1 match: pays 1 for 1, the stake back
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)] == [(pt.FIRED_UP, 1)]
    assert table.res_outcome[0] == pt.OUT_PUSH
    lamps = lp.Lamps(LAYOUT)
    lamps.celebrate(table, 0)
    render(table, now=100, lamps=lamps)
    assert all(lamps.lamp(i)[1] != lp.BLINK_FAST for i in range(lp.LAMP_COUNT))


def test_lamp_test_runs_red_green_blue_white_over_everything():
    lamps = lp.Lamps(LAYOUT)
    lamps.lamp_test(0)
    seen = []
    for now in (0, 500, 1000, 1500):
        lamps.render(Table(), en.ST_READY, now)
        colours = {lamps.lamp(i)[0] for i in range(lp.LAMP_COUNT)}
        assert len(colours) == 1
        seen.append(colours.pop())
    assert seen == [RED, GREEN, BLUE, WHITE]
    assert len(set(bytes(lamps.frame[i : i + 3]) for i in range(0, len(lamps.frame), 3))) == 1
    lamps.render(Table(), en.ST_READY, 2000)
    assert lamps.lamp(lp.L_FIRE + 1)[0] == 0  # back to the state


def _layout_with(change):
    with open(BOARD) as f:
        data = json.load(f)
    change(data)
    return lay.Layout(data)


def test_a_board_without_a_contract_lamp_is_refused():
    layout = _layout_with(lambda d: d["lamps"].pop())
    with pytest.raises(ValueError, match="has no lamp"):
        lp.Lamps(layout)


def test_an_unknown_lamp_name_is_refused():
    def rename(d):
        d["lamps"][5]["name"] = "point.7"

    with pytest.raises(ValueError, match="point.7"):
        lp.Lamps(_layout_with(rename))


def test_the_progressives_open_lamps_say_what_the_floor_said():
    """docs/lamps.md: mea.open / fired.open violet with a slow blink while the floor's
    meter is locked or PENDING, red while it is closed, green while open."""
    from crapsboard.table import progressive as pg

    for state, want in (
        (pg.S_PENDING, (VIOLET, lp.BLINK_SLOW, 0)),
        (pg.S_LOCKED, (VIOLET, lp.BLINK_SLOW, 0)),
        (pg.S_CLOSED, (RED, lp.BLINK_NONE, 0)),
        (pg.S_OPEN, (GREEN, lp.BLINK_NONE, 0)),
    ):
        lamps = lp.Lamps(LAYOUT)
        lamps.progressive.told(pg.MEA, state, 100_000, 0)
        lamps.progressive.told(pg.FUP, state, 100_000, 0)
        shown = lit(render(Table(), now=10, lamps=lamps))
        assert (shown["mea.open"], shown["fired.open"]) == (want, want), state


def test_a_status_lamp_on_a_later_feed_dead_moves_the_fault_to_each_powered_feeds_first_lamp():
    """docs/lamps.md, a lamp feed latched off: the status lamp may sit on any feed;
    with its feed (here F2) dead, the first lamp of F1 and of F3 blink red slowly."""

    def status_on_f2(d):
        f2_first = d["strip"]["feed_first_pixels"][1]
        status = next(lamp for lamp in d["lamps"] if lamp["name"] == "status")
        other = next(lamp for lamp in d["lamps"] if lamp["pixel"] == f2_first)
        status["pixel"], other["pixel"] = f2_first, status["pixel"]

    layout = _layout_with(status_on_f2)
    lamps = lp.Lamps(layout)
    assert lamps.feed_of(lp.L_STATUS) == 1
    lamps.feed_fault = 1 << 1
    shown = lit(render(Table(), lamps=lamps))
    first_of = {lamps.pixel[i]: lp.LAMP_NAMES[i] for i in range(lp.LAMP_COUNT)}
    faulted = {name for name, (rgb, blink, _) in shown.items() if (rgb, blink) == (RED, lp.FEED_FAULT_BLINK)}
    f1, _, f3 = layout.feed_first
    assert faulted == {first_of[f1], first_of[f3]}


def test_an_open_lamp_is_blue_while_keyed_progressive_wagers_are_in_action():
    """docs/lamps.md: mea.open / fired.open blue #0040ff while the wagers keyed for
    the cycle are in action, whatever the floor's meter says meanwhile."""
    from crapsboard.table import progressive as pg

    lamps = lp.Lamps(LAYOUT)
    table = Table()
    for game in (pg.MEA, pg.FUP):
        lamps.progressive.told(game, pg.S_OPEN, 100_000, 0)
    assert lamps.progressive.add(table, pg.MEA, 4)
    lamps.progressive.told(pg.MEA, pg.S_CLOSED, 100_000, 0)
    shown = lit(render(table, now=10, lamps=lamps))
    assert shown["mea.open"] == (BLUE, lp.BLINK_NONE, 0)
    assert shown["fired.open"] == (GREEN, lp.BLINK_NONE, 0)


def test_a_lamp_two_held_wagers_won_with_flashes_verified_once_with_its_own_state():
    """docs/lamps.md, "verified — pay": each held wager's lamps flash white at the slow
    rate with their own state; All Small and Make 'Em All share the bonus lamps, and a
    shared lamp flashes once, with its own state, not white with white."""
    lamps = lp.Lamps(LAYOUT)
    small = sum(1 << n for n in (2, 3, 4, 5, 6))
    lamps.hold.wagers = 1 << pt.ALL_SMALL | 1 << pt.MAKE_EM_ALL
    lamps.hold.marks[pt.ALL_SMALL] = small
    lamps.hold.marks[pt.MAKE_EM_ALL] = small | 1 << 8
    lamps.hold.verified = True
    shown = lit(render(Table(), lamps=lamps))
    assert shown["bonus.2"] == (WHITE, lp.BLINK_SLOW, 0)  # with off: the lamp is dark here
    assert shown["bonus.8"] == (WHITE, lp.BLINK_SLOW, 0)
    flashing = {name for name, (rgb, blink, _) in shown.items() if (rgb, blink) == (WHITE, lp.BLINK_SLOW)}
    assert flashing == {"small.open", "all.open", "bonus.2", "bonus.3", "bonus.4", "bonus.5", "bonus.6", "bonus.8"}


def test_a_feed_fault_shown_on_a_flashing_lamp_blinks_red_with_off_not_with_the_flash():
    """docs/lamps.md, a lamp feed latched off: with the status lamp's own feed dead,
    the first lamp of every feed still powered blinks red slowly, with off between;
    a lamp flashing "verified — pay" (white in turn with its own colour) shows the
    fault alone."""
    from crapsboard.rules import paytables

    lamps = lp.Lamps(LAYOUT)
    lamps.hold.wagers = 1 << paytables.ALL_SMALL  # its open lamp, small.open, is the first of feed F2
    lamps.hold.verified = True
    lamps.feed_fault = 1 << lamps.feed_of(lp.L_STATUS)
    shown = lit(render(Table(), lamps=lamps))
    assert shown["small.open"] == (RED, lp.FEED_FAULT_BLINK, 0)
    assert shown["mea.open"] == (RED, lp.FEED_FAULT_BLINK, 0)
