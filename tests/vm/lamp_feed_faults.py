# Lamp-feed faults on a simulated board, under either runtime
# (tests/test_lamp_feeds.py runs it under both). argv: BOARD_JSON FEEDS, FEEDS
# the feeds whose eFuse FAULT flag reads low (e.g. "1" for F1, "" for none).
# Rolls point 6, latches the feeds off 1 s later, and prints one JSON object:
# what the link's status would add (lamp_feeds), and the fault lamps shown.
import json
import sys

from crapsboard.link import link_info
from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, App
from sim.portable.simboard import SimBoard


class Flag:
    """An eFuse FAULT flag with its pull-up: high until the eFuse latches off."""

    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


layout = lay.load(sys.argv[1])
dead = [int(c) - 1 for c in sys.argv[2]]
board = SimBoard(layout)
board.feed_faults = [Flag() for _ in layout.feed_fault_pins]
app = App(board, layout)
three = 1 << layout.key_index("3")
presses = ((100, 200), (400, 500))  # "3 3": point 6
t = 0
while t < 3000:
    down = KEYSWITCH_NC_BIT  # the key is off
    for a, b in presses:
        if a <= t < b:
            down |= three
    board.down = down
    if t == 1500:
        for f in dead:
            board.feed_faults[f].level = 0
    app.step(t)
    if t % 50 == 0:
        app.render(t)
    t += 10
lamps = app.lamps
shown = {}
for i in range(len(lay.LAMP_NAMES)):
    rgb, blink, _ = lamps.lamp(i)
    if rgb == 0xFF0000 and blink == 1:  # red, slow blink
        shown[lay.LAMP_NAMES[i]] = True
out = {"fault": lamps.feed_fault, "shown": sorted(shown), "point": app.table.point}
if lamps.feed_fault:
    out["lamp_feeds"] = link_info.lamp_feeds(lamps, lay.LAMP_NAMES)
print(json.dumps(out))
