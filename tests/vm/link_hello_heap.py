# Under the VM: crapsboard/link/link_info.py's `hello` with 60,000 bytes of garbage
# left in the heap; prints JSON [the free heap hello gave, gc.mem_free() after a
# collection of our own].
import gc
import json

from crapsboard.link import link_info


class Handlers:  # what hello reads of link_app.Handlers: no files, no journal
    diag = {}
    board_id = "b"

    def path(self, name):
        return "/no such folder/" + name

    def now(self):
        return 0

    def journal_state(self):
        return None

    def clock(self):
        return None

    class app:
        journal = None


handlers = Handlers()
gc.collect()
junk = bytearray(60_000)
junk = None  # garbage until the next collection
given = link_info.hello(handlers, {})["free_heap"]
gc.collect()
print(json.dumps([given, gc.mem_free()]))
