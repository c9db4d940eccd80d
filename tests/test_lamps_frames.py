"""Lamps (docs/lamps.md) read back from the bytes sent to the strip, beyond test_lamps.py.

The expected bytes come from the documented colours (#rrggbb), the strip's
byte order in board.json and "every channel scaled to strip.max_brightness";
each scene is a hand-worked roll sequence from docs/rules.md.
"""

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
COLOURS = {
    "white": 0xFFFFFF,
    "green": 0x00FF00,
    "orange": 0xFF5000,
    "yellow": 0xFFC000,
    "violet": 0xA000FF,
    "cyan": 0x00C0FF,
    "red": 0xFF0000,
    "blue": 0x0040FF,
    "dark": 0x000000,
}
SMALL = (2, 3, 4, 5, 6)
TALL = (8, 9, 10, 11, 12)
SLOW_ON, SLOW_OFF = 0, 512  # slow blink: 512 ms on, 512 off
FAST_ON, FAST_OFF = 0, 128  # fast: 128 ms on, 128 off


def layout_with(change):
    with open(BOARD) as f:
        data = json.load(f)
    change(data)
    return lay.Layout(data)


def strip_bytes(rgb, layout=LAYOUT):
    """The documented colour as the strip receives it: its byte order, each channel capped."""
    top = layout.max_brightness
    channels = {"R": (rgb >> 16) & 0xFF, "G": (rgb >> 8) & 0xFF, "B": rgb & 0xFF}
    return bytes(round(channels[c] * top / 255) for c in layout.order)


def pixel(lamps, name, layout=LAYOUT):
    p = 3 * layout.pixels[name]
    return bytes(lamps.frame[p : p + 3])


def frame_of(lamps, table, status, now_ms, name):
    lamps.render(table, status, now_ms)
    return pixel(lamps, name)


def make_lamps(layout=LAYOUT):
    return lp.Lamps(layout)


def table_after(config, *dice):
    table = Table(cfg.parse(config) if config is not None else None)
    for d1, d2 in dice:
        table.roll(d1, d2)
    return table


def shown(table, now_ms=SLOW_ON, lamps=None, status=en.ST_READY):
    """name -> colour name of every lamp, read from the frame bytes at now_ms."""
    lamps = lamps or make_lamps()
    lamps.render(table, status, now_ms)
    by_bytes = {strip_bytes(rgb): name for name, rgb in COLOURS.items()}
    return {name: by_bytes[pixel(lamps, name)] for name in lp.LAMP_NAMES}


def lit(table, **kw):
    return {name: c for name, c in shown(table, **kw).items() if c != "dark"}


def celebrating(table_config, dice_before, winning_roll, now_ms=1000):
    """Roll `dice_before`, then the winning roll with a celebration at now_ms."""
    table = table_after(table_config, *dice_before)
    lamps = make_lamps()
    table.roll(*winning_roll)
    lamps.celebrate(table, now_ms)
    return table, lamps


