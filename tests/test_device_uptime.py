"""The virtual board's clock is the board's: its tick counter (hello's
`uptime_ms`) starts at the chip's reset, not at the host's start, and a soft
reboot keeps it, as on the ESP32. The real MicroPython VM and firmware."""

import time

from test_device import WAIT_S, Device, deployed_files, image_with, open_port, read_until


def test_uptime_counts_from_the_boards_reset(tmp_path, mpy_lib):
    flash = tmp_path / "flash.img"
    image_with(flash, deployed_files(mpy_lib))
    started = time.monotonic()
    dev = Device(flash)
    try:
        dev.wait_line(r"^sim device: watchdog started")
        from test_device_robust import _hello

        hello = _hello(dev.port)
        alive_ms = (time.monotonic() - started) * 1000
        assert 0 < hello["uptime_ms"] <= alive_ms, (hello["uptime_ms"], alive_ms)
    finally:
        dev.stop()


def test_a_soft_reboot_keeps_the_tick_counter(tmp_path):
    dev = Device(tmp_path / "flash.img")  # a bare REPL
    try:
        with open_port(dev.port) as port:
            read_until(port, b">>> ")
            time.sleep(0.6)
            port.write(b"\x04")  # Ctrl-D at an empty prompt: a soft reboot, a new VM
            read_until(port, b"MPY: soft reboot")
            read_until(port, b">>> ")
            port.write(b"import time; print('T', time.ticks_ms())\r")
            answer = read_until(port, b">>> ", "ticks")
        ticks = int(answer.split(b"T ")[1].split()[0])
        assert ticks >= 600  # the first VM's time counts too
        assert ticks < WAIT_S * 1000 * 3  # and not the host's uptime
    finally:
        dev.stop()
