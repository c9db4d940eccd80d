# Under the VM: crapsboard/link/link_wait.py's waiter serving a link (a stand-in
# link_app whose board_link builds a Link with no commands) on the standard input
# the test writes. Each poll notes whether the link task's module is in memory;
# when it has gone again after serving (the link forgotten after its silence),
# "forgotten" is printed, and at the end of the input the states in turn.
import asyncio
import json
import sys

states = []


async def _noted_sleep_ms(ms):  # instant: the silence passes in polls, not in time
    state = "task" if "crapsboard.link.link_task" in sys.modules else "wait"
    if not states or states[-1] != state:
        states.append(state)
        if states[-2:] == ["task", "wait"]:
            print("forgotten")


asyncio.sleep_ms = _noted_sleep_ms  # link_wait and link_task look it up as they load
from crapsboard.link import link_wait  # noqa: E402
from crapsboard.link.link import Link  # noqa: E402


class _LinkApp:
    @staticmethod
    def board_link(task):
        return Link({}, None, None)


sys.modules["crapsboard.link.link_app"] = _LinkApp
asyncio.run(link_wait.wait(()))
print(json.dumps(states))
