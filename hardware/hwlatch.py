# Can a healthy feed latch itself off? The TPS2552-1 limits current within
# microseconds but latches only after its fault deglitch, and also latches on
# a reverse voltage. Two events come close to that on a healthy board:
#   hot mate: a string plugged onto a live feed (or the feed switching on at
#     power-up) charges its output capacitance at the current limit; if that
#     lasts the deglitch, the feed latches dark;
#   rail dip: PS1 stops delivering (a mains dip, a neighbour's hot mate) and
#     the rail's loads draw on every capacitor at once; a string's capacitor
#     then pushes current backwards through its switch, and past the reverse
#     threshold the feed latches dark.
# Both are checked at their worst: the largest capacitance (+20 %), the
# highest rail the supply's trimmer reaches, the smallest current limit, the
# string lit at the firmware's brightness cap while it charges, every other
# branch at the most its eFuse lets run, the smallest reservoir (−20 %).

import hwmodel as hw
import hwprotect
import partfacts as pf


def output_uf(board, i, tol=pf.ELECTROLYTIC_TOL):
    """Largest capacitance on branch i's eFuse output, µF: its output ceramic,
    then for a lamp feed the string's bulk capacitor (+tol) and each pixel's own
    decoupling; the controller branch sees U1's C2 (D1 blocks the DevKitC's)."""
    parts = board["parts"]
    feeds = hw.feeds(board)
    if i < len(feeds):
        _, first, last = feeds[i]
        n = last - first + 1
        return parts["efuse_cap_uf"] + parts["bulk_cap_uf"] * (1 + tol) + n * parts["pixel_cap_nf"] / 1000.0
    return parts["efuse_cap_uf"] + parts["decoupling_nf"] / 1000.0


def reservoir_uf(board, tol=pf.ELECTROLYTIC_TOL):
    """Smallest capacitance holding up the rail before the eFuses, µF."""
    pw, parts = board["power"], board["parts"]
    nbranch = len(hw.feeds(board)) + 1
    return pw["reservoir_count"] * parts["reservoir_cap_uf"] * (1 - tol) + nbranch * parts["efuse_cap_uf"]


def hot_mate_ms(board, i, facts=pf.EFUSE):
    """Longest time lamp feed i spends at its current limit charging a string
    mated live (its lamps lit at the cap meanwhile); None if the limit cannot
    even carry the lamps."""
    b = hw.budget(board)
    br = b["branches"][i]
    ios_min = pf.EFUSE_RILIM[br[3]][1] if br[3] in pf.EFUSE_RILIM else br[3] * (1 - facts["trip_tolerance"])
    spare_a = ios_min - br[5] / 1000.0
    if spare_a <= 0:
        return None
    return output_uf(board, i) * 1e-6 * board["power"]["rail_max_v"] / spare_a * 1e3


def reverse_v(board, i, facts=pf.EFUSE):
    """Largest OUT-above-IN voltage across branch i's switch in a rail dip:
    its output capacitor's share of the other branches' largest draw, through
    the switch's largest on-resistance."""
    b = hw.budget(board)
    others = sum(hwprotect.protector(br[2], br[3])[1] for k, br in enumerate(b["branches"]) if k != i)
    c = output_uf(board, i)
    share = c / (c + reservoir_uf(board))
    return share * others * facts["rds_on_max_ohm"]


def latch_rows(board, facts=pf.EFUSE):
    """[(ref, output µF, hot-mate ms or None, reverse V)] for every branch."""
    b = hw.budget(board)
    nfeed = len(hw.feeds(board))
    out = []
    for i, br in enumerate(b["branches"]):
        ms = hot_mate_ms(board, i, facts) if i < nfeed else None
        out.append((br[0], output_uf(board, i), ms, reverse_v(board, i, facts)))
    return out


def latch_problems(board, facts=pf.EFUSE):
    """Reasons a feed could latch dark on its own load, or the part would not latch at all."""
    out = []
    if facts.get("behaviour") != "latch-off":
        out.append(
            "%s (%s) is %s, not latch-off: a shorted string would cycle on and off, its FAULT flag only pulsing"
            % (facts["part"], facts["mpn"], facts.get("behaviour", "of unknown behaviour"))
        )
    t_min = facts["deglitch_ms"][0]
    v_min = facts["reverse_trip_v"][0]
    nfeed = len(hw.feeds(board))
    for i, (ref, uf, ms, rev) in enumerate(latch_rows(board, facts)):
        if i < nfeed and ms is None:
            out.append("%s: its smallest current limit cannot carry its string lit at the cap" % ref)
        elif ms is not None and ms >= t_min:
            out.append(
                "%s latches a healthy string mated live: charging %.0f µF at its current limit takes %.1f ms, "
                "not under the %g ms minimum fault deglitch" % (ref, uf, ms, t_min)
            )
        if rev >= v_min:
            out.append(
                "%s latches in a rail dip: its %.0f µF pushes back %.0f mV through the switch, not under the "
                "%.0f mV minimum reverse threshold (reservoir %.0f µF)"
                % (ref, uf, rev * 1e3, v_min * 1e3, reservoir_uf(board))
            )
    return out