def flashing(table, lamps, now_ms):
    """Lamps white in the on-half of a fast flash (the first at or after now_ms),
    with what they show in the off-half right after."""
    if (now_ms // FAST_OFF) % 2:
        now_ms += FAST_OFF - now_ms % FAST_OFF
    on = shown(table, now_ms=now_ms, lamps=lamps)
    off = shown(table, now_ms=now_ms + FAST_OFF, lamps=lamps)
    return {name: off[name] for name in lp.LAMP_NAMES if on[name] == "white" and off[name] != "white"}


# ---- the bytes --------------------------------------------------------------------------


def test_a_fresh_table_frame_byte_for_byte():
    lamps = make_lamps()
    lamps.render(Table(), en.ST_READY, 0)
    expected = bytearray(3 * LAYOUT.pixel_count)
    for name in ("status", "fire.open", "small.open", "tall.open", "all.open", "mea.open", "fired.open"):
        p = 3 * LAYOUT.pixels[name]
        expected[p : p + 3] = strip_bytes(COLOURS["green"])
    p = 3 * LAYOUT.pixels["point.off"]
    expected[p : p + 3] = strip_bytes(COLOURS["white"])
    assert bytes(lamps.frame) == bytes(expected)


@pytest.mark.parametrize("order", ["RGB", "GRB", "BGR", "BRG"])
@pytest.mark.parametrize("top", [255, 96, 1])
def test_every_colour_in_any_byte_order_and_brightness(order, top):
    def change(d):
        d["strip"]["order"] = order
        d["strip"]["max_brightness"] = top

    layout = layout_with(change)
    lamps = make_lamps(layout)
    lamps.lamp_test(0)
    for now, colour in ((0, "red"), (500, "green"), (1000, "blue"), (1500, "white")):
        lamps.render(Table(), en.ST_READY, now)
        want = strip_bytes(COLOURS[colour], layout)
        assert bytes(lamps.frame) == want * layout.pixel_count, (now, colour)
    # orange and yellow from a real state: a Fire point and a Bonus mark
    table = table_after(None, (2, 2), (2, 2))  # point 4 made: fire.4 orange, bonus.4 yellow
    lamps.render(table, en.ST_READY, 4096)  # the lamp test is over
    assert pixel(lamps, "fire.4", layout) == strip_bytes(COLOURS["orange"], layout)
    assert pixel(lamps, "bonus.4", layout) == strip_bytes(COLOURS["yellow"], layout)


def test_brightness_is_scaled_per_channel_not_clipped():
    assert strip_bytes(0xFF5000) == bytes([round(0x50 * 96 / 255), 96, 0])  # GRB
    lamps = make_lamps()
    table = table_after(None, (2, 2), (2, 2))
    lamps.render(table, en.ST_READY, 0)
    assert pixel(lamps, "fire.4") == bytes([30, 96, 0])


def test_lamp_test_writes_every_pixel_through_each_colour_and_back():
    lamps = make_lamps()
    table = Table()
    lamps.render(table, en.ST_READY, 0)
    board_frame = bytes(lamps.frame)
    lamps.lamp_test(10_000)
    steps = [(0, "red"), (499, "red"), (500, "green"), (999, "green"), (1000, "blue"), (1499, "blue")]
    steps += [(1500, "white"), (1996, "white"), (1997, "white"), (1998, "white"), (1999, "white")]
    for offset, colour in steps:
        lamps.render(table, en.ST_READY, 10_000 + offset)
        assert bytes(lamps.frame) == strip_bytes(COLOURS[colour]) * LAYOUT.pixel_count, offset
    lamps.render(table, en.ST_READY, 10_000 + 2000)
    assert bytes(lamps.frame) == board_frame


def test_lamp_test_every_millisecond_of_its_two_seconds():
    lamps = make_lamps()
    table = Table()
    lamps.lamp_test(0)
    colours = ["red", "green", "blue", "white"]
    for now in range(0, 2000, 7):
        lamps.render(table, en.ST_READY, now)
        assert pixel(lamps, "fired.5") == strip_bytes(COLOURS[colours[now // 500]]), now


def test_lamp_test_lights_lamps_of_wagers_not_offered():
    table = table_after({"offered": ["fire"]})
    lamps = make_lamps()
    lamps.lamp_test(0)
    lamps.render(table, en.ST_READY, 0)
    assert pixel(lamps, "mea.12") == strip_bytes(COLOURS["red"])


# ---- wagers not offered -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "wager, lamp",
    [
        ("fire", "fire.open"),
        ("all_small", "small.open"),
        ("all_tall", "tall.open"),
        ("make_em_all", "all.open"),
        ("mea_progressive", "mea.open"),
        ("fired_up", "fired.open"),
    ],
)
def test_on_a_come_out_table_only_the_offered_wager_opens(wager, lamp):
    assert lit(table_after({"offered": [wager]})) == {"status": "green", "point.off": "white", lamp: "green"}


def test_come_out_table_without_fire_or_fired_up():
    offered = ["all_small", "all_tall", "make_em_all", "mea_progressive"]
    shown_now = lit(table_after({"offered": offered}))
    assert "fire.open" not in shown_now and "fired.open" not in shown_now
    assert {n for n in shown_now if n.endswith(".open")} == {"small.open", "tall.open", "all.open", "mea.open"}


# ---- Bonus Craps colours with some wagers not offered, and 8-12 -----------------------------------


def test_make_em_all_alone_marks_both_halves_plain_yellow():
    table = table_after({"offered": ["make_em_all"]}, (1, 1), (4, 4), (6, 6))
    assert {n: c for n, c in lit(table).items() if n.startswith("bonus.")} == {
        "bonus.2": "yellow",
        "bonus.8": "yellow",
        "bonus.12": "yellow",
    }


@pytest.mark.parametrize("side, numbers_lit", [("all_small", {2}), ("all_tall", {8, 12})])
def test_one_side_alone_lights_only_its_own_half(side, numbers_lit):
    table = table_after({"offered": [side]}, (1, 1), (4, 4), (6, 6))
    bonus = {n: c for n, c in lit(table).items() if n.startswith("bonus.")}
    assert bonus == {"bonus.%d" % n: "yellow" for n in numbers_lit}


def test_small_and_make_em_all_offered_tall_numbers_are_plain_make_em_all_marks():
    table = table_after({"offered": ["all_small", "make_em_all"]}, (1, 1), (4, 4), (6, 6))
    bonus = {n: c for n, c in lit(table).items() if n.startswith("bonus.")}
    assert bonus == {"bonus.2": "yellow", "bonus.8": "yellow", "bonus.12": "yellow"}


def test_after_all_tall_wins_with_rebet_8_to_12_turn_violet_then_yellow_as_rolled():
    table = table_after(None, (4, 4), (4, 5), (5, 5), (5, 6), (6, 6))  # 8 9 10 11 12: All Tall wins
    shown_now = lit(table)
    assert {n: shown_now["bonus.%d" % n] for n in TALL} == {n: "violet" for n in TALL}
    assert shown_now["tall.open"] == "green" and "all.open" not in shown_now
    table.roll(4, 5)  # 9 again: in the new All Tall cycle and in Make 'Em All
    shown_now = lit(table)
    assert shown_now["bonus.9"] == "yellow" and shown_now["bonus.12"] == "violet"
    assert "tall.open" not in shown_now


def test_after_make_em_all_wins_tall_marks_show_cyan():
    # All Tall wins (8-12), 8 and 9 again, then 2-6: All Small and Make 'Em All win on the 6.
    dice = [(4, 4), (4, 5), (5, 5), (5, 6), (6, 6), (4, 4), (4, 5), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3)]
    table = table_after(None, *dice)
    bonus = {n: c for n, c in lit(table).items() if n.startswith("bonus.")}
    assert bonus == {"bonus.8": "cyan", "bonus.9": "cyan"}
    assert lit(table)["all.open"] == "green" and lit(table)["small.open"] == "green"


def test_rebet_off_all_tall_won_waits_for_a_seven_in_violet():
    table = table_after({"rebet_after_win": False}, (4, 4), (4, 5), (5, 5), (5, 6), (6, 6))
    shown_now = lit(table)
    assert {n: shown_now["bonus.%d" % n] for n in TALL} == {n: "violet" for n in TALL}
    assert "tall.open" not in shown_now
    table.roll(4, 5)  # repeats do nothing: still only Make 'Em All has 9
    assert lit(table)["bonus.9"] == "violet"


def test_lamp_12_of_both_rows():
    table = table_after(None, (6, 6))
    shown_now = lit(table)
    assert shown_now["bonus.12"] == "yellow" and shown_now["mea.12"] == "yellow"
    table = table_after({"offered": ["fire"]}, (6, 6))
    assert "bonus.12" not in lit(table) and "mea.12" not in lit(table)


def test_mea_row_ends_to_ends():
    table = table_after(None, (1, 1), (5, 6), (6, 6))
    mea = {n for n, c in lit(table).items() if n.startswith("mea.") and c == "yellow"}
    assert mea == {"mea.2", "mea.11", "mea.12"}


def test_mea_not_offered_keeps_its_numbers_dark():
    table = table_after({"offered": ["all_small", "all_tall", "make_em_all"]}, (1, 1), (6, 6))
    assert not [n for n in lit(table) if n.startswith("mea.")]


def test_fired_up_not_offered_keeps_its_lamps_dark():
    table = table_after({"offered": ["fire"]}, (3, 3), (2, 3))
    assert not [n for n in lit(table) if n.startswith("fired.")]


# ---- celebrations ----------------------------------------------------------------------------------


def test_six_fire_points_flash_all_six_lamps():
    dice = [(2, 2), (2, 2), (1, 4), (1, 4), (3, 3), (3, 3), (4, 4), (4, 4), (4, 5), (4, 5), (5, 5)]
    table, lamps = celebrating(None, dice, (5, 5), now_ms=1000)
    assert table.fire_state == 2  # paid at six points
    flashes = flashing(table, lamps, 1000 + 256)
    fire = {n: c for n, c in flashes.items() if n.startswith("fire.")}
    assert fire == {**{"fire.%d" % n: "orange" for n in (4, 5, 6, 8, 9, 10)}, "fire.open": "dark"}


def test_fire_win_at_the_seven_out_flashes_the_points_made():
    dice = [(2, 2), (2, 2), (1, 4), (1, 4), (3, 3), (3, 3), (4, 4), (4, 4), (4, 5)]
    table, lamps = celebrating(None, dice, (3, 4))  # 4 points then a seven-out: 25 for 1
    flashes = flashing(table, lamps, 1000)
    assert {n: c for n, c in flashes.items() if n.startswith("fire.")} == {
        "fire.4": "dark",
        "fire.5": "dark",
        "fire.6": "dark",
        "fire.8": "dark",
        "fire.open": "green",
    }


def test_the_finishing_number_of_a_bonus_win_flashes_too():
    table, lamps = celebrating(None, [(4, 5), (5, 5), (5, 6), (6, 6)], (4, 4))  # 9 10 11 12, then the 8
    flashes = flashing(table, lamps, 1000)
    assert {n: flashes[n] for n in flashes if n.startswith("bonus.")} == {"bonus.%d" % n: "violet" for n in TALL}
    assert flashes["tall.open"] == "green"
    assert "small.open" not in flashes and "all.open" not in flashes


def test_the_finishing_2_of_all_small_flashes():
    table, lamps = celebrating(None, [(1, 2), (2, 2), (2, 3), (3, 3)], (1, 1))
    flashes = flashing(table, lamps, 2000)
    assert {n for n in flashes if n.startswith("bonus.")} == {"bonus.%d" % n for n in SMALL}


def test_make_em_all_win_flashes_all_ten_numbers():
    dice = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6)]
    table, lamps = celebrating(None, dice, (6, 6))  # the 12 completes all ten (and All Tall)
    flashes = flashing(table, lamps, 1000)
    bonus = {n for n in flashes if n.startswith("bonus.")}
    assert bonus == {"bonus.%d" % n for n in SMALL + TALL}
    assert {"all.open", "tall.open"} <= set(flashes)


