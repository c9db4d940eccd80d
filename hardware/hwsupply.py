# One supply for the DevKitC. Espressif's DevKitC guide: its micro-USB port,
# its 5V pin and its 3V3 pin are three mutually exclusive power inputs. This
# board feeds the 5V pin (rail -> EF4 -> D1); the USB isolator U7 drives VBUS
# on its device-side port, so the lead from U7 to the DevKitC (W6) has its
# VBUS core broken. U7 takes its power from the PC on both sides, and whatever
# it takes from the rail is on EF4's budget (hwmodel.protected_branches).

import partfacts as pf

# What D1 does, in the words every document uses (BOM, pinout.md, README).
D1_ROLE = (
    "D1 conducts from EF4's output (anode) to the DevKitC's 5V pin (cathode, the band) and blocks the "
    "reverse: nothing on the DevKitC's 5V net can feed the rail. It is not a second supply's guard: the "
    "DevKitC has one supply, its 5V pin, and its micro-USB port never carries VBUS (W6's VBUS core is cut)."
)


def devkit_supplies(board, iso=None):
    """Every source that can drive the DevKitC's 5V net."""
    iso = pf.USB_ISOLATOR if iso is None else iso
    out = ["5V pin: rail -> EF4 -> D1"]
    if iso["drives_device_vbus"] and not board["power"].get("devkit_vbus_cut"):
        out.append(
            "micro-USB VBUS: U7's device-side port (%s, up to %d mA)" % (iso["device_side"], iso["device_vbus_ma"])
        )
    return out


def supply_problems(board, iso=None):
    """Reasons the DevKitC would have more than one supply."""
    sources = devkit_supplies(board, iso)
    if len(sources) != 1:
        return [
            "the DevKitC has %d supplies (%s): its power inputs are mutually exclusive"
            % (len(sources), "; ".join(sources))
        ]
    return []
