# Protective earth: every bond from X1's PE pin to each exposed metal part, the
# lead that makes it, and the safety test that proves it before the mains box
# is first powered (README, "Safety test before first power") and at every
# service. The bonding leads W11.n are counted from this list (hwbuy.py).

# (part bonded, where its lead lands, the lead)
BONDS = (
    ("E1 earth stud", "X1 PE pin", "W12 green/yellow core"),
    ("PS1 FG terminal", "E1 earth stud", "W12 green/yellow core"),
    ("E1 lid", "E1 earth stud", "W11.1"),
    ("E6 earth stud", "E1 earth stud", "W0 green/yellow core"),
    ("E6 door", "E6 earth stud", "W11.2"),
    ("carrier GND (TB2)", "E6 earth stud", "W11.3"),
    ("panel earth stud E12", "E6 earth stud", "W11.4"),
    ("S1 bezel", "panel earth stud E12", "W11.5"),
    ("S2 bezel", "panel earth stud E12", "W11.6"),
    ("S3 bezel", "panel earth stud E12", "W11.7"),
    ("S4 keyswitch body", "panel earth stud E12", "W11.8"),
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
    return [lead for _, _, lead in BONDS if lead.startswith("W11.")]


def safety_test_problems(text):
    """What a README's safety test leaves out: a bonded part, a limit or a meter setting."""
    out = []
    for part, _, _ in BONDS:
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
