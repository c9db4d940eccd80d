# The link under the MicroPython VM when memory runs out (docs/link.md, Memory).
# argv[1]: "reply" -- a Link served on standard input and output whose `status`
# reply cannot be built in the heap (thousands of pieces to encode) and whose
# `grab` handler itself runs out of memory, beside `hello` that fits; "load" --
# a LinkTask whose link cannot be loaded (as link_wait's when the heap is full).
# Ends at the end of input.
import asyncio
import sys

from crapsboard.link.link import Link
from crapsboard.link.link_task import LinkTask

BIG = list(range(6000))  # the reply's pieces: ~50 KB here, far more once encoded


def grab(request):
    return {"blob": bytearray(8 << 20)}  # more than the heap: MemoryError inside the handler


def build():
    link = Link()
    link.add("status", lambda request: {"n": BIG})
    link.add("grab", grab)
    return link


if sys.argv[1] == "load":

    def load(task):
        return bytearray(8 << 20) and build()  # the link's modules do not fit

    task = LinkTask(load=load)
else:
    task = LinkTask(build())
asyncio.run(task.run())
