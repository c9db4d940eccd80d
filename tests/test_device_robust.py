"""The virtual board keeps its own things off the firmware's heap and outlives
any byte (`python -m sim device`): a long key script leaves the firmware the
same heap as a short one, and random bytes at the REPL never end the VM. The
real MicroPython VM on a pseudo-terminal, the firmware as deploy puts it."""

import random
import time

from test_device import WAIT_S, Device, deployed_files, image_with, open_port, read_until

from host_tools import HostToolError
from host_tools.link import BoardLink


def _hello(port):
    end = time.monotonic() + WAIT_S
    while True:
        try:
            with BoardLink(port, timeout=2.0) as link:
                return link.hello()
        except HostToolError:
            assert time.monotonic() < end, "no hello from the virtual board"
            time.sleep(0.3)


def _board_with_keys(tmp_path, mpy_lib, name, script):
    flash = tmp_path / (name + ".img")
    image_with(flash, deployed_files(mpy_lib))
    return Device(flash, "--keys", script)


def test_a_long_key_script_leaves_the_firmware_the_same_heap(tmp_path, mpy_lib):
    # 1,000 presses (500 rolls of 3-4): before the keys left the VM, their
    # timeline took the firmware's heap and start-up failed with MemoryError.
    # Both boards take one roll, then wait a minute (the figures are read
    # then); the long one has 998 presses more to come after it.
    short_script = "wait:300 3 4 wait:60000"
    long_script = short_script + " " + " ".join(["3 4"] * 499)
    figures = {}
    for name, script in (("short", short_script), ("long", long_script)):
        dev = _board_with_keys(tmp_path, mpy_lib, name, script)
        try:
            dev.wait_line(r"^sim device: keys: started$")
            assert not [line for line in dev.lines if "reset" in line]  # started at the first try
            deadline = time.monotonic() + WAIT_S
            while True:  # the first roll is in: the script plays
                hello = _hello(dev.port)
                if hello["journal"]["seq"] >= 2:
                    break
                assert time.monotonic() < deadline, hello
                time.sleep(0.2)
            figures[name] = hello["free_heap"]
        finally:
            dev.stop()
    assert figures["long"] > 0
    assert figures["long"] == figures["short"], figures  # hello collects first: the same heap, byte for byte


def test_random_bytes_at_the_repl_never_end_the_vm(tmp_path):
    flash = tmp_path / "flash.img"
    dev = Device(flash)  # an empty flash: a bare REPL
    try:
        rng = random.Random(18)
        with open_port(dev.port) as port:
            read_until(port, b">>> ")
            for _ in range(30):
                garbage = bytes(rng.randrange(256) for _ in range(400))
                # No Ctrl-D (a soft reboot is a reset, not a crash) and no
                # Ctrl-A/Ctrl-E (modes that wait for more): the friendly REPL's lines.
                garbage = bytes(b for b in garbage if b not in (1, 4, 5)) + b"\xff\xfe\r\x80abc\r"
                port.write(garbage)
                port.flush()
                time.sleep(0.05)
            port.write(b"\x03\r")
            time.sleep(0.5)
            port.reset_input_buffer()
        assert dev.mpremote("resume", "exec", "print(6 * 7)") == "42\n"
        assert dev.proc.poll() is None
        assert not [line for line in dev.lines if "VM ended" in line], dev.lines
    finally:
        dev.stop()


def test_a_non_utf8_line_is_an_error_at_the_prompt_not_a_crash(tmp_path):
    dev = Device(tmp_path / "flash.img")
    try:
        with open_port(dev.port) as port:
            read_until(port, b">>> ")
            port.write(b"x = '\xff'\r")
            assert read_until(port, b">>> ") == b"x = '\xff'\r\n>>> "  # taken as the board's lexer takes it
        assert dev.mpremote("resume", "exec", "print('alive')") == "alive\n"
        assert not [line for line in dev.lines if "VM ended" in line], dev.lines
    finally:
        dev.stop()
