# The keyswitch judged at power-up, under either runtime
# (tests/test_keyswitch_and_scan.py runs it under both). argv: BOARD_JSON
# POSITION, where POSITION is the contacts closed from the first scan on:
# "off" (NC closed), "neither" (X3 unplugged or a lead open), "both" (a short).
# Prints one JSON object: the fault flag and the status lamp after 500 ms, and
# the error events recorded.
import json
import sys

from sim.portable.run_core import Driver

driver = Driver(sys.argv[1])
position = sys.argv[2]
off = driver.held
if position == "neither":
    driver.held = 0
elif position == "both":
    driver.held = off | driver._contacts(2)  # keyscript.KEY_ON's bit as well
events = []
driver.begin(events.append)
driver.run("wait:500")
rgb, blink, _ = driver.app.lamps.lamp(0)  # lamps.L_STATUS
print(
    json.dumps(
        {
            "fault": driver.app.keyswitch_fault,
            "status_rgb": "#%06x" % rgb,
            "blink": blink,
            "errors": "".join(events).count("keyswitch_fault"),
        }
    )
)
