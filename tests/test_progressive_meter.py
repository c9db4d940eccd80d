"""The linked progressive's pure meter and its parameters (host_tools/floor/progressive/):
hand-worked contributions, cap, shared and positional pays, reseeds, double
claims, acknowledgements, and the conservation of cents under random play."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import host_tools  # noqa: F401  (firmware/lib on the path)
from host_tools.floor.progressive import params as pm
from host_tools.floor.progressive.meter import LOCKED, OPEN, PENDING, Meter, Refused


def game(**over):
    entry = {
        "paytable": "PT-BJS-MEA-01",
        "base_unit": 100,
        "base": 100_000,
        "reset": 100_000,
        "increment_ppm": 10_000,
        "reserve_ppm": 200_000,
        "reserve_ceiling": 200_000,
        "cap": 5_000_000,
        "pay_rule": "shared",
    }
    entry.update(over)
    return pm.check_game("MEA", entry)


def balanced(m):
    money_in, held = m.balance()
    return money_in == held


# ---- contributions --------------------------------------------------------------------


def test_fractions_of_a_cent_are_carried_not_rounded():
    # $5 unit, 3.3333% to the meter, 1.6667% hidden: 500 x 33,333 = 16,666,500 micro-cents a wager.
    p = game(base_unit=500, increment_ppm=33_333, reserve_ppm=16_667, base=150_000, reset=150_000, cap=200_000)
    m = Meter(p)
    m.contribute("T1", 1)
    assert (m.amount, m.amount_frac) == (150_016, 666_500)
    assert (m.reserve, m.reserve_frac) == (8, 333_500)
    m.contribute("T2", 1)  # 666,500 + 16,666,500 = 17,333,000: 17 cents, 333,000 carried
    assert (m.amount, m.amount_frac) == (150_033, 333_000)
    m.contribute("T1", 1)  # 333,000 + 16,666,500 = 16,999,500: 16 cents
    assert (m.amount, m.amount_frac) == (150_049, 999_500)
    assert (m.reserve, m.reserve_frac) == (25, 500)  # 3 x 8,333,500 = 25,000,500
    assert m.contributed == 3 * 500 * (33_333 + 16_667)
    assert m.wagers == 3 and balanced(m)


def test_a_count_of_wagers_scales_the_contribution():
    m = Meter(game(increment_ppm=100_000, reserve_ppm=20_000))
    m.contribute("T1", 7)  # 7 x $1: 70 cents to the meter, 14 to the reserve
    assert (m.amount, m.reserve, m.wagers) == (100_070, 14, 7)


def test_past_the_cap_the_meters_share_goes_to_the_overflow_and_back_at_each_reset():
    m = Meter(game(cap=100_010, increment_ppm=100_000, reserve_ppm=0))
    m.contribute("T1", 3)  # 30 cents: 10 reach the cap, 20 go to the overflow
    assert (m.amount, m.reserve, m.overflow) == (100_010, 0, 20)
    m.contribute("T1", 1)
    assert (m.amount, m.overflow) == (100_010, 30)
    m.lock("T1", "b", 1, 5, 1, arrival=1)
    hit = m.settle()[0]
    # pays 100,010; the reset: 100,000 from the house (no reserve), then 10 of the
    # overflow's 30 on top (the cap), 20 wait for the next reset.
    assert hit["pays"] == [100_010] and hit["reseeds"] == [[0, 100_000, 10]]
    assert (m.amount, m.overflow, m.overflow_out, m.house) == (100_010, 20, 10 * pm.PPM, 200_000)
    m.lock("T1", "b", 1, 6, 1, arrival=2)
    assert m.settle()[0]["reseeds"] == [[0, 100_000, 10]]
    m.lock("T1", "b", 1, 7, 1, arrival=3)
    assert m.settle()[0]["reseeds"] == [[0, 100_000, 10]]
    assert (m.amount, m.overflow, m.paid, m.house) == (100_010, 0, 300_030, 400_000)
    assert balanced(m)


def test_past_the_reserves_ceiling_the_hidden_share_goes_to_the_overflow():
    # 0.1 cent to the meter and 20 cents hidden per $1 wager; the reserve holds one reset.
    m = Meter(game(increment_ppm=1_000, reserve_ppm=200_000, reserve_ceiling=100_000))
    m.contribute("T1", 5_000)  # 500 cents to the meter, 100,000 to the reserve: full
    assert (m.amount, m.reserve, m.overflow) == (100_500, 100_000, 0)
    m.contribute("T2", 1)  # 0.1 cent to the meter; its 20 hidden cents pass the ceiling
    assert (m.amount, m.amount_frac, m.reserve, m.overflow) == (100_500, 100_000, 100_000, 20)
    m.lock("T2", "b", 1, 3, 1, arrival=1)
    hit = m.settle()[0]
    # pays 100,500; 0.1 cent stays; the reset: 100,000 from the reserve, then the overflow's 20.
    assert hit["pays"] == [100_500] and hit["reseeds"] == [[100_000, 0, 20]]
    assert (m.amount, m.amount_frac, m.reserve, m.overflow, m.house) == (100_020, 100_000, 0, 0, 100_000)
    assert balanced(m)


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "3"])
def test_a_bad_count_is_refused_and_changes_nothing(bad):
    m = Meter(game())
    before = copy.deepcopy(m.dump())
    with pytest.raises(Refused):
        m.contribute("T1", bad)
    assert m.dump() == before


# ---- hits -------------------------------------------------------------------------------


def meter_at_100001():
    m = Meter(game())  # 1 cent to the meter and 20 to the reserve per $1 wager
    m.contribute("T1", 1)
    assert (m.amount, m.reserve) == (100_001, 20)
    return m


def test_shared_pay_whole_cents_the_remainder_stays_then_the_reseed():
    m = meter_at_100001()
    m.contribute("T1", 3)  # 3 wagers in action at T1: 100,004 cents, reserve 80
    m.amount -= 3  # (a meter of 100,001 cents with 3 in action, to work by hand)
    m.house -= 3
    n = m.lock("T1", "b1", 1, 9, 3, arrival=5)
    assert n == 1 and m.state == LOCKED
    paid = m.settle()
    # 100,001 // 3 = 33,333 each; 2 cents stay; the reset brings 2 up to 100,000:
    # 80 from the reserve, 99,918 from the house.
    assert paid[0]["pays"] == [33_333, 33_333, 33_333]
    assert paid[0]["meter_at_hit"] == 100_001
    assert paid[0]["reseeds"] == [[80, 99_918, 0]]
    assert (m.amount, m.reserve, m.paid) == (100_000, 0, 99_999)
    assert m.state == PENDING and m.pending() == [1]
    assert balanced(m)


def test_positional_pay_each_winner_the_meter_with_a_reseed_between():
    m = Meter(game(pay_rule="positional"))
    m.contribute("T2", 2)  # 100,002 cents, reserve 40
    m.lock("T2", "b2", 1, 4, 2, arrival=1)
    hit = m.settle()[0]
    # first position: 100,002; reset 100,000 (40 from the reserve, 99,960 house);
    # second position: 100,000; reset 100,000 (all from the house).
    assert hit["pays"] == [100_002, 100_000]
    assert hit["reseeds"] == [[40, 99_960, 0], [0, 100_000, 0]]
    assert (m.amount, m.reserve, m.paid) == (100_000, 0, 200_002)
    assert balanced(m)


def test_a_reserve_that_covers_the_reseed_funds_it_alone():
    m = Meter(game(reserve_ppm=200_000, increment_ppm=10_000))
    for _ in range(51):
        m.contribute("T1", 100)  # 5,100 wagers: 5,100 cents to the meter, 5,100 x 20 = 102,000 to the reserve
    m.lock("T1", "b", 1, 300, 1, arrival=1)
    hit = m.settle()[0]
    assert hit["pays"] == [105_100]
    assert hit["reseeds"] == [[100_000, 0, 0]]
    assert (m.amount, m.reserve, m.house) == (100_000, 2_000, 100_000)


def test_hits_are_paid_in_their_order_each_from_the_meter_the_one_before_left():
    m = Meter(game(increment_ppm=100_000))
    m.contribute("T1", 1)
    m.contribute("T3", 1)  # 100,020
    assert m.lock("T3", "b3", 1, 7, 1, arrival=10) == 1
    assert m.lock("T1", "b1", 1, 8, 1, arrival=11) == 2
    first, second = m.settle()
    assert (first["table"], first["pays"]) == ("T3", [100_020])
    assert (second["table"], second["pays"]) == ("T1", [100_000])
    assert m.pending() == [1, 2]


def test_a_hit_claimed_twice_is_refused_and_changes_nothing():
    m = meter_at_100001()
    m.lock("T1", "b1", 1, 9, 1, arrival=1)
    m.settle()
    m.contribute("T1", 1)
    before = copy.deepcopy(m.dump())
    with pytest.raises(Refused, match="hit already claimed: table T1 journal 1 record 9 is hit 1"):
        m.lock("T1", "b1", 1, 9, 1, arrival=2)
    assert m.dump() == before


def test_pending_until_the_shift_manager_acknowledges_each_hit():
    m = Meter(game())
    m.contribute("T1", 1)
    m.contribute("T2", 1)
    m.lock("T1", "b", 1, 5, 1, arrival=1)
    m.lock("T2", "b", 1, 6, 1, arrival=2)
    with pytest.raises(Refused, match="hit 1 is not paid yet"):
        m.acknowledge(1, "sam")
    m.settle()
    m.acknowledge(2, "sam")
    assert m.state == PENDING
    with pytest.raises(Refused, match="hit 2 was acknowledged by sam"):
        m.acknowledge(2, "sue")
    with pytest.raises(Refused, match="no hit 3"):
        m.acknowledge(3, "sam")
    m.acknowledge(1, "sue")
    assert m.state == OPEN


def test_parameters_never_make_the_meter_drop():
    m = Meter(game(increment_ppm=100_000))
    m.contribute("T1", 10)  # 100,100
    with pytest.raises(Refused, match="cap 100099 cents is below the meter, 100100 cents"):
        m.change_params(game(cap=100_099))
    m.change_params(game(reset=150_000, reserve_ceiling=150_000))  # below the new reset: the house raises it
    assert (m.amount, m.house) == (150_000, 150_000 - 100)
    assert balanced(m)


def test_a_lower_reserve_ceiling_gives_the_excess_to_the_overflow():
    m = Meter(game(increment_ppm=1_000, reserve_ppm=200_000))
    m.contribute("T1", 6_000)  # 120,000 cents hidden
    m.change_params(game(increment_ppm=1_000, reserve_ppm=200_000, reserve_ceiling=100_000))
    assert (m.reserve, m.overflow) == (100_000, 20_000)
    assert balanced(m)


def test_the_snapshot_round_trips():
    m = Meter(game(pay_rule="positional"))
    m.contribute("T1", 2)
    m.lock("T1", "b", 1, 5, 2, arrival=1)
    m.settle()
    again = Meter.load(m.params, m.dump())
    assert again.dump() == m.dump() and again.state == PENDING
    with pytest.raises(Refused):
        again.lock("T1", "b", 1, 5, 1, arrival=2)


# ---- conservation under random play ------------------------------------------------------

steps = st.lists(
    st.one_of(
        st.tuples(st.just("wager"), st.sampled_from(["T1", "T2", "T3"]), st.integers(1, 9)),
        st.tuples(st.just("hit"), st.sampled_from(["T1", "T2", "T3"]), st.integers(1, 9)),
        st.tuples(st.just("ack"), st.integers(1, 6)),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(
    steps,
    st.integers(1, 2_000),
    st.integers(*pm.INCREMENT_RANGE),
    st.integers(*pm.RESERVE_RANGE),
    st.sampled_from(pm.PAY_RULES),
    st.integers(300, 1_000),
    st.integers(1, 3),
)
def test_no_cent_is_created_or_lost_and_the_meter_drops_only_on_a_paid_win(ops, base, inc, res, rule, units, resets):
    reset = units * base  # at least the 300-unit nine-number pay
    m = Meter(
        game(
            base_unit=base,
            increment_ppm=inc,
            reserve_ppm=res,
            pay_rule=rule,
            base=reset + base,
            reset=reset,
            cap=reset * 3,
            reserve_ceiling=reset * resets,
        )
    )
    seq = 0
    for op in ops:
        before = m.amount
        paid_before = m.paid
        try:
            if op[0] == "wager":
                m.contribute(op[1], op[2])
                assert m.amount >= before
            elif op[0] == "hit":
                seq += 1
                m.lock(op[1], "b", 1, seq, op[2], arrival=seq)
                assert m.amount == before
                for hit in m.settle():
                    assert hit["paid"] == sum(hit["pays"]) and all(p >= 0 for p in hit["pays"])
                    assert hit["pays"][0] <= hit["meter_at_hit"]
                    # each reset: the reset amount, then what the overflow added
                    assert all(r[0] + r[1] >= 0 and r[2] >= 0 for r in hit["reseeds"])
                # shared: n x (meter // n); positional: the meter, then each reset meter
                n = op[2]
                if rule == "shared":
                    assert m.paid - paid_before == before // n * n
                else:
                    later = [reset + r[2] for r in hit["reseeds"][:-1]]
                    assert hit["pays"] == [before] + later
            else:
                m.acknowledge(op[1], "sam")
                assert m.amount == before
        except Refused:
            assert m.amount == before and m.paid == paid_before
        assert balanced(m), op
        assert m.amount <= m.params.cap and m.reserve <= m.params.reserve_ceiling
        assert 0 <= m.amount_frac < pm.PPM and 0 <= m.reserve_frac < pm.PPM and m.reserve >= 0
        assert 0 <= m.overflow_frac < pm.PPM and m.overflow >= 0


# ---- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "over, message",
    [
        ({"increment_ppm": -1}, "MEA increment_ppm: -1 is below 1000"),
        ({"increment_ppm": 999}, "MEA increment_ppm: 999 is below 1000"),
        ({"increment_ppm": 500_001}, "MEA increment_ppm: 500001 is above 500000"),
        ({"reserve_ppm": -5}, "MEA reserve_ppm: -5 is negative"),
        ({"reserve_ppm": 200_001}, "MEA reserve_ppm: 200001 is above 200000"),
        ({"reset": 6_000_000}, "MEA: reset 6000000 cents is above the cap 5000000 cents"),
        ({"base": 5_000_001}, "MEA: base 5000001 cents is above the cap 5000000 cents"),
        (
            {"reset": 29_999},
            "MEA reset: 29999 cents is below PT-BJS-MEA-01's highest fixed award, 300 for 1 on a 100-cent unit"
            " (30000 cents): the top award would be worth less than a lesser one",
        ),
        ({"base": 1}, "MEA base: 1 cents is below PT-BJS-MEA-01's highest fixed award"),
        ({"base_unit": 500}, "MEA base: 100000 cents is below PT-BJS-MEA-01's highest fixed award, 300 for 1 on a 500"),
        ({"reserve_ceiling": 99_999}, "MEA: reserve_ceiling 99999 cents is below one reset (100000 cents)"),
        ({"base_unit": 0}, "MEA base_unit: 0 is below 1"),
        ({"reset": 1.5}, "MEA reset: 1.5 is not a whole number"),
        ({"cap": True}, "MEA cap: True is not a whole number"),
        ({"pay_rule": "first"}, "MEA pay_rule 'first': one of shared, positional"),
        ({"paytable": "PT-BJS-FUP-01"}, "MEA paytable 'PT-BJS-FUP-01': one of PT-BJS-MEA-01-06"),
        ({"colour": "red"}, "MEA: unknown field 'colour'"),
    ],
)
def test_bad_parameters_are_refused_with_one_line(over, message):
    entry = game().to_dict()
    entry.update(over)
    with pytest.raises(ValueError) as e:
        pm.check({"MEA": entry})
    assert message in str(e.value) and "\n" not in str(e.value)


def test_unknown_game_and_missing_fields_are_refused():
    with pytest.raises(ValueError, match="unknown game 'XYZ': the linked games are MEA, FUP"):
        pm.check({"XYZ": {}})
    entry = game().to_dict()
    del entry["cap"]
    with pytest.raises(ValueError, match="MEA: cap missing"):
        pm.check({"MEA": entry})
    with pytest.raises(ValueError, match="at least one game"):
        pm.check({})


def test_the_defaults_are_valid_and_rates_sum_to_at_most_100_percent_exactly():
    got = pm.check(pm.default_params())
    assert sorted(got) == ["FUP", "MEA"]
    assert pm.check_game("MEA", game(increment_ppm=500_000, reserve_ppm=200_000).to_dict()).reserve_ppm == 200_000
    fup = pm.check_game("FUP", dict(game().to_dict(), paytable="PT-BJS-FUP-05", base=100_000, reset=100_000))
    assert pm.top_fixed_award("FUP", fup.paytable) == 1000  # five matches, 1000 for 1: a $1,000 reset is the least
    with pytest.raises(ValueError, match="FUP reset: 99999 cents is below PT-BJS-FUP-05's highest fixed award"):
        pm.check_game("FUP", dict(fup.to_dict(), reset=99_999))
