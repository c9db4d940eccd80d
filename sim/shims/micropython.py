"""CPython stand-in for MicroPython's `micropython` module, for the simulator only."""


def const(value):
    return value


def alloc_emergency_exception_buf(size):
    return None


def mem_info(*args):
    return None


def opt_level(*args):
    return 0


def kbd_intr(char):
    return None


def schedule(function, arg):
    function(arg)
