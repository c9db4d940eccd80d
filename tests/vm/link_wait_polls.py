# Under the VM: crapsboard/link/link_wait.py's waiter with its sleeps recorded, on
# the standard input the test gives it; prints each sleep's milliseconds as JSON.
import asyncio
import json

slept = []


async def _recorded_sleep_ms(ms):
    slept.append(ms)


asyncio.sleep_ms = _recorded_sleep_ms  # link_wait looks it up at each poll
from crapsboard.link import link_wait  # noqa: E402

asyncio.run(link_wait.wait(()))
print(json.dumps(slept))
