# App.run() under the VM on its real clock: scan, render and watchdog tasks.
# argv: BOARD_JSON. Prints: watchdog fed twice, the first die entered, a frame written.
import asyncio
import sys
import time

from crapsboard.table import layout as lay
from crapsboard.table.app import KEYSWITCH_NC_BIT, App
from sim.portable.simboard import SimBoard

layout = lay.load(sys.argv[1])
board = SimBoard(layout)
board.ticks_ms = time.ticks_ms
app = App(board, layout)
board.down = KEYSWITCH_NC_BIT | 1 << layout.key_index("5")  # the keyswitch off


async def main():
    task = asyncio.create_task(app.run())
    for _ in range(2000):
        if board.feeds >= 2 and app.entry.first == 5:
            break
        await asyncio.sleep_ms(10)
    app.stop()
    await task


asyncio.run(main())
print(board.feeds >= 2, app.entry.first, board.frames > 0)
