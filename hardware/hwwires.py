# ruff: noqa: E501  (one part or wire per line: the lists read as tables)
# Every wire a technician cuts: gauge, length, colour and the termination at
# each end (BOM.md "Wires"), and the check that each gauge fits the terminal
# crimped or clamped on it (partfacts.TERMINAL_AWG). Gauges and lengths of the
# power wiring come from board.json, so the drop and ampacity checks in
# hwmodel.py and this list cannot disagree.

import hwbonds
import hwmodel as hw
import partfacts as pf

MF_20_24 = "Micro-Fit 3.0 crimp 20-24 AWG (Molex 43030-0001 / 43031-0001)"
MF_18 = "Micro-Fit 3.0 crimp 18 AWG (Molex 43030-0038 / 43031-0038)"
WAGO = "WAGO 221 lever terminal (0.14-4 mm²)"
RING_M4 = "M4 ring tongue, red 22-16 AWG (TE 320551)"
RING_M35 = "M3.5 ring tongue, blue 16-14 AWG (TE 2-31890-1)"
SOLDER = "solder to the DevKitC socket / carrier pad"
RECEPT_16 = "6.3 mm insulated receptacle 16-14 AWG (TE 2-520184-2)"
BOND_M = 3.5  # the eight bonding leads together (hwbonds.py)


def wires(board):
    """[(ref, what, AWG, length m, colours, end A termination, end B termination)]."""
    pw, kp = board["power"], board["keypad"]
    out = [
        ("W0", "DC trunk, PS1 +V/−V to the carrier rails TB1/TB2 (through glands E4), its green/yellow core the E1–E6 bond", pw["trunk_awg"], pw["trunk_m"], "brown (+5 V), blue (0 V), green/yellow (bond)", RING_M35, WAGO),
    ]  # fmt: skip
    for name, first, _ in hw.feeds(board):
        out.append(
            (
                "W1." + name[1:],
                "feed pair %s, carrier header to the string's power tails at pixel %d" % (name, first),
                pw["feed_awg"],
                pw["feed_m"],
                "red + black",
                MF_18,
                MF_18,
            )
        )
    out += [
        ("W2", "keypad cable: 8 cores + overall screen (≤ %g pF/m core to core), X2 to the keypad tail" % kp["cable_pf_per_m"], board["parts"]["keypad_cable_awg"], kp["cable_max_m"], "8 colours + drain", MF_20_24, SOLDER),
        ("W3", "panel switch cable: 6 cores + screen, X3 to the buttons and keyswitch", board["parts"]["keypad_cable_awg"], kp["cable_max_m"], "6 colours + drain", MF_20_24, SOLDER),
        ("W4", "LED data lead, DATA twisted with GND, X4 to string F1's data receptacle", board["parts"]["data_lead_awg"], board["parts"]["data_lead_m"], "white + black", MF_20_24, MF_20_24),
        ("W8", "joiner leads, DATA and GND, one string's data out to the next one's data in", board["parts"]["data_lead_awg"], 0.15, "white + black", MF_20_24, MF_20_24),
        ("W14", "string ends: each string's DATA and GND cores into its 3-way data receptacles, +5 V into the input's 2-way power receptacle", pw["link_awg"], 0.1, "white + black, red", MF_18, SOLDER),
        ("W9", "pixel string links (3-core, factory or bench made), pixel to pixel", pw["link_awg"], hw.chain_length_m(board), "red + white + black", SOLDER, SOLDER),
        ("W10", "carrier power: rail TB1 to each feed eFuse, eFuse output to its header X5–X7", pw["feed_awg"], 0.3, "red", WAGO, SOLDER),
        ("W13", "carrier: rail TB1 to the controller eFuse, D1 and the DevKitC 5V pin; GND to TB2", pw["controller_awg"], 0.3, "red + black", WAGO, SOLDER),
        ("W11", "bonding leads W11.1–W11.%d (hwbonds.py): E1 lid, E6 door, carrier GND (TB2), panel stud E12, the bezels of S1–S3 and the body of S4 (soldered to their earth tags ET1, ET2)" % len(hwbonds.bonding_leads()), 16, BOND_M, "green/yellow", RING_M4, RING_M4),
        ("W12", "mains inside E1: X1 L, N, PE to PS1 L, N and the E1 earth stud, stud to PS1 FG", 16, 0.4, "brown, blue, green/yellow", RECEPT_16, RING_M35),
    ]  # fmt: skip
    return out


def wire_problems(board, wire_list=None):
    """Wires whose gauge is outside the range of a terminal on them."""
    out = []
    for ref, what, awg, _, _, end_a, end_b in wires(board) if wire_list is None else wire_list:
        for end in (end_a, end_b):
            thick, thin = pf.TERMINAL_AWG[end]
            if not thick <= awg <= thin:
                out.append(
                    "%s (%s) is %d AWG, outside the %d–%d AWG of its %s" % (ref, what[:30], awg, thick, thin, end)
                )
    return out
