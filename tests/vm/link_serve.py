# The link task beside a 10 ms heartbeat, on standard input and output, under
# either runtime. A "beats" command reports the heartbeat's count, so the test
# can tell whether a half-sent line stopped the loop. Ends on end of input
# ({"event": "eof"}) or 0x03 ({"event": "interrupted"}).
import asyncio

from crapsboard.link.link import Link
from crapsboard.link.link_task import LinkTask, sleep_ms

beats = [0]


async def heartbeat():
    while True:
        beats[0] += 1
        await sleep_ms(10)


link = Link()
link.add("beats", lambda request: {"beats": beats[0]})
task = LinkTask(link)


async def main():
    asyncio.create_task(heartbeat())
    await task.run()


try:
    asyncio.run(main())
    task.push("eof")
except KeyboardInterrupt:
    task.push("interrupted", {"beats": beats[0]})
