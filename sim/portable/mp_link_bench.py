# The link core's speed and memory, on either runtime (sim/analysis/link_bench.py).
# argv under the VM: REQUESTS [memory]. Prints one JSON object. The speed runs
# need a larger heap for their input streams; "memory" alone runs in the
# default (ESP32-like) heap.
#
# Workloads: valid `ping` requests (a 16-character echo) and `hello`s; garbage
# lines of random bytes (each refused with one reply); one line far over the
# limit (skipped, one reply). Fed in 256-byte chunks and, as the task feeds
# it, one byte at a time. Memory (VM only): the heap a Link holds after
# gc.collect(), what is still held after serving, and the bytes allocated per
# valid request with the GC disabled.
import gc
import hashlib
import sys
import time

from crapsboard.link.link import Link, hello_handler

try:
    _ticks_us = time.ticks_us
    _diff = time.ticks_diff
except AttributeError:  # CPython

    def _ticks_us():
        return time.perf_counter_ns() // 1000

    def _diff(a, b):
        return a - b


def make_link():
    return Link({"hello": hello_handler("bench", "board-b", lambda: 1000)})


def valid_stream(count):
    lines = []
    for n in range(count):
        if n % 4 == 3:
            lines.append(b'{"id": %d, "cmd": "hello"}\n' % n)
        else:
            lines.append(b'{"id": %d, "cmd": "ping", "data": "0123456789abcdef"}\n' % n)
    return b"".join(lines)


def garbage_stream(count):
    lines = []
    block = b"link bench"
    for _ in range(count):
        block = hashlib.sha256(block).digest()
        lines.append((block + block + block).replace(b"\n", b" ") + b"\n")  # 96 random bytes
    return b"".join(lines)


def feed_rate(data, chunk):
    """Bytes per second through a fresh link, and the replies' total size."""
    link = make_link()
    out = 0
    view = memoryview(data)
    start = _ticks_us()
    for i in range(0, len(data), chunk):
        out += len(link.feed(bytes(view[i : i + chunk])))
    elapsed = _diff(_ticks_us(), start)
    return len(data) * 1000000 // max(elapsed, 1), out


def memory(requests):
    if not hasattr(gc, "mem_alloc"):
        return {}
    gc.collect()
    base = gc.mem_alloc()
    link = make_link()
    gc.collect()
    held = gc.mem_alloc() - base
    line = b'{"id": 1, "cmd": "ping", "data": "0123456789abcdef"}\n'
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(20):
        link.feed(line)
    per_request = (gc.mem_alloc() - before) // 20
    gc.enable()
    for _ in range(requests // 20):
        link.feed(garbage_stream(20))
    for _ in range(20):
        link.feed(b"x" * 500)  # one 10,000-byte line, skipped
    link.feed(b"\n")
    gc.collect()  # conservative: a stale pointer on the stack may keep a little alive
    return {"held_bytes": held, "held_after_serving_bytes": gc.mem_alloc() - base, "alloc_per_ping_bytes": per_request}


def run(requests):
    valid = valid_stream(requests)
    garbage = garbage_stream(requests)
    huge = b"x" * (requests * 50) + b"\n"
    result = {
        "valid_bytes_per_s": feed_rate(valid, 256)[0],
        "valid_bytewise_bytes_per_s": feed_rate(valid[: len(valid) // 4], 1)[0],
        "garbage_bytes_per_s": feed_rate(garbage, 256)[0],
        "overlong_bytes_per_s": feed_rate(huge, 256)[0],
        "valid_request_bytes": len(valid) // requests,
    }
    rate = result["valid_bytes_per_s"]
    result["valid_requests_per_s"] = rate // result["valid_request_bytes"]
    result.update(memory(requests))
    return result


if __name__ == "__main__":
    import json

    count = int(sys.argv[1])
    print(json.dumps(memory(count) if sys.argv[2:] == ["memory"] else run(count)))
