# ruff: noqa: E501  (one use per line: the lists read as tables)
# Does the BOM buy the build? Every cable by the metre, every crimp terminal,
# housing and gland is counted from where it is used (the wires of hwwires.py,
# the bonds of hwbonds.py, the strings and joiners), and each BOM line's
# quantity must cover its uses. The cable stock's facts (partfacts.CABLES) are
# what the wire checks use: gauge, green/yellow only on protective earth, and
# the keypad cable's capacitance inside the settle-time budget.

import math

import hwbonds
import hwmodel as hw
import hwwires
import partfacts as pf

HEATSHRINK_PIECE_M = 0.025  # one sleeve over a solder joint
HEATSHRINK_STICK_M = 1.2

# Which stock each wire is cut from: [(cable ref, how many lengths of it)].
STOCK = {
    "W0": [("CB8", 1)],
    "W1": [("CB1", 1), ("CB2", 1)],
    "W2": [("CB7", 1)],
    "W3": [("CB7", 1)],
    "W4": [("CB4", 1), ("CB5", 1)],
    "W8": [("CB4", 1), ("CB5", 1)],
    "W14": [("CB3", 1), ("CB2", 1), ("CB1", 1)],
    "W9": [("CB1", 1), ("CB3", 1), ("CB2", 1)],
    "W10": [("CB1", 1)],
    "W11": [("CB8", 1)],
    "W12": [("CB8", 1)],
    "W13": [("CB6", 1), ("CB5", 1)],
}
PE_WIRES = ("W0", "W11", "W12")  # the only wires with a green/yellow core: each one a bond


def _copies(board, ref):
    """How many of a wire a board has (per-feed wires are listed once)."""
    nfeed = len(hw.feeds(board))
    return {"W8": nfeed - 1, "W14": nfeed}.get(ref, 1)


def cable_metres(board):
    """{cable ref: metres} the wires use."""
    out = {}
    for ref, _, _, length, _, _, _ in hwwires.wires(board):
        for cable, n in STOCK[ref.split(".")[0]]:
            out[cable] = out.get(cable, 0.0) + length * n * _copies(board, ref)
    return out


def uses(board):
    """{BOM ref: [(count, what)]}: every use of a counted part."""
    nfeed = len(hw.feeds(board))
    leads = hwbonds.bonding_leads()
    ring_parts = [p for p, term, _, lead in hwbonds.BONDS if lead.startswith("W11.") and term == "CT5"]
    ring_ends = len(ring_parts)
    kp_pins = 9  # X2: 8 lines + screen
    sw_pins = 7  # X3
    out = {
        "E9": [(nfeed, "feed pairs W1.n into E6"), (3, "W2, W3, W4 into E6"), (1, "the panel bond W11.4 into E6")],
        "E4": [(2, "W0 leaving E1 and entering E6")],
        "CT1": [
            (2 * nfeed, "W1.n at X5–X7"),
            (2 * nfeed, "string power receptacles"),
            (2 * 2 * nfeed, "string data receptacles (DATA, GND), in and out"),
            (2, "the trip-test lead (README, Tools)"),
        ],
        "CT2": [(2 * nfeed, "W1.n at the string's power receptacle")],
        "CT3": [(kp_pins, "W2 at X2"), (sw_pins, "W3 at X3"), (2, "W4 at X4")],
        "CT4": [(2, "W4 at string F1's data receptacle")],
        "CT5": [
            (len(leads), "W11.1–W11.%d at the stud they land on" % len(leads)),
            (ring_ends, "W11 at the bonded part where it is a stud (%s)" % ", ".join(ring_parts)),
            (2, "W0's bond core at both studs"),
            (2, "W12's PE at the E1 stud"),
        ],
        "CT6": [(2, "W0 at PS1 +V and −V"), (3, "W12 at PS1 L, N and FG")],
        "CT7": [(3, "W12 at X1 L, N and PE")],
        "HX1": [(2 * nfeed, "string data ends, in and out")],
        "HX2": [(nfeed, "string power tails"), (1, "the trip-test lead (README, Tools)")],
        "HX3": [(nfeed, "W1.n at the string end")],
        "HX4": [(1, "W4 at string F1's data in")],
        "X9": [(1, "W2 at the keypad tail")],
    }
    for tag, parts in sorted(hwbonds.tag_uses().items()):
        out[tag] = [(len(parts), "under the mounting nut of %s" % ", ".join(parts))]
    joints = board["strip"]["count"] * 6 + 3 + kp_pins + sw_pins + 4 * len(leads)
    out["HS1"] = [
        (
            int(math.ceil(joints * HEATSHRINK_PIECE_M * 1.1 / HEATSHRINK_STICK_M)),
            "%d sleeves (pixel joints, W6's VBUS cut, W2/W3 solder ends, bezel leads), 1.2 m sticks" % joints,
        )
    ]
    for cable, metres in sorted(cable_metres(board).items()):
        out[cable] = [
            (
                metres,
                "%s, by the metre"
                % ", ".join(w for w, stock in sorted(STOCK.items()) if any(c == cable for c, _ in stock)),
            )
        ]
    return out


def _qty(q):
    """A BOM quantity: an int, or '12 m' for cable by the metre."""
    return float(str(q).split()[0])


def quantity_problems(rows, needed):
    """Lines whose quantity does not cover their uses, and uses with no line."""
    by_ref = {str(r[0]): r for r in rows}
    out = []
    for ref, what in sorted(needed.items()):
        total = sum(n for n, _ in what)
        if ref not in by_ref:
            out.append("%s is used (%s) but no BOM line buys it" % (ref, "; ".join(w for _, w in what)))
        elif _qty(by_ref[ref][1]) + 1e-9 < total:
            out.append("%s: %s bought, %g used (%s)" % (ref, by_ref[ref][1], total, "; ".join(w for _, w in what)))
    return out


def cable_problems(board, cables=None):
    """Wires whose stock disagrees with the checks: gauge, green/yellow off PE, keypad capacitance."""
    cables = pf.CABLES if cables is None else cables
    out = []
    for ref, _, awg, _, _, _, _ in hwwires.wires(board):
        base = ref.split(".")[0]
        for cable, _ in STOCK[base]:
            c = cables[cable]
            if c["awg"] != awg:
                out.append(
                    "%s is modelled as %d AWG but cut from %s (%s, %d AWG)" % (ref, awg, cable, c["mpn"], c["awg"])
                )
            if "green/yellow" in c["colours"] and base not in PE_WIRES:
                out.append(
                    "%s is cut from %s, whose green/yellow core is reserved for protective earth" % (ref, c["mpn"])
                )
    kp = board["keypad"]
    pf_m = cables["CB7"].get("pf_per_m")
    if pf_m is None or pf_m > kp["cable_pf_per_m"]:
        out.append(
            "keypad cable %s: %s pF/m core to core, above the %g pF/m the settle time assumes"
            % (cables["CB7"]["mpn"], pf_m, kp["cable_pf_per_m"])
        )
    return out
