# The unix port has no alloc_emergency_exception_buf (no hard interrupts).
import micropython as real

const = real.const
buffers = []


def alloc_emergency_exception_buf(size):
    buffers.append(size)