def test_mea_top_award_flashes_its_ten_numbers():
    dice = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (5, 5), (5, 6)]
    table, lamps = celebrating(None, dice, (6, 6))
    flashes = flashing(table, lamps, 1000)
    assert {n for n in flashes if n.startswith("mea.")} == {"mea.open"} | {"mea.%d" % n for n in SMALL + TALL}


def test_a_fired_up_2_for_1_single_match_is_a_win_and_flashes_fired_1():
    config = {"paytables": {"fired_up": "PT-BJS-FUP-04"}}  # 5-4-3-2; one match pays 2 for 1
    table, lamps = celebrating(config, [(2, 3)], (3, 3))  # 5 matches, the 6 does not
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)] == [(pt.FIRED_UP, 1)]
    flashes = flashing(table, lamps, 1000)
    assert {n for n in flashes if n.startswith("fired.")} == {"fired.open", "fired.1"}


def test_a_fired_up_push_does_not_flash():
    table, lamps = celebrating(None, [(3, 3)], (6, 6))  # FUP-01: one match, 1 for 1
    assert not flashing(table, lamps, 1000)


def test_fired_up_three_matches_flash_three_lamps():
    table, lamps = celebrating(None, [(3, 3), (2, 3), (2, 2)], (6, 6))  # 6 5 4, then 12
    flashes = flashing(table, lamps, 1000)
    assert {n for n in flashes if n.startswith("fired.")} == {"fired.open", "fired.1", "fired.2", "fired.3"}


