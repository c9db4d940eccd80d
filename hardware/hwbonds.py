# Protective earth: every bond from X1's PE pin to each exposed metal part, the
# lead that makes it, and the safety test that proves it before the mains box
# is first powered (README, "Safety test before first power") and at every
# service. The bonding leads W11.n are counted from this list (hwbuy.py).

# (part bonded, the terminal its lead ends in there, where the lead lands, the
# lead). The terminal is a BOM reference: a ring tongue on a stud (CT5), the
# PS1 FG screw's ring (CT6), the rail terminal itself (TB2), or the earth tag
# under a panel part's mounting nut (ET1 on the button bushes, ET2 on the
# keyswitch); bond_problems() fails on one the BOM does not buy.
BONDS = (
    ("E1 earth stud", "CT5", "X1 PE pin", "W12 green/yellow core"),
    ("PS1 FG terminal", "CT6", "E1 earth stud", "W12 green/yellow core"),
    ("E1 lid", "CT5", "E1 earth stud", "W11.1"),
    ("E6 earth stud", "CT5", "E1 earth stud", "W0 green/yellow core"),
    ("E6 door", "CT5", "E6 earth stud", "W11.2"),
    ("carrier GND (TB2)", "TB2", "E6 earth stud", "W11.3"),
    ("panel earth stud E12", "CT5", "E6 earth stud", "W11.4"),
    ("S1 bezel", "ET1", "panel earth stud E12", "W11.5"),
    ("S2 bezel", "ET1", "panel earth stud E12", "W11.6"),
    ("S3 bezel", "ET1", "panel earth stud E12", "W11.7"),
    ("S4 keyswitch body", "ET2", "panel earth stud E12", "W11.8"),
)

# Safety test limits: protective-earth continuity from X1's PE pin to each
# bonded part with a low-resistance ohmmeter (IEC 61557-4: at least 200 mA),
# and insulation resistance of mains to PE with an insulation tester at
# 500 V DC (IEC 61557-2); 1 MΩ is IEC 60204-1's minimum for a circuit
# (clause 18.3). The README states both with these numbers.
PE_MAX_OHM = 0.1
PE_TEST_MA = 200
INSULATION_TEST_V = 500
INSULATION_MIN_MOHM = 1.0


def bonding_leads():
    """The W11 leads, in order."""
    return [lead for _, _, _, lead in BONDS if lead.startswith("W11.")]


def tag_uses():
    """{earth tag ref: [bonded parts]}: the tags the bonds fit under mounting nuts."""
    out = {}
    for part, term, _, _ in BONDS:
        if term.startswith("ET"):
            out.setdefault(term, []).append(part)
    return out


def bond_problems(covered):
    """Bonds whose terminal at the bonded part is no BOM line; `covered` is the
    set of references the BOM buys (hwparts._covered)."""
    return [
        "the bond of %s (%s) ends in %s, which no BOM line buys" % (part, lead, term)
        for part, term, _, lead in BONDS
        if term not in covered
    ]


def safety_test_problems(text):
    """What a README's safety test leaves out: a bonded part, a limit or a meter setting."""
    out = []
    for part, _, _, _ in BONDS:
        if part not in text:
            out.append("the safety test does not meter %s" % part)
    for needle in (
        "below %g Ω" % PE_MAX_OHM,
        "%d mA" % PE_TEST_MA,
        "%d V DC" % INSULATION_TEST_V,
        "at least %g MΩ" % INSULATION_MIN_MOHM,
    ):
        if needle not in text:
            out.append("the safety test does not state %r" % needle)
    return out


def service_problems(text):
    """What a periodic service list leaves out of the safety test: the test
    itself, its limits, or every bonded part."""
    return [
        "the service list does not state %r" % needle
        for needle in (
            "safety test",
            "every bonded part",
            "below %g Ω" % PE_MAX_OHM,
            "%d V DC" % INSULATION_TEST_V,
            "at least %g MΩ" % INSULATION_MIN_MOHM,
        )
        if needle not in text
    ]
