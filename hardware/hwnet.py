# ruff: noqa: E501  (one net per line: the list reads as a table)
# The carrier's schematic as a netlist (BOM.md "Carrier netlist"): every net on
# the carrier board and each part pin on it, so a technician can build the
# carrier on stripboard from the text alone. Part pins are named as in each
# part's datasheet (TPS2552-1: IN, OUT, GND, EN, ILIM, FAULT; TPD4E1U06: IO1-IO4,
# GND; 74AHCT125: numbered pins); the DevKitC's as header positions.

import hwlines as hl
import hwmodel as hw
from hwparts import reservoir_refs


def _devkit(gpio):
    return "U2 %s (GPIO%d)" % (hw.header_pin(gpio), gpio)


def nets(board):
    """[(net, [part pins])] for the carrier."""
    b = hw.budget(board)
    ref = hl.refs(board)
    branches = b["branches"]
    nsw = len([1 for _, _, k in hl.offboard_lines(board) if k == "switch"])
    first_cap = 3 + nsw + len(b["feeds"]) - 1
    conns = {net: (cref, i + 1) for cref, _, pins in hl.connectors(board) for i, net in enumerate(pins)}
    feeds = [c for c in hl.connectors(board) if c[1].startswith("power feed")]
    gnd_pins = ", ".join(
        "U2 %s-%d" % (h, i + 1) for h, pins in (("J2", hw.J2), ("J3", hw.J3)) for i, n in enumerate(pins) if n == "GND"
    )
    tvs = sorted({r.split("/")[0] for k, r in ref.items() if k.startswith("tvs:")}, key=lambda r: int(r[1:]))
    out = [
        ("+5V (TB1)", ["W0 from PS1 +V"] + ["%s IN" % br[0] for br in branches] + ["%s (+, reservoir)" % hw.span(reservoir_refs(board))] + ["C%d (IN side of %s)" % (first_cap + 2 * i, br[0]) for i, br in enumerate(branches)]),
        ("GND (TB2)", ["W0 from PS1 −V", gnd_pins, "U1 pins 7, 1, 5, 9, 12", "%s GND" % hw.span([br[0] for br in branches]), "every eFuse's EN (always on)", "%s GND" % hw.span(tvs), "%s pin 2" % hw.span([c[0] for c in feeds]), "X2 SCREEN, X3 GND and SCREEN, X4 GND", "%s (lower end)" % ref["pulldown"], "C2, the switch filter caps, the eFuse caps and the reservoir (other end)", "E6 earth stud (W11, the one bond)"]),
        ("3V3", ["U2 J2-1 (3V3 out)"] + ["pull-ups (upper end): %s" % ", ".join(sorted({ref[k] for k in ref if k.startswith("pullup:")}, key=lambda r: int(r[1:])))]),
    ]  # fmt: skip
    for i, br in enumerate(branches[:-1]):
        cref = feeds[i][0]
        out.append(
            (
                "%s OUT" % br[0],
                [
                    "%s OUT" % br[0],
                    "C%d" % (first_cap + 2 * i + 1),
                    "%s pin 1 (+5V of feed %s)" % (cref, b["feeds"][i][0]),
                    "%s ILIM via RL%d to GND" % (br[0], i + 1),
                ],
            )
        )
    last = branches[-1][0]
    out.append(
        (
            "%s OUT" % last,
            [
                "%s OUT" % last,
                "C%d" % (first_cap + 2 * len(branches) - 1),
                "D1 anode",
                "U1 pin 14 (C2 to pin 7)",
                "U1 pins 4, 10, 13",
                "%s ILIM via RL%d to GND" % (last, len(branches)),
            ],
        )
    )
    out.append(("5V_DEVKIT", ["D1 cathode (band)", "U2 J2-19 (5V)"]))
    for net, g, efuse, _feed in hw.fault_nets(board):
        out.append((net, ["%s FAULT" % efuse, ref["pullup:" + net], _devkit(g)]))
    st = board["strip"]
    out.append(("DATA_3V3", [_devkit(st["pin"]), "U1 pin 2 (1A)", "%s (upper end)" % ref["pulldown"]]))
    out.append(("DATA", ["U1 pin 3 (1Y) via %s" % ref["series"], "X4 pin 1", "TVS %s" % ref["tvs:DATA"]]))
    for net, g, kind in hl.offboard_lines(board):
        if kind == "data":
            continue
        cref, pin = conns[net]
        line = ["%s-%d" % (cref, pin), "TVS %s" % ref["tvs:" + net]]
        if "pullup:" + net in ref:
            line.append("%s (lower end)" % ref["pullup:" + net])
        line.append("%s to %s" % (ref["series:" + net], _devkit(g)))
        if "filter:" + net in ref:
            line.append("%s to GND at the GPIO" % ref["filter:" + net])
        out.append((net, line))
    return out


def netlist_md(board):
    from hwdocs import STAMP, _table

    rows = [(net, "; ".join(pins)) for net, pins in nets(board)]
    return "\n\n".join(
        [
            "_" + STAMP + "_",
            "Each net's part pins; join them on the carrier (stripboard PCB1: one strip or wire link "
            "per net, cut the strips between nets). A TVS channel's IO pin is on the connector side of "
            "its line; each TVS array's GND pin goes to GND by the shortest link.",
            _table(["net", "part pins"], rows),
        ]
    )
