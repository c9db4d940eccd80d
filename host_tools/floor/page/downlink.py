"""A HOLD cleared by surveillance, as the signed request its table's board will take (docs/floor.md).

The request is the link's `verified` command (docs/link.md), signed with the
table's floor key (DIR/keys/<table>.floor, from `floor provision`: the board
derives it from its link key and takes `verified` under it and no other) the
way every signed command is (host_tools/link.sign): the gateway carries it
over the link unchanged and cannot alter it. The counter is one above the
board's last, as its gateway's retained state says (`ctr`): a board takes a
counter at most 1000 above its last (docs/link.md), so no clock-based counter.

The page publishes it on `table/<t>/downlink` (QoS 1, not retained: a
clearance is never replayed to a later hand); the table's gateway carries it
to the board (host_tools/floor/gateway/downlink.py) and publishes the board's
answer in its state, which the page puts on the alert (floorview.py).
"""

import os

from host_tools import keys
from host_tools.floor.base import floorkeys
from host_tools.link import sign


def verified_request(key, journal, seq, by, alert, ctr):
    """The signed `verified` request for the HOLD at record `seq` of journal `journal`."""
    return sign(key, {"id": 1, "cmd": "verified", "journal": journal, "seq": seq, "by": by, "alert": alert, "ctr": ctr})


def for_cleared_hold(directory, alert, last_ctr):
    """(table, payload object) to publish for `alert`, a HOLD surveillance has just cleared,
    signed with counter `last_ctr` + 1 (the board's last, from its gateway's state); None when
    the alert is not a cleared HOLD from a board's journal, the table has no key here, or its
    board's counter is not known yet."""
    if not alert.hold or alert.open or not isinstance(alert.journal, tuple) or alert.seq is None:
        return None
    if not isinstance(last_ctr, int):
        return None
    path = floorkeys.path(directory, alert.table, "floor")
    if not os.path.exists(path):
        return None
    by = [a["user"] for a in alert.acks if a["for_role"] == "surveillance"][-1]
    request = verified_request(keys.read_key(path), alert.journal[1], alert.seq, by, alert.id, last_ctr + 1)
    return alert.table, {"table": alert.table, "board": alert.journal[0], "request": request}
