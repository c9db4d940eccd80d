# The link under the MicroPython VM when memory runs out (docs/link.md, Memory).
# argv[1]: "reply" -- a Link served on standard input and output whose `status`
# reply cannot be built in the heap (a frame larger than the heap) and whose
# `grab` handler itself runs out of memory, beside `hello` that fits; "load" --
# a LinkTask whose link cannot be loaded (as link_wait's when the heap is full).
# Ends at the end of input.
import asyncio
import sys

from crapsboard.link.link import Link
from crapsboard.link.link_task import LinkTask

# The reply's text: one 2 KB string 120 times over, a frame of ~240 KB to build in a 192 KB heap.
BIG = ["x" * 2000] * 120


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
