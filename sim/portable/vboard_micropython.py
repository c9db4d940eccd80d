# The `micropython` module on the virtual board (`python -m sim device`): the
# unix port's own, plus what the ESP32 has and the unix port lacks
# (alloc_emergency_exception_buf: no hard interrupts there). kbd_intr is
# passed to the CPython side, not to the VM: on the virtual board Ctrl-C is a
# SIGINT, and the unix port turns SIGINT into a process kill once kbd_intr(-1)
# disables it; instead the CPython side passes 0x03 on as a plain byte then.
from micropython import *  # noqa: F403
from micropython import const  # noqa: F401  (named: the firmware imports it from here)

from sim.portable.vboard_machine import tell

emergency_buffer = [0]
interrupt_char = [3]


def alloc_emergency_exception_buf(size):
    emergency_buffer[0] = size


def kbd_intr(char):
    interrupt_char[0] = char
    tell("kbd " + str(char))