def test_overlapping_celebrations_each_run_their_own_4_s():
    table = table_after(None, (1, 1), (1, 2), (2, 2), (2, 3))
    lamps = make_lamps()
    table.roll(3, 3)  # All Small wins at 1000
    lamps.celebrate(table, 1000)
    for d in [(4, 4), (4, 5), (5, 5), (5, 6)]:
        table.roll(*d)
    table.roll(6, 6)  # All Tall, Make 'Em All and MEA win at 3000
    lamps.celebrate(table, 3000)
    both = flashing(table, lamps, 4864)
    assert {"small.open", "tall.open", "all.open", "mea.open"} <= set(both)
    assert {"bonus.2", "bonus.12"} <= set(both)
    later = flashing(table, lamps, 5120)  # All Small's 4 s are over at 5000
    assert "small.open" not in later and {"tall.open", "all.open", "bonus.2", "bonus.12"} <= set(later)
    assert not flashing(table, lamps, 7040)  # and the rest at 7000


def test_a_second_win_of_the_same_wager_restarts_its_4_s():
    table = table_after(None, (1, 1), (1, 2), (2, 2), (2, 3))
    lamps = make_lamps()
    table.roll(3, 3)
    lamps.celebrate(table, 0)
    for d in [(1, 1), (1, 2), (2, 2), (2, 3)]:
        table.roll(*d)
    table.roll(3, 3)  # All Small again (rebet) at 3000
    lamps.celebrate(table, 3000)
    assert "small.open" in flashing(table, lamps, 6400)
    assert "small.open" not in flashing(table, lamps, 7040)


