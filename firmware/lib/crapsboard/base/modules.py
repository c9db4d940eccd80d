# The one place the firmware loads modules for a while and lets them go again.
#
# The board (ESP32-WROVER, PSRAM: docs/board.md, Memory) imports every module
# the table needs once at power-up and keeps it. One part is loaded only while
# it is used: the serial link, imported when a host first speaks and dropped
# after a silence (link/link_wait.py, link/link_task.py). While no host talks,
# what the heap holds -- and what every collection has to mark -- is the
# table's alone, and a link that cannot load (MemoryError) leaves the table
# playing. Nothing else in the firmware drops a module.
import sys

_PACKAGE = "crapsboard."


def loaded():
    """The names of the firmware's modules in memory now (for drop_since)."""
    return [name for name in sys.modules if name.startswith(_PACKAGE)]


def load(name):
    """Module `name` (absolute, dotted), imported if it is not in memory."""
    __import__(name)
    return sys.modules[name]


def drop_since(before):
    """Forget every firmware module loaded since `before` (loaded()'s list):
    once nothing refers to them, the next collection frees their code, and a
    later import loads them again. Called when the heap is full too (a link
    that could not load): it finds them one at a time, building no list."""
    while True:
        name = _one_since(before)
        if name is None:
            return
        sys.modules.pop(name)
        dot = name.rfind(".")
        try:  # unbind it from its package, which would keep it alive
            delattr(sys.modules.get(name[:dot]), name[dot + 1 :])
        except (AttributeError, KeyError, TypeError):  # not bound there (MicroPython raises KeyError)
            pass


def _one_since(before):
    for name in sys.modules:
        if name.startswith(_PACKAGE) and name not in before:
            return name
    return None
