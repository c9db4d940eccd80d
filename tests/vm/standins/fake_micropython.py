# The unix port has no alloc_emergency_exception_buf (no hard interrupts);
# kbd_intr is recorded, not passed on (the unix port kills the process on a
# SIGINT once Ctrl-C is off), so a test can see whether main.py shut the REPL.
import micropython as real

const = real.const
buffers = []


def alloc_emergency_exception_buf(size):
    buffers.append(size)


interrupt_chars = []


def kbd_intr(char):
    interrupt_chars.append(char)
