# Each power branch's protector (a latch-off eFuse, or a time-lag fuse) and the
# checks that it can clear its branch's fault: above the load, below the wire,
# inside what the hiccup-mode supply can deliver, and with little power left
# running below its trip; plus the supply and voltage-drop checks of the budget
# hwmodel.budget() computes (with the branches, hwmodel.protected_branches).

import partfacts as pf


def fuse_opens_within_s(fuse_a, current_a):
    """Longest time a time-lag fuse takes to open at current_a; None if it may never."""
    best = None
    for multiple, seconds in pf.FUSE_T_OPEN_BY:
        if current_a >= multiple * fuse_a - 1e-9:
            best = seconds
    return best


def protector(kind, rating_a):
    """(lowest current it may cut, highest current it may let run for good, A).

    An eFuse (partfacts.EFUSE) cuts anything above its trip point within
    microseconds and latches off; its trip point has a tolerance: the
    datasheet's worst case for the RILIM chosen (partfacts.EFUSE_RILIM), or
    the ±8 % budget for a trip point the table lacks (refused by
    branch_problems). A time-lag fuse cuts nothing below 2.1 × its rating
    within 2 minutes (IEC 60127-2)."""
    if kind == "efuse":
        if rating_a in pf.EFUSE_RILIM:
            return pf.EFUSE_RILIM[rating_a][1:]
        tol = pf.EFUSE["trip_tolerance"]
        return rating_a * (1 - tol), rating_a * (1 + tol)
    return rating_a, pf.FUSE_T_OPEN_BY[0][0] * rating_a


def is_iec_rating(amps):
    """A fuse rating from the IEC 60127 series (R10: 1, 1.25, 1.6, 2, 2.5, 3.15, 4, 5, 6.3, 8 × 10^n)."""
    for decade in (0.01, 0.1, 1.0, 10.0):
        for step in pf.IEC_FUSE_STEPS:
            if abs(amps - step * decade) < 1e-9:
                return True
    return False


def branch_problems(b):
    """Reasons a protected branch is unsafe: each protector against its load, its
    wires, its connectors, the supply's hiccup limit and the fault it lets run."""
    out = []
    low_limit = b["supply_limit_a"][0]
    normal_total = sum(br[5] for br in b["branches"]) / 1000.0
    for ref, what, kind, rating, worst, normal, wires in b["branches"]:
        label = "%s %s" % (ref, ("T%gA" % rating) if kind == "fuse" else "eFuse %g A" % rating)
        cuts_from, runs_up_to = protector(kind, rating)
        if kind == "fuse":
            if worst / 1000.0 > pf.FUSE_DERATE * rating:
                out.append(
                    "%s on %s: worst case %.2f A exceeds %d %% of its rating"
                    % (label, what, worst / 1000.0, pf.FUSE_DERATE * 100)
                )
            if not is_iec_rating(rating):
                out.append("%s: %g A is not an IEC 60127 fuse rating" % (label, rating))
        else:
            if cuts_from <= worst / 1000.0:
                out.append(
                    "%s on %s: may trip at %.2f A, not above its worst case %.2f A"
                    % (label, what, cuts_from, worst / 1000.0)
                )
            if rating not in pf.EFUSE_RILIM:
                out.append(
                    "%s: no RILIM for a %g A trip in the %s's table (partfacts.EFUSE_RILIM)"
                    % (label, rating, pf.EFUSE["part"])
                )
            lo, hi = pf.EFUSE["trip_range_a"]
            if not lo <= rating <= hi:
                out.append("%s: trip point outside the %s's %g–%g A range" % (label, pf.EFUSE["part"], lo, hi))
            if runs_up_to > pf.EFUSE["continuous_a"]:
                out.append(
                    "%s: may pass %.2f A, above the %s's %g A continuous rating"
                    % (label, runs_up_to, pf.EFUSE["part"], pf.EFUSE["continuous_a"])
                )
        for wire, awg in wires:
            if runs_up_to > pf.AWG_AMPACITY_A[awg]:
                out.append(
                    "%s on %s: lets %.2f A run, above the %g A ampacity of its %d AWG %s"
                    % (label, what, runs_up_to, pf.AWG_AMPACITY_A[awg], awg, wire)
                )
        # The supply protects in hiccup mode: if the current that makes this
        # protector act (with the other branches at their normal load) is
        # above the supply's limit, the rail collapses first, every branch
        # restarts, and the fault is never cut.
        needed = runs_up_to + normal_total - normal / 1000.0
        if needed > low_limit:
            out.append(
                "%s on %s can never clear its fault: it acts only at %.2f A (with the other loads) "
                "but the supply limits (hiccup) at %.2f A" % (label, what, needed, low_limit)
            )
        # Below its acting current a fault runs for good: that extra power must stay small.
        fault_w = (runs_up_to - worst / 1000.0) * b["supply_v"]
        if fault_w > b["fault_w"]:
            out.append(
                "%s on %s cannot clear its feed's fault: a fault up to %.2f A runs unchecked, "
                "%.1f W above the worst case (limit %g W)" % (label, what, runs_up_to, fault_w, b["fault_w"])
            )
    trunk_a = b["trunk_ma"] / 1000.0
    if trunk_a > pf.AWG_AMPACITY_A[b["trunk_awg"]]:
        out.append(
            "DC trunk %d AWG carries %.2f A, above its %g A ampacity"
            % (b["trunk_awg"], trunk_a, pf.AWG_AMPACITY_A[b["trunk_awg"]])
        )
    return out


def budget_problems(b):
    """Reasons the chosen supply, fuses or wiring do not fit; empty when they do."""
    out = []
    if b["supply_ma"] < b["required_ma"]:
        out.append(
            "supply %.1f A is below the %.2f A needed (worst case x margin)"
            % (b["supply_ma"] / 1000, b["required_ma"] / 1000)
        )
    out += branch_problems(b)
    if b["drop_full_v"] > b["max_drop_v"]:
        out.append(
            "worst voltage drop %.2f V exceeds %.2f V: inject power more often" % (b["drop_full_v"], b["max_drop_v"])
        )
    return out