def test_a_losing_event_starts_no_celebration():
    table, lamps = celebrating(None, [(1, 1), (1, 2)], (3, 4))  # 7: everything in action loses
    assert not flashing(table, lamps, 1000)


def test_every_brightness_cap_rounds_each_channel_to_nearest():
    # /255 never lands on a half, so "scaled" has one answer: the nearest integer.
    table_orange_yellow = table_after(None, (2, 2), (2, 2))  # fire.4 orange, bonus.4 yellow
    table_violet = table_after(None, (1, 1), (1, 2), (2, 2), (2, 3), (3, 3))  # bonus.2 violet
    # All Small wins, 2 and 3 again, then 8-12: Make 'Em All (and All Tall) complete; small's 2, 3 are cyan
    table_cyan = table_after(None, (1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (1, 1), (1, 2))
    for d in [(4, 4), (4, 5), (5, 5), (5, 6), (6, 6)]:
        table_cyan.roll(*d)
    for top in range(1, 256):

        def change(d, top=top):
            d["strip"]["max_brightness"] = top

        layout = layout_with(change)
        lamps = make_lamps(layout)
        lamps.render(table_orange_yellow, en.ST_READY, 0)
        assert pixel(lamps, "fire.4", layout) == strip_bytes(COLOURS["orange"], layout), top
        assert pixel(lamps, "bonus.4", layout) == strip_bytes(COLOURS["yellow"], layout), top
        assert pixel(lamps, "point.off", layout) == strip_bytes(COLOURS["white"], layout), top
        lamps.render(table_violet, en.ST_READY, 0)
        assert pixel(lamps, "bonus.2", layout) == strip_bytes(COLOURS["violet"], layout), top
        lamps.render(table_cyan, en.ST_READY, 0)
        assert pixel(lamps, "bonus.2", layout) == strip_bytes(COLOURS["cyan"], layout), top
        lamps.render(table_cyan, en.ST_SUPERVISOR, 0)
        assert pixel(lamps, "status", layout) == strip_bytes(COLOURS["blue"], layout), top
        lamps.render(table_cyan, en.ST_ERROR, 0)
        assert pixel(lamps, "status", layout) == strip_bytes(COLOURS["red"], layout), top


def test_mea_partial_win_at_a_repeat_flashes_every_number_it_won_with():
    config = {"offered": ["mea_progressive"]}  # PT-BJS-MEA-01: five numbers pay 2 for 1
    table, lamps = celebrating(config, [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)], (1, 2))  # 2-6, then 3 again
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)] == [(pt.MEA_PROGRESSIVE, 5)]
    flashes = flashing(table, lamps, 1000)
    assert set(flashes) == {"mea.open"} | {"mea.%d" % n for n in SMALL}


def test_mea_partial_win_at_a_seven_flashes_only_the_numbers_marked():
    config = {"offered": ["mea_progressive"]}
    table, lamps = celebrating(config, [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)], (3, 4))  # 2-6, then 7
    assert [(table.res_wager[i], table.res_level[i]) for i in range(table.res_count)] == [(pt.MEA_PROGRESSIVE, 5)]
    flashes = flashing(table, lamps, 1000)
    assert set(flashes) == {"mea.open"} | {"mea.%d" % n for n in SMALL}


# ---- the clock wraps at 2**30 ms (about 12.4 days): nothing comes back ---------------------------


def test_a_celebration_does_not_come_back_when_the_clock_wraps():
    table, lamps = celebrating(None, [(1, 1), (1, 2), (2, 2), (2, 3)], (3, 3), now_ms=10_000)
    assert "small.open" in flashing(table, lamps, 10_000)
    assert not flashing(table, lamps, 15_000)
    # the render task runs on; 2**30 ms later the tick counter reads 11_000 again
    assert not flashing(table, lamps, 11_000)


def test_a_lamp_test_does_not_come_back_when_the_clock_wraps():
    lamps = make_lamps()
    table = Table()
    lamps.lamp_test(10_000)
    lamps.render(table, en.ST_READY, 13_000)
    board_frame = bytes(lamps.frame)
    lamps.render(table, en.ST_READY, 10_600)  # the same tick value, 2**30 ms later
    assert bytes(lamps.frame) == board_frame


def test_a_render_with_the_clock_behind_the_lamp_test_start_shows_no_test_colour():
    lamps = make_lamps()
    table = Table()
    lamps.render(table, en.ST_READY, 0)
    board_frame = bytes(lamps.frame)
    lamps.lamp_test(1000)
    lamps.render(table, en.ST_READY, 999)
    assert bytes(lamps.frame) == board_frame
